package telemetry

import (
	"context"
	"encoding/hex"
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
		for i, key := range metaKeys { // the raw key as it is: no string made of each key of _meta
			if jsonrpc.KeyIs(k, key) {
				c[i], _ = jsonrpc.Text(v)
			}
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

// InjectMeta returns params with span context sc as _meta's traceparent
// (replacing the caller's), with tracestate set from it and baggage from
// ctx, or removed when they have none; every other byte of params is
// kept, and every other byte of _meta (jsonrpc.SetMembersIn). One scan of
// params, one of _meta and one copy, the new members written in place:
// no decoding, and one allocation, the copy, but for a tracestate or
// baggage. Absent params, or an absent or null _meta, become an object.
// An invalid sc, params that are not an object, or a _meta that is not
// one: params as they are, as without tracing.
func InjectMeta(ctx context.Context, sc trace.SpanContext, params json.RawMessage) (json.RawMessage, error) {
	if !sc.IsValid() {
		return params, nil
	}
	var c metaCarrier
	c[tracestateAt] = sc.TraceState().String()
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
		var mb [128]byte // the new _meta, on the stack unless it is longer
		return jsonrpc.AppendMember(params, "_meta", appendMeta(mb[:0], sc, &c)), nil
	}
	if string(params[start:end]) == "null" {
		var mb [128]byte
		return jsonrpc.Splice(params, start, end, appendMeta(mb[:0], sc, &c)), nil
	}
	if params[start] != '{' {
		return params, nil
	}
	traceparent := appendQuotedTraceparent(make([]byte, 0, traceparentLen+2), sc)
	edits := [len(metaCarrier{})]jsonrpc.Edit{{Key: keyTraceparent, Value: traceparent}, {Key: keyTracestate}, {Key: keyBaggage}}
	for i := tracestateAt; i < len(c); i++ {
		if c[i] != "" {
			edits[i].Value = jsonrpc.Quote(c[i])
		}
	}
	out, err := jsonrpc.SetMembersIn(params, start, end, edits[:]...)
	if err != nil {
		return nil, fmt.Errorf("inject trace context: %w", err)
	}
	return out, nil
}

// appendMeta appends a _meta of sc's traceparent and c's other keys that
// are set.
func appendMeta(dst []byte, sc trace.SpanContext, c *metaCarrier) []byte {
	dst = append(dst, `{"traceparent":`...)
	dst = appendQuotedTraceparent(dst, sc)
	for _, i := range []int{tracestateAt, baggageAt} {
		if c[i] != "" {
			dst = append(dst, `,"`...)
			dst = append(dst, metaKeys[i]...)
			dst = append(dst, `":`...)
			dst = append(dst, jsonrpc.Quote(c[i])...)
		}
	}
	return append(dst, '}')
}

// traceparentLen is the length of a W3C traceparent of version 00.
const traceparentLen = len("00-") + 32 + len("-") + 16 + len("-") + 2

// appendTraceparent appends sc as a W3C traceparent, written as the
// propagator writes it (propagation.TraceContext.Inject: version 00, and
// of the flags only sampled and random), with no allocation.
func appendTraceparent(dst []byte, sc trace.SpanContext) []byte {
	tid, sid := sc.TraceID(), sc.SpanID()
	dst = append(dst, "00-"...)
	dst = hex.AppendEncode(dst, tid[:])
	dst = append(dst, '-')
	dst = hex.AppendEncode(dst, sid[:])
	dst = append(dst, '-')
	return hex.AppendEncode(dst, []byte{byte(sc.TraceFlags() & (trace.FlagsSampled | trace.FlagsRandom))})
}

// appendQuotedTraceparent appends sc's traceparent as a JSON string.
func appendQuotedTraceparent(dst []byte, sc trace.SpanContext) []byte {
	return append(appendTraceparent(append(dst, '"'), sc), '"')
}

// Traceparent renders a span context as a W3C traceparent ("" when it is
// not valid), for a log line or a sealed requestState.
func Traceparent(sc trace.SpanContext) string {
	if !sc.IsValid() {
		return ""
	}
	var buf [traceparentLen]byte
	return string(appendTraceparent(buf[:0], sc))
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

// Carry returns dst with span context sc (when valid) and the baggage of
// from (nil: none): a call made apart from its request (on a session's
// context, a task's) stays in the request's trace.
func Carry(dst context.Context, sc trace.SpanContext, from context.Context) context.Context {
	if sc.IsValid() {
		dst = trace.ContextWithSpanContext(dst, sc)
	}
	if from == nil {
		return dst
	}
	if b := baggage.FromContext(from); b.Len() > 0 {
		dst = baggage.ContextWithBaggage(dst, b)
	}
	return dst
}
