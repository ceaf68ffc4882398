package aggregator

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is what an operator sees of each request to /mcp (SPEC §11):
// its record, begun as the request is routed and ended where its answer
// is written, in one place per front (serveSession for a legacy session,
// serveModern for a modern request). For tools/call, prompts/get and
// resources/read the record ends in one call log line and the call
// metrics; for every request, when tracing is on, it is the request's
// server span (span.go). What happens in between (routing, the outcome,
// a task made, a round of MRTR) is told to the record by the code that
// knows it.

// Telemetry is what the endpoint tells about its requests (SPEC §11).
// The zero value tells nothing.
type Telemetry struct {
	// Metrics gets every call's series, and is served on /metrics behind
	// the bearer token; nil: neither.
	Metrics *telemetry.Metrics
	// Tracer makes the requests' server spans; nil: tracing is off, no
	// span is made and _meta passes byte for byte.
	Tracer *telemetry.Tracer
	// CallLog gets one line per call (SPEC §11.1), from the gateway
	// ("[gateway]", never dropped); nil: none.
	CallLog *logfile.Log
}

// Eras, as a record names its client's.
const (
	eraLegacy = "legacy"
	eraModern = "modern"
)

// isCall reports whether method is one a call line is written for.
func isCall(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}

// record is one request to /mcp, from its routing to its answer. Its
// methods are for the request's own goroutine, and a nil *record (a
// request there is nothing to tell about) takes them all.
type record struct {
	h        *handler
	start    time.Time
	method   string
	id       json.RawMessage
	era      string
	client   string // the call line's: "s:" and a session id's first 8 characters, or "t:" and a token digest's
	session  string // a legacy session's id (mcp.session.id)
	call     bool   // isCall(method)
	params   json.RawMessage
	reqBytes int

	name, server, tool string // the name asked for; routed: its server, and the server's own name for it
	outcome, errType   string
	code               int64
	message            string // a JSON-RPC error's message, for the span's status only
	resBytes           int
	taskID             string

	trace *spanState // span.go; nil when tracing is off
}

// tracedRecord is a record and its tracing part, allocated as one.
type tracedRecord struct {
	record
	state spanState
}

// begin starts the record of request m, which came in the HTTP request
// hr, of session s (a legacy client's) or, with s nil, of a modern
// client; nil when there is nothing to tell (not a call, and tracing
// off).
func (h *handler) begin(m *wire.Message, s *session, hr *http.Request) *record {
	t := &h.g.tel
	call := isCall(m.Method)
	if t.Tracer == nil && (!call || (t.CallLog == nil && t.Metrics == nil)) {
		return nil
	}
	var r *record
	if t.Tracer != nil {
		tr := &tracedRecord{}
		r = &tr.record
		r.trace = &tr.state
	} else {
		r = &record{}
	}
	r.h, r.start, r.method, r.id, r.era, r.call, r.params, r.reqBytes = h, time.Now(), m.Method, m.ID, eraModern, call, m.Params, len(m.Params)
	logged := t.CallLog != nil && call
	switch {
	case s != nil:
		r.era, r.session = eraLegacy, s.id
		if logged {
			r.client = sessionClient(s)
		}
	case logged:
		r.client = h.tokenClient(hr)
	}
	if t.Tracer != nil {
		r.trace.remote, r.trace.link = telemetry.Remote(context.Background(), m.Params, hr.Header)
	}
	return r
}

// sessionClient is a legacy session's client, as a call line names it.
func sessionClient(s *session) string { return "s:" + s.id[:min(8, len(s.id))] }

// tokenClient is a modern caller's client: its token's digest. Callers
// share the one token, so the last digest is kept (a SHA-256 per call
// saved).
func (h *handler) tokenClient(r *http.Request) string {
	tok, _ := bearer(r.Header.Get("Authorization"))
	if last := h.lastClient.Load(); last != nil && last[0] == tok {
		return last[1]
	}
	c := "t:" + tokenDigest(tok)[:8]
	h.lastClient.Store(&[2]string{tok, c})
	return c
}

