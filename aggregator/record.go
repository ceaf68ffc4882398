package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
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
	Tracer trace.Tracer
	// CallLog writes one log line per call (SPEC §11.1).
	CallLog bool
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

	trace spanState // span.go
}

// begin starts the record of request m, which came in the HTTP request
// hr, of session s (a legacy client's) or, with s nil, of a modern
// client; nil when there is nothing to tell (not a call, and tracing
// off).
func (h *handler) begin(m *wire.Message, s *session, hr *http.Request) *record {
	t := &h.g.tel
	call := isCall(m.Method)
	if t.Tracer == nil && (!call || (!t.CallLog && t.Metrics == nil)) {
		return nil
	}
	r := &record{h: h, start: time.Now(), method: m.Method, id: m.ID, era: eraModern, call: call, params: m.Params, reqBytes: len(m.Params)}
	if s != nil {
		r.era, r.session, r.client = eraLegacy, s.id, sessionClient(s)
	} else if t.CallLog && call {
		r.client = tokenClient(hr)
	}
	header := hr.Header
	if t.Tracer != nil {
		r.trace.remote, r.trace.link = telemetry.Remote(context.Background(), m.Params, header)
	}
	return r
}

// sessionClient is a legacy session's client, as a call line names it.
func sessionClient(s *session) string { return "s:" + s.id[:min(8, len(s.id))] }

// tokenClient is a modern caller's client: its token's digest.
func tokenClient(r *http.Request) string {
	tok, _ := bearer(r.Header.Get("Authorization"))
	return "t:" + tokenDigest(tok)[:8]
}

// routed records the call's route.
func (r *record) routed(c upstreamCall) {
	if r != nil {
		r.name, r.server, r.tool = c.name, c.route.upstream.Name(), c.route.tool
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
	kind, _ := resultType(res)
	switch {
	case kind == "input_required":
		r.outcome = telemetry.OutcomeInputRequired
	case kind == "task":
		r.outcome = telemetry.OutcomeTask
		r.taskID, _ = jsonrpc.Text(mustMember(res, "taskId"))
	case isErrorResult(res):
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
	if r.h.g.tel.CallLog {
		r.logLine(d)
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

// logLine writes the call line (SPEC §11.1): never arguments, results or
// error messages, which may echo arguments.
func (r *record) logLine(d time.Duration) {
	attrs := make([]slog.Attr, 0, 14)
	attrs = append(attrs, slog.String("method", r.method), slog.String("server", r.server), slog.String("name", r.nameForLog()))
	if r.tool != "" && r.tool != r.name {
		attrs = append(attrs, slog.String("tool", r.tool))
	}
	attrs = append(attrs, slog.String("era", r.era), slog.String("client", r.client),
		slog.String("duration", strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 3, 64)+"ms"),
		slog.Int("request_bytes", r.reqBytes), slog.Int("result_bytes", r.resBytes), slog.String("outcome", r.outcome))
	if r.outcome == telemetry.OutcomeError {
		attrs = append(attrs, slog.Int64("code", r.code))
	}
	if r.errType == telemetry.ErrorToolError {
		attrs = append(attrs, slog.String("error_type", r.errType))
	}
	if r.taskID != "" {
		attrs = append(attrs, slog.String("task", r.taskID))
	}
	if id := r.traceID(); id != "" {
		attrs = append(attrs, slog.String("trace_id", id))
	}
	r.h.g.log.LogAttrs(context.Background(), slog.LevelInfo, "call", attrs...)
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
