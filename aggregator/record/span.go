package record

import (
	"context"
	"strconv"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is a record's server span (SPEC §11.3; the MCP semantic
// conventions' "Server" span): it continues the caller's trace, from
// params._meta (SEP-414) or else the HTTP traceparent header, and its
// Context goes with the call to the server, whose client span is its
// child (supervisor). A request that continues a call (an MRTR retry, a
// task's methods) joins the trace of the call that began it (follows).
// The span starts when the call first needs its context, dated from the
// record's start, so that what is learnt on the way (the call it
// continues) can still choose its parent.

// Follows makes the request part of the trace of the call that began
// what it continues (sc, that call's span): its parent, unless the
// caller's own context is in that trace already; the caller's context is
// then linked.
func (r *Record) Follows(sc trace.SpanContext) {
	if r != nil && r.trace != nil && sc.IsValid() {
		r.trace.origin = sc
	}
}

// Context returns ctx carrying the request's span (started now if it has
// not been) and baggage: the context a call to a server is made in.
func (r *Record) Context(ctx context.Context) context.Context {
	if r == nil || r.tel.Tracer == nil {
		return ctx
	}
	r.startSpan()
	return telemetry.Carry(ctx, r.trace.span.SpanContext(), r.trace.remote)
}

// SpanContext is the request's span context (invalid when tracing is
// off), for what continues it later: a parked call, a task.
func (r *Record) SpanContext() trace.SpanContext {
	if r == nil || r.tel.Tracer == nil {
		return trace.SpanContext{}
	}
	r.startSpan()
	return r.trace.span.SpanContext()
}

// Origin is the span context a later request continuing this one should
// join: the one this request continues itself, else its own.
func (r *Record) Origin() trace.SpanContext {
	if r != nil && r.trace != nil && r.trace.origin.IsValid() {
		return r.trace.origin
	}
	return r.SpanContext()
}

func (r *Record) startSpan() {
	st := r.trace
	if st.span.SpanContext().IsValid() { // started: every span Start makes has ids
		return
	}
	parent := st.remote
	var links []trace.Link
	if st.link.IsValid() {
		links = append(links, trace.Link{SpanContext: st.link})
	}
	if st.origin.IsValid() {
		if own := trace.SpanContextFromContext(parent); own.TraceID() != st.origin.TraceID() {
			if own.IsValid() {
				links = append(links, trace.Link{SpanContext: own})
			}
			parent = trace.ContextWithSpanContext(parent, st.origin)
		}
	}
	r.tel.Tracer.Start(parent, &st.span, r.spanName(), trace.SpanKindServer, r.start, links...)
	st.named = r.name != ""
}

// spanName is the span's name: the method, and the name it was asked for
// once routed ("tools/call get_weather").
func (r *Record) spanName() string {
	if r.name == "" {
		return r.method
	}
	return r.method + " " + r.name
}

// endSpan names the span for what it served and ends it.
func (r *Record) endSpan() {
	if r.tel.Tracer == nil {
		return
	}
	r.startSpan()
	sp := &r.trace.span
	if !sp.Recording() {
		return
	}
	if r.name != "" && !r.trace.named {
		sp.SetName(r.spanName())
	}
	r.setSpanAttributes(sp)
	if code, desc, failed := r.spanStatus(); failed {
		sp.SetStatus(code, desc)
	}
	sp.End()
}

// setSpanAttributes sets the server span's attributes (the MCP semantic
// conventions' "Server" span), all known once the request has ended.
func (r *Record) setSpanAttributes(sp *telemetry.Span) {
	sp.SetString("mcp.method.name", r.method)
	sp.SetString("network.transport", "tcp")
	sp.SetString("network.protocol.name", "http")
	if id := requestID(r.id); id != "" {
		sp.SetString("jsonrpc.request.id", id)
	}
	if r.session != "" {
		sp.SetString("mcp.session.id", r.session)
	}
	if r.name != "" {
		switch r.method {
		case "tools/call":
			sp.SetString("gen_ai.tool.name", r.name)
			sp.SetString("gen_ai.operation.name", "execute_tool")
		case "prompts/get":
			sp.SetString("gen_ai.prompt.name", r.name)
		}
	}
	if r.server != "" {
		sp.SetString("mcp_gateway.server", r.server)
	}
	if r.outcome != "" && r.outcome != "unknown" {
		sp.SetString("mcp_gateway.outcome", r.outcome)
	}
	if r.taskID != "" {
		sp.SetString("mcp_gateway.task.id", r.taskID)
	}
	switch {
	case r.outcome == telemetry.OutcomeError:
		code := strconv.FormatInt(r.code, 10)
		sp.SetString("error.type", code)
		sp.SetString("rpc.response.status_code", code)
	case r.errType == telemetry.ErrorToolError:
		sp.SetString("error.type", telemetry.ErrorToolError)
	case r.outcome == telemetry.OutcomeCancelled || r.outcome == telemetry.OutcomeTimeout:
		sp.SetString("error.type", r.outcome)
	}
}

// spanStatus is the server span's status: an error for a JSON-RPC error
// (its message), a tool's isError, a cancelled or timed-out request.
func (r *Record) spanStatus() (codes.Code, string, bool) {
	switch {
	case r.outcome == telemetry.OutcomeError:
		return codes.Error, r.message, true // SetStatus cuts it
	case r.errType == telemetry.ErrorToolError:
		return codes.Error, "", true
	case r.outcome == telemetry.OutcomeCancelled || r.outcome == telemetry.OutcomeTimeout:
		return codes.Error, r.outcome, true
	}
	return codes.Unset, "", false
}

// requestID is jsonrpc.request.id: a string id's text, a number as
// written.
func requestID(id []byte) string {
	if s, ok := jsonrpc.Text(id); ok {
		return s
	}
	return string(id)
}
