package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is what a request to a server tells (SPEC §11): its
// duration, as mcp_client_operation_duration_seconds, and, when the
// request is made for a traced call (its ctx carries the call's span),
// its client span (the MCP semantic conventions' "Client" span), whose
// context replaces traceparent, and sets tracestate and baggage, in the
// params._meta the server receives, over whatever transport carries them
// and in either era (SEP-414). Without tracing, params are not touched.

// telemetryHooks is what a connection reports to: tracer makes the client
// spans of traced calls, nil when tracing is off; metrics gets each
// request's duration. Both from Hooks.
type telemetryHooks struct {
	name    string
	tracer  *telemetry.Tracer
	metrics *telemetry.Metrics
}

// traced starts pc's client span for request id and returns params with
// its context in _meta; params as they are when ctx carries no span.
// network is the transport's network.transport, version a modern
// server's protocol version ("" for a legacy one). The attributes are set
// after the start (the sampler reads none of them), and only on a span
// that records.
func (c *telemetryHooks) traced(ctx context.Context, pc *pendingCall, method string, id int64, params json.RawMessage, network, version string) (json.RawMessage, error) {
	if c.tracer == nil || pc.span == nil || !trace.SpanContextFromContext(ctx).IsValid() {
		return params, nil
	}
	name, target, key := method, "", ""
	switch method {
	case "tools/call", "prompts/get":
		var ok bool
		if target, ok = jsonrpc.Text(jsonrpc.Value(params, "name")); ok {
			name += " " + target
			key = "gen_ai.tool.name"
			if method == "prompts/get" {
				key = "gen_ai.prompt.name"
			}
		}
	}
	span := pc.span
	c.tracer.Start(ctx, span, name, trace.SpanKindClient, pc.start)
	if span.Recording() {
		span.SetString("mcp.method.name", method)
		span.SetString("jsonrpc.request.id", strconv.FormatInt(id, 10))
		span.SetString("network.transport", network)
		span.SetString("mcp_gateway.server", c.name)
		if key != "" {
			span.SetString(key, target)
		}
		if version != "" {
			span.SetString("mcp.protocol.version", version)
		}
	}
	out, err := telemetry.InjectMeta(ctx, span.SpanContext(), params)
	if err != nil {
		span.End()
		return nil, err
	}
	return out, nil
}

// tracedCall is a pending call and its client span, allocated as one
// when tracing is on.
type tracedCall struct {
	pendingCall
	span telemetry.Span
}

// newPendingCall is a zero pending call; with tracing on, one with room
// for its client span.
func (c *telemetryHooks) newPendingCall() *pendingCall {
	if c.tracer == nil {
		return &pendingCall{}
	}
	tc := &tracedCall{}
	tc.pendingCall.span = &tc.span
	return &tc.pendingCall
}

// finished records the end of pc, request method, with err (nil: a
// result): its duration, and its span's end.
func (c *telemetryHooks) finished(pc *pendingCall, method string, err error) {
	c.metrics.ClientDuration(c.name, method, time.Since(pc.start))
	if pc.span == nil || !pc.span.Recording() {
		return
	}
	var rpcErr *jsonrpc.Error
	switch {
	case err == nil:
	case errors.As(err, &rpcErr):
		code := strconv.FormatInt(rpcErr.Code, 10)
		pc.span.SetString("error.type", code)
		pc.span.SetString("rpc.response.status_code", code)
		pc.span.SetStatus(codes.Error, rpcErr.Message)
	case errors.Is(err, context.Canceled):
		pc.span.SetString("error.type", "cancelled")
		pc.span.SetStatus(codes.Error, "cancelled")
	default:
		pc.span.SetString("error.type", "_OTHER")
		pc.span.SetStatus(codes.Error, err.Error())
	}
	pc.span.End()
}
