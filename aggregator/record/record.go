package record

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
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

// ErrClientCancelled is the cause of a request the client cancelled
// (notifications/cancelled), or whose session ended: its record is
// cancelled, not an error.
var ErrClientCancelled = errors.New("cancelled by the client")

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
// methods are for the request's own goroutine, and a nil *Record (a
// request there is nothing to tell about) takes them all.
type Record struct {
	tel      *Telemetry
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
	Record
	state spanState
}

// spanState is a record's tracing part, which a record has when tracing
// is on.
type spanState struct {
	remote context.Context   // the caller's trace context (and baggage)
	link   trace.SpanContext // the HTTP header's, when _meta had one too
	origin trace.SpanContext // the call this request continues
	span   telemetry.Span
	named  bool // the span started with its name (routed before)
}

// Begin starts the record of a request (method, id, params as they
// came) that came in with header: of the legacy session whose id is
// session, or, with session "", of a modern client; nil when there is
// nothing to tell (not a call, and tracing off). A modern caller's
// client, when Logged, is the caller's to set (SetClient).
func Begin(t *Telemetry, method string, id, params json.RawMessage, session string, header http.Header) *Record {
	call := isCall(method)
	if t.Tracer == nil && (!call || (t.CallLog == nil && t.Metrics == nil)) {
		return nil
	}
	var r *Record
	if t.Tracer != nil {
		tr := &tracedRecord{}
		r = &tr.Record
		r.trace = &tr.state
	} else {
		r = &Record{}
	}
	r.tel, r.start, r.method, r.id, r.era, r.call, r.params, r.reqBytes = t, time.Now(), method, id, eraModern, call, params, len(params)
	if session != "" {
		r.era, r.session = eraLegacy, session
		if r.Logged() {
			r.client = sessionClient(session)
		}
	}
	if t.Tracer != nil {
		r.trace.remote, r.trace.link = telemetry.Remote(context.Background(), params, header)
	}
	return r
}

// Logged reports whether the record ends in a call line.
func (r *Record) Logged() bool { return r.tel.CallLog != nil && r.call }

// SetClient names a modern caller's client for the call line ("t:" and
// its token's digest's first 8 characters).
func (r *Record) SetClient(client string) { r.client = client }

// sessionClient is a legacy session's client, as a call line names it.
func sessionClient(id string) string { return "s:" + id[:min(8, len(id))] }

// Routed records the call's route: the name the client asked for, its
// server, and the server's own name for it.
func (r *Record) Routed(name, server, tool string) {
	if r != nil {
		r.name, r.server, r.tool = name, server, tool
	}
}

// Result records a result answered; a small one is read for isError and
// a modern resultType (input_required, task).
func (r *Record) Result(res json.RawMessage) {
	if r == nil {
		return
	}
	r.outcome, r.resBytes = telemetry.OutcomeOK, len(res)
	if len(res) > maxResultLook {
		return
	}
	r.ResultFacts(res, ReadFacts(res))
}

// Facts is what one scan of a result's members finds (ReadFacts): its
// resultType, isError and taskId, raw (nil when absent). A modern answer
// reads its resultType from them, and its record the rest (ResultFacts),
// rather than scanning the result twice.
type Facts struct{ kind, isError, taskID []byte }

// ReadFacts reads res's resultType, isError and taskId members in one
// scan of its top level. As jsonrpc.Member reads keys, an escaped key is
// the key it spells ("result\u0054ype" is resultType), and the last of a
// repeated key counts.
func ReadFacts(res json.RawMessage) Facts {
	var f Facts
	_ = jsonrpc.Members(res, func(k, v []byte) bool {
		switch {
		case jsonrpc.KeyIs(k, "resultType"):
			f.kind = v
		case jsonrpc.KeyIs(k, "isError"):
			f.isError = v
		case jsonrpc.KeyIs(k, "taskId"):
			f.taskID = v
		}
		return true
	})
	return f
}

// Kind is the result's resultType ("" when it is not a string) and
// whether it has one (MCP 2026-07-28: every result should).
func (f Facts) Kind() (kind string, typed bool) {
	kind, _ = jsonrpc.Text(f.kind)
	return kind, f.kind != nil
}

// ResultFacts records res answered, read as f (ReadFacts of res): a
// modern answer has read them for its resultType, and its record does
// not scan the result again. A small one (up to maxResultLook) is read
// for isError.
func (r *Record) ResultFacts(res json.RawMessage, f Facts) {
	if r == nil {
		return
	}
	switch kind, _ := f.Kind(); kind {
	case "input_required":
		r.outcome, r.resBytes = telemetry.OutcomeInputRequired, len(res)
	case "task":
		id, _ := jsonrpc.Text(f.taskID)
		r.Task(id, res)
	default:
		r.outcome, r.resBytes = telemetry.OutcomeOK, len(res)
		if len(res) <= maxResultLook && string(f.isError) == "true" {
			r.errType = telemetry.ErrorToolError
		}
	}
}

// maxResultLook bounds the result a record reads for isError or a
// resultType: a larger one (rarely a task or an error) is taken as a
// plain result, so that a large result costs no second scan.
const maxResultLook = 64 << 10

// Task records a CreateTaskResult answered for task id.
func (r *Record) Task(id string, res json.RawMessage) {
	if r != nil {
		r.outcome, r.taskID, r.resBytes = telemetry.OutcomeTask, id, len(res)
	}
}

// Failed records an error answered, or no answer: cancelled by the
// client or its session's end, or past a deadline.
func (r *Record) Failed(err error) {
	if r == nil {
		return
	}
	var rpcErr *jsonrpc.Error
	switch {
	case errors.Is(err, ErrClientCancelled) || errors.Is(err, context.Canceled):
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

// HTTPFailed records an error answered with an HTTP status.
func (r *Record) HTTPFailed(e *wire.HTTPError) {
	if r != nil {
		r.Failed(&jsonrpc.Error{Code: e.Code, Message: e.Msg})
	}
}

// Cancelled records a request that gets no answer: its client cancelled it
// or closed the stream.
func (r *Record) Cancelled() {
	if r != nil {
		r.outcome = telemetry.OutcomeCancelled
	}
}

// InputRequired is wire.ResultParts(id, res) for an InputRequiredResult
// the gateway made (a parked call's round), recorded.
func (r *Record) InputRequired(id []byte, res json.RawMessage) [][]byte {
	if r != nil {
		r.outcome, r.resBytes = telemetry.OutcomeInputRequired, len(res)
	}
	return wire.ResultParts(id, res)
}

// ErrorParts is wire.ErrorParts(id, err), recorded.
func (r *Record) ErrorParts(id []byte, err error) [][]byte {
	r.Failed(err)
	return wire.ErrorParts(id, err)
}

// ResultParts is wire.ResultParts(id, res), recorded.
func (r *Record) ResultParts(id []byte, res json.RawMessage) [][]byte {
	r.Result(res)
	return wire.ResultParts(id, res)
}
