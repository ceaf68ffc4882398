package record

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is how a record ends (End): its server span (span.go), and
// for a call its metrics and its call line (SPEC §11.1), rendered here.

// End ends the record: its span, and for a call its metrics and its log
// line.
func (r *Record) End() {
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
	r.tel.Metrics.Call(telemetry.Call{Server: r.server, Method: r.method, Tool: r.toolLabel(), Outcome: r.outcome,
		ErrorType: r.errType, Duration: d, RequestBytes: r.reqBytes, ResultBytes: r.resBytes})
	if l := r.tel.CallLog; l != nil {
		l.LineLater("gateway", r.logLine(d)) // written off the call's goroutine, in batches
	}
}

// toolLabel is the exported tool name of a routed tools/call ("" for
// anything else): only names the registry exports become series.
func (r *Record) toolLabel() string {
	if r.method != "tools/call" || r.server == "" {
		return ""
	}
	return r.name
}

// logLine renders the call line (SPEC §11.1) as the gateway's slog lines
// read ("level=INFO msg=call key=value …", a value quoted when it must
// be), without slog's cost on the call's goroutine, in one allocation.
// Never arguments, results or error messages, which may echo arguments.
func (r *Record) logLine(d time.Duration) string {
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
	b.Write(appendMillis(num[:0], d))
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
	if sc := r.SpanContext(); sc.IsValid() {
		var id [2 * len(trace.TraceID{})]byte
		tid := sc.TraceID()
		hex.Encode(id[:], tid[:]) // as TraceID.String writes it, but in place
		b.WriteString(" trace_id=")
		b.Write(id[:])
	}
	return b.String()
}

// appendMillis appends d in milliseconds with three decimals ("0.431"),
// from its whole microseconds, as strconv.AppendFloat's 'f' with 3 would
// write them, without its float formatting (~0.4 µs a call line).
func appendMillis(b []byte, d time.Duration) []byte {
	us := d.Microseconds()
	if us < 0 {
		b, us = append(b, '-'), -us
	}
	b = strconv.AppendInt(b, us/1000, 10)
	frac := us % 1000
	return append(b, '.', byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
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
func (r *Record) nameForLog() string {
	if r.name == "" {
		key := "name"
		if r.method == "resources/read" {
			key = "uri"
		}
		r.name, _ = jsonrpc.Text(jsonrpc.Value(r.params, key))
	}
	return cut(r.name, 128)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