// routed records the call's route.
func (r *record) routed(c upstreamCall) {
	if r != nil {
		r.name, r.server, r.tool = c.name, c.route.Upstream.Name(), c.route.Name
	}
}

// result records a result answered; a small one is read for isError and
// a modern resultType (input_required, task).
func (r *record) result(res json.RawMessage) {
	if r == nil {
		return
	}
	r.outcome, r.resBytes = telemetry.OutcomeOK, len(res)
	if len(res) > maxResultLook {
		return
	}
	var kind, isError, taskID []byte // one scan of the result's members
	_ = jsonrpc.Members(res, func(k, v []byte) bool {
		switch string(k) {
		case "resultType":
			kind = v
		case "isError":
			isError = v
		case "taskId":
			taskID = v
		}
		return true
	})
	switch {
	case string(kind) == `"input_required"`:
		r.outcome = telemetry.OutcomeInputRequired
	case string(kind) == `"task"`:
		r.outcome = telemetry.OutcomeTask
		r.taskID, _ = jsonrpc.Text(taskID)
	case string(isError) == "true":
		r.errType = telemetry.ErrorToolError
	}
}

// maxResultLook bounds the result a record reads for isError or a
// resultType: a larger one (rarely a task or an error) is taken as a
// plain result, so that a large result costs no second scan.
const maxResultLook = 64 << 10

// task records a CreateTaskResult answered for task id.
func (r *record) task(id string, res json.RawMessage) {
	if r != nil {
		r.outcome, r.taskID, r.resBytes = telemetry.OutcomeTask, id, len(res)
	}
}

// failed records an error answered, or no answer: cancelled by the
// client or its session's end, or past a deadline.
func (r *record) failed(err error) {
	if r == nil {
		return
	}
	var rpcErr *jsonrpc.Error
	switch {
	case errors.Is(err, errClientCancelled) || errors.Is(err, context.Canceled):
		r.outcome = telemetry.OutcomeCancelled
	case errors.Is(err, context.DeadlineExceeded):
		r.outcome = telemetry.OutcomeTimeout
	case errors.As(err, &rpcErr):
		r.outcome, r.code, r.message = telemetry.OutcomeError, rpcErr.Code, rpcErr.Message
		r.errType = telemetry.ErrorType(rpcErr.Code)
	default:
		r.outcome, r.code, r.message = telemetry.OutcomeError, jsonrpc.CodeInternalError, err.Error()
		r.errType = telemetry.ErrorType(r.code)
	}
}

// httpFailed records an error answered with an HTTP status.
func (r *record) httpFailed(e *wire.HTTPError) {
	if r != nil {
		r.failed(&jsonrpc.Error{Code: e.Code, Message: e.Msg})
	}
}

// cancelled records a request that gets no answer: its client cancelled it
// or closed the stream.
func (r *record) cancelled() {
	if r != nil {
		r.outcome = telemetry.OutcomeCancelled
	}
}

// inputRequired is wire.ResultParts(id, res) for an InputRequiredResult
// the gateway made (a parked call's round), recorded.
func (r *record) inputRequired(id []byte, res json.RawMessage) [][]byte {
	if r != nil {
		r.outcome, r.resBytes = telemetry.OutcomeInputRequired, len(res)
	}
	return wire.ResultParts(id, res)
}

// resultKind is result for a result whose resultType the caller has read
// (kind): no second look at it for that.
func (r *record) resultKind(res json.RawMessage, kind string) {
	if r == nil {
		return
	}
	switch kind {
	case "input_required":
		r.outcome, r.resBytes = telemetry.OutcomeInputRequired, len(res)
	case "task":
		id, _ := jsonrpc.Text(mustMember(res, "taskId"))
		r.task(id, res)
	default:
		r.outcome, r.resBytes = telemetry.OutcomeOK, len(res)
		if len(res) <= maxResultLook && isErrorResult(res) {
			r.errType = telemetry.ErrorToolError
		}
	}
}

// errorParts is wire.ErrorParts(id, err), recorded.
func (r *record) errorParts(id []byte, err error) [][]byte {
	r.failed(err)
	return wire.ErrorParts(id, err)
}

