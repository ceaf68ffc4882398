package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// The W3C Trace Context and Baggage keys, which travel unprefixed in a
// request's params._meta (MCP 2026-07-28 SEP-414; the MCP semantic
// conventions' "Context propagation").
const (
	keyTraceparent = "traceparent"
	keyTracestate  = "tracestate"
	keyBaggage     = "baggage"
)

// propagator reads and writes W3C traceparent/tracestate and baggage.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// metaCarrier is the three keys of metaKeys, in its order, as a
// propagation.TextMapCarrier.
type metaCarrier [3]string

// Indexes of metaCarrier and metaKeys.
const (
	traceparentAt = iota
	tracestateAt
	baggageAt
)

func (c *metaCarrier) field(key string) *string {
	if i := slices.Index(metaKeys, key); i >= 0 {
		return &c[i]
	}
	return nil
}

func (c *metaCarrier) Get(key string) string {
	if f := c.field(key); f != nil {
		return *f
	}
	return ""
}

func (c *metaCarrier) Set(key, value string) {
	if f := c.field(key); f != nil {
		*f = value
	}
}

// metaKeys are the carrier's keys, in the order they are written.
var metaKeys = []string{traceparentAt: keyTraceparent, tracestateAt: keyTracestate, baggageAt: keyBaggage}

func (c *metaCarrier) Keys() []string { return metaKeys }

// readMeta reads the three keys of params._meta (absent or not strings:
// "").
func readMeta(params json.RawMessage) metaCarrier {
	var c metaCarrier
	meta, ok := jsonrpc.Member(params, "_meta")
	if !ok || len(meta) == 0 || meta[0] != '{' {
		return c
	}
	_ = jsonrpc.Members(meta, func(k, v []byte) bool {
		if f := c.field(string(k)); f != nil {
			*f, _ = jsonrpc.Text(v)
		}
		return true
	})
	return c
}

// Remote returns ctx with the caller's trace context (SEP-414): the one
// in params._meta if it holds a valid traceparent, else the HTTP
// request's traceparent header; baggage comes with it. When both carry
// one, the header's is returned as link, for the span to link (the MCP
// semantic conventions: the server span's parent is _meta's, and it links
// the transport's). Neither: ctx as it is.
func Remote(ctx context.Context, params json.RawMessage, header http.Header) (_ context.Context, link trace.SpanContext) {
	c := readMeta(params)
	var fromHeader trace.SpanContext
	if header != nil && header.Get("Traceparent") != "" { // canonical: no allocation
		fromHeader = trace.SpanContextFromContext(propagator.Extract(context.Background(), propagation.HeaderCarrier(header)))
	}
	if c[traceparentAt] != "" {
		if got := propagator.Extract(ctx, &c); trace.SpanContextFromContext(got).IsValid() {
			return got, fromHeader
		}
	}
	if fromHeader.IsValid() {
		return propagator.Extract(ctx, propagation.HeaderCarrier(header)), trace.SpanContext{}
	}
	return ctx, trace.SpanContext{}
}

// InjectMeta returns params with ctx's span context as _meta's
// traceparent (replacing the caller's), with tracestate and baggage set
// from it, or removed when it has none; every other byte of params is
// kept, and every other byte of _meta (jsonrpc.SetMembers). One scan of
// params, one of _meta and one copy: no decoding. Absent params, or an
// absent or null _meta, become an object. A ctx without a valid span
// context, params that are not an object, or a _meta that is not one:
// params as they are, as without tracing.
func InjectMeta(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return params, nil
	}
	var c metaCarrier
	propagation.TraceContext{}.Inject(ctx, &c)
	if b := baggage.FromContext(ctx); b.Len() > 0 {
		c[baggageAt] = b.String()
	}
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	start, end, err := jsonrpc.Find(params, "_meta")
	if err != nil {
		return params, nil // not an object: the server answers it as it would without tracing
	}
	if start < 0 { // the usual params: without a _meta, one is added
		return jsonrpc.AppendMember(params, "_meta", newMeta(&c)), nil
	}
	meta := json.RawMessage("{}")
	if string(params[start:end]) != "null" {
		if meta = params[start:end]; meta[0] != '{' {
			return params, nil
		}
	}
	var edits [len(metaCarrier{})]jsonrpc.Edit
	for i, key := range metaKeys {
		edits[i].Key = key
		if c[i] != "" {
			edits[i].Value = jsonrpc.Quote(c[i])
		}
	}
	if meta, err = jsonrpc.SetMembers(meta, edits[:]...); err != nil {
		return nil, fmt.Errorf("inject trace context: %w", err)
	}
	return jsonrpc.Splice(params, start, end, meta), nil
}

// newMeta is a _meta of c's keys that are set, written directly: a
// traceparent is hex and dashes (W3C Trace Context), the others are
// quoted.
func newMeta(c *metaCarrier) []byte {
	meta := make([]byte, 0, 64+len(c[tracestateAt])+len(c[baggageAt]))
	meta = append(meta, `{"traceparent":"`...)
	meta = append(meta, c[traceparentAt]...)
	meta = append(meta, '"')
	for _, i := range []int{tracestateAt, baggageAt} {
		if c[i] != "" {
			meta = append(meta, `,"`...)
			meta = append(meta, metaKeys[i]...)
			meta = append(meta, `":`...)
			meta = append(meta, jsonrpc.Quote(c[i])...)
		}
	}
	return append(meta, '}')
}

// Traceparent renders a span context as a W3C traceparent ("" when it is
// not valid), for a log line or a sealed requestState.
func Traceparent(sc trace.SpanContext) string {
	if !sc.IsValid() {
		return ""
	}
	var c metaCarrier
	propagator.Inject(trace.ContextWithSpanContext(context.Background(), sc), &c)
	return c[traceparentAt]
}

// ParseTraceparent is Traceparent's inverse: the span context a
// traceparent names, as a remote one; not valid when s is not one.
func ParseTraceparent(s string) trace.SpanContext {
	if s == "" {
		return trace.SpanContext{}
	}
	var c metaCarrier
	c[traceparentAt] = s
	return trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), &c))
}

// Carry returns dst with src's span context and baggage: a call made
// apart from its request (on a session's context, a task's) stays in the
// request's trace.
func Carry(dst, src context.Context) context.Context {
	if src == nil {
		return dst
	}
	if sp := trace.SpanFromContext(src); sp.SpanContext().IsValid() {
		dst = trace.ContextWithSpan(dst, sp)
	}
	if b := baggage.FromContext(src); b.Len() > 0 {
		dst = baggage.ContextWithBaggage(dst, b)
	}
	return dst
}