// resultParts is wire.ResultParts(id, res), recorded.
func (r *record) resultParts(id []byte, res json.RawMessage) [][]byte {
	r.result(res)
	return wire.ResultParts(id, res)
}

// end ends the record: its span, and for a call its metrics and its log
// line.
func (r *record) end() {
	if r == nil {
		return
	}
	d := time.Since(r.start)
	if r.outcome == "" {
		r.outcome = "unknown" // a path that did not say; tests look for none
	}
	r.endSpan() // span.go
	if !r.call {
		return
	}
	r.h.g.tel.Metrics.Call(telemetry.Call{Server: r.server, Method: r.method, Tool: r.toolLabel(), Outcome: r.outcome,
		ErrorType: r.errType, Duration: d, RequestBytes: r.reqBytes, ResultBytes: r.resBytes})
	if l := r.h.g.tel.CallLog; l != nil {
		l.LineLater("gateway", r.logLine(d)) // written off the call's goroutine, in batches
	}
}

// toolLabel is the exported tool name of a routed tools/call ("" for
// anything else): only names the registry exports become series.
func (r *record) toolLabel() string {
	if r.method != "tools/call" || r.server == "" {
		return ""
	}
	return r.name
}

// logLine renders the call line (SPEC §11.1) as the gateway's slog lines
// read ("level=INFO msg=call key=value …", a value quoted when it must
// be), without slog's cost on the call's goroutine, in one allocation.
// Never arguments, results or error messages, which may echo arguments.
func (r *record) logLine(d time.Duration) string {
	var b strings.Builder
	b.Grow(256)
	var num [24]byte
	b.WriteString("level=INFO msg=call")
	kv(&b, "method", r.method)
	kv(&b, "server", r.server)
	kv(&b, "name", r.nameForLog())
	if r.tool != "" && r.tool != r.name {
		kv(&b, "tool", r.tool)
	}
	kv(&b, "era", r.era)
	kv(&b, "client", r.client)
	b.WriteString(" duration=")
	b.Write(strconv.AppendFloat(num[:0], float64(d.Microseconds())/1000, 'f', 3, 64))
	b.WriteString("ms request_bytes=")
	b.Write(strconv.AppendInt(num[:0], int64(r.reqBytes), 10))
	b.WriteString(" result_bytes=")
	b.Write(strconv.AppendInt(num[:0], int64(r.resBytes), 10))
	kv(&b, "outcome", r.outcome)
	if r.outcome == telemetry.OutcomeError {
		b.WriteString(" code=")
		b.Write(strconv.AppendInt(num[:0], r.code, 10))
	}
	if r.errType == telemetry.ErrorToolError {
		kv(&b, "error_type", r.errType)
	}
	if r.taskID != "" {
		kv(&b, "task", r.taskID)
	}
	if sc := r.spanContext(); sc.IsValid() {
		var id [2 * len(trace.TraceID{})]byte
		tid := sc.TraceID()
		hex.Encode(id[:], tid[:]) // as TraceID.String writes it, but in place
		b.WriteString(" trace_id=")
		b.Write(id[:])
	}
	return b.String()
}

// kv writes " key=value", the value quoted as slog's text handler
// would: when empty, or holding a space, '=', '"' or anything but
// printable ASCII.
func kv(b *strings.Builder, key, value string) {
	b.WriteByte(' ')
	b.WriteString(key)
	b.WriteByte('=')
	for i := 0; i < len(value); i++ {
		if c := value[i]; c <= ' ' || c == '=' || c == '"' || c >= 0x7f {
			b.WriteString(strconv.Quote(value))
			return
		}
	}
	if value == "" {
		b.WriteString(`""`)
		return
	}
	b.WriteString(value)
}

// nameForLog is the name the client asked for, read from the params
// when routing failed (a tool the gateway does not export), cut at 128
// bytes.
func (r *record) nameForLog() string {
	if r.name == "" {
		key := "name"
		if r.method == "resources/read" {
			key = "uri"
		}
		r.name, _ = jsonrpc.Text(mustMember(r.params, key))
	}
	return cut(r.name, 128)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
