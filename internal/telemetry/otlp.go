package telemetry

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// otlpBatch is a batch of ended Spans as the messages of OTLP's protobuf
// types (go.opentelemetry.io/proto/otlp), what the OTLP exporter's client
// (otlptrace.Client.UploadTraces) marshals and sends: one resource, the
// gateway's, and one scope. It is the export goroutine's own, and its
// messages are used again batch after batch, so that a span costs the
// export no allocation once the batches have reached their size: the
// SDK's way, a read-only span per span and then the exporter's transform
// of it into new messages, allocated about 40 objects and 4 KiB per span,
// and the collector's share of that, with the pages the runtime gave back
// and took again, was most of what tracing cost a call (issue 24).
//
// What a span becomes follows the OTLP exporter's own transform
// (otlptrace/internal/tracetransform): the same ids, flags (the W3C trace
// flags, with the parent's "remote" bits), times, kind, attributes,
// links and status.
type otlpBatch struct {
	list     []*tracepb.ResourceSpans // the one resource below: UploadTraces' argument
	resource tracepb.ResourceSpans
	scope    tracepb.ScopeSpans
	spans    []*otlpSpan // one per span of the batch, kept for the next
}

// otlpSpan is one span's messages, with room for its ids and attributes.
type otlpSpan struct {
	span   tracepb.Span
	status tracepb.Status
	ids    [16 + 8 + 8]byte // the trace id, span id and parent span id the span's fields slice
	attrs  []*otlpValue
}

// otlpValue is one attribute's messages: its KeyValue, AnyValue and the
// AnyValue's oneof of each scalar type.
type otlpValue struct {
	kv  commonpb.KeyValue
	any commonpb.AnyValue
	str commonpb.AnyValue_StringValue
	i   commonpb.AnyValue_IntValue
	b   commonpb.AnyValue_BoolValue
	d   commonpb.AnyValue_DoubleValue
}

// newOTLPBatch makes the batch of resource res (nil: none) and scope.
func newOTLPBatch(res *resource.Resource, scope instrumentation.Scope) *otlpBatch {
	b := &otlpBatch{}
	b.list = []*tracepb.ResourceSpans{&b.resource}
	b.resource.ScopeSpans = []*tracepb.ScopeSpans{&b.scope}
	if res != nil {
		b.resource.Resource = &resourcepb.Resource{Attributes: newKeyValues(res.Attributes())}
		b.resource.SchemaUrl = res.SchemaURL()
	}
	b.scope.Scope = &commonpb.InstrumentationScope{Name: scope.Name, Version: scope.Version}
	b.scope.SchemaUrl = scope.SchemaURL
	return b
}

// fill makes the batch spans, in their order, and returns what
// UploadTraces takes; it holds them until the next fill or release.
func (b *otlpBatch) fill(spans []Span) []*tracepb.ResourceSpans {
	for len(b.spans) < len(spans) {
		b.spans = append(b.spans, &otlpSpan{})
	}
	b.scope.Spans = b.scope.Spans[:0]
	for i := range spans {
		b.scope.Spans = append(b.scope.Spans, b.spans[i].fill(&spans[i]))
	}
	return b.list
}

// release lets go of what the last fill's messages point to (names,
// attribute values, trace states), so that they outlive their spans no
// longer than their export.
func (b *otlpBatch) release() {
	for i := range b.scope.Spans {
		b.spans[i].release()
	}
	clear(b.scope.Spans)
	b.scope.Spans = b.scope.Spans[:0]
}

// fill makes the message of s, as tracetransform's span does.
func (o *otlpSpan) fill(s *Span) *tracepb.Span {
	m := &o.span
	tid, sid, pid := s.sc.TraceID(), s.sc.SpanID(), s.parent.SpanID()
	copy(o.ids[:16], tid[:])
	copy(o.ids[16:24], sid[:])
	m.TraceId, m.SpanId, m.ParentSpanId = o.ids[:16], o.ids[16:24], nil
	if pid.IsValid() {
		copy(o.ids[24:], pid[:])
		m.ParentSpanId = o.ids[24:]
	}
	m.TraceState = s.sc.TraceState().String()
	m.Flags = spanFlags(s.sc.TraceFlags(), s.parent)
	m.Name = s.name
	m.Kind = spanKind(s.kind)
	m.StartTimeUnixNano, m.EndTimeUnixNano = unixNano(s.start), unixNano(s.end)
	m.Attributes, m.DroppedAttributesCount = o.fillAttributes(m.Attributes[:0], s.attrs)
	m.Links = m.Links[:0]
	for _, l := range s.links {
		if l.SpanContext.IsValid() { // as the SDK drops a link to nothing
			m.Links = append(m.Links, newLink(l))
		}
	}
	if len(m.Links) == 0 {
		m.Links = nil
	}
	o.status.Code, o.status.Message = tracepb.Status_STATUS_CODE_UNSET, ""
	switch s.status {
	case codes.Ok:
		o.status.Code = tracepb.Status_STATUS_CODE_OK
	case codes.Error:
		o.status.Code, o.status.Message = tracepb.Status_STATUS_CODE_ERROR, s.message
	}
	m.Status = &o.status
	return m
}

// fillAttributes appends attrs to kvs as the SDK keeps them: each key
// once, at its last value, in the order the keys were first set, and
// without invalid ones (an empty key, no value), which it counts.
func (o *otlpSpan) fillAttributes(kvs []*commonpb.KeyValue, attrs []attribute.KeyValue) ([]*commonpb.KeyValue, uint32) {
	var dropped uint32
	for _, kv := range attrs {
		if !kv.Valid() {
			dropped++
			continue
		}
		at := -1
		for i, seen := range kvs { // a dozen attributes at most: a scan beats a map
			if seen.Key == string(kv.Key) {
				at = i
				break
			}
		}
		if at < 0 {
			at = len(kvs)
			if at == len(o.attrs) {
				o.attrs = append(o.attrs, &otlpValue{})
			}
			kvs = append(kvs, &o.attrs[at].kv)
		}
		o.attrs[at].fill(kv)
	}
	if len(kvs) == 0 {
		return nil, dropped
	}
	return kvs, dropped
}

// release lets go of what the span's message points to.
func (o *otlpSpan) release() {
	for i := range o.span.Attributes {
		o.attrs[i].release()
	}
	m := &o.span
	m.TraceState, m.Name, m.Links, m.Status = "", "", nil, nil
	o.status.Message = ""
}

// fill makes v's messages say kv, as tracetransform's KeyValue does; a
// scalar in the messages v holds, a slice or map in new ones.
func (v *otlpValue) fill(kv attribute.KeyValue) {
	v.kv.Key, v.kv.Value = string(kv.Key), &v.any
	switch kv.Value.Type() {
	case attribute.STRING:
		v.str.StringValue = kv.Value.AsString()
		v.any.Value = &v.str
	case attribute.INT64:
		v.i.IntValue = kv.Value.AsInt64()
		v.any.Value = &v.i
	case attribute.BOOL:
		v.b.BoolValue = kv.Value.AsBool()
		v.any.Value = &v.b
	case attribute.FLOAT64:
		v.d.DoubleValue = kv.Value.AsFloat64()
		v.any.Value = &v.d
	default:
		v.any.Value = newAnyValue(kv.Value).Value
	}
}

func (v *otlpValue) release() {
	v.kv.Key, v.str.StringValue, v.any.Value = "", "", nil
}

// newKeyValues is attrs as new messages (a resource's, a link's).
func newKeyValues(attrs []attribute.KeyValue) []*commonpb.KeyValue {
	if len(attrs) == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, len(attrs))
	for i, kv := range attrs {
		out[i] = &commonpb.KeyValue{Key: string(kv.Key), Value: newAnyValue(kv.Value)}
	}
	return out
}

// newAnyValue is v as a new message, of any type, as tracetransform's
// Value makes it.
func newAnyValue(v attribute.Value) *commonpb.AnyValue {
	av := &commonpb.AnyValue{}
	array := func(n int, at func(int) *commonpb.AnyValue) {
		values := make([]*commonpb.AnyValue, n)
		for i := range values {
			values[i] = at(i)
		}
		av.Value = &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: values}}
	}
	switch v.Type() {
	case attribute.STRING:
		av.Value = &commonpb.AnyValue_StringValue{StringValue: v.AsString()}
	case attribute.INT64:
		av.Value = &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}
	case attribute.BOOL:
		av.Value = &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}
	case attribute.FLOAT64:
		av.Value = &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}
	case attribute.BYTESLICE:
		av.Value = &commonpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		array(len(s), func(i int) *commonpb.AnyValue { return newAnyValue(attribute.StringValue(s[i])) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		array(len(s), func(i int) *commonpb.AnyValue { return newAnyValue(attribute.Int64Value(s[i])) })
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		array(len(s), func(i int) *commonpb.AnyValue { return newAnyValue(attribute.BoolValue(s[i])) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		array(len(s), func(i int) *commonpb.AnyValue { return newAnyValue(attribute.Float64Value(s[i])) })
	case attribute.SLICE:
		s := v.AsSlice()
		array(len(s), func(i int) *commonpb.AnyValue { return newAnyValue(s[i]) })
	case attribute.MAP:
		av.Value = &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: newKeyValues(v.AsMap())}}
	case attribute.EMPTY:
	default:
		av.Value = &commonpb.AnyValue_StringValue{StringValue: "INVALID"}
	}
	return av
}

// newLink is l as a new message (a span has a link only when its caller
// sent two trace contexts).
func newLink(l trace.Link) *tracepb.Span_Link {
	tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
	return &tracepb.Span_Link{TraceId: tid[:], SpanId: sid[:], Attributes: newKeyValues(l.Attributes),
		Flags: spanFlags(l.SpanContext.TraceFlags(), l.SpanContext)}
}

// spanFlags are OTLP's span flags: the W3C trace flags in the low byte,
// and whether the parent (or a link's span) is remote, known.
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	flags := uint32(tf) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)
	if parent.IsRemote() {
		flags |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
	}
	return flags
}

func spanKind(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return tracepb.Span_SPAN_KIND_INTERNAL
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_UNSPECIFIED
}

// unixNano is t in nanoseconds since the epoch, 0 before it.
func unixNano(t time.Time) uint64 {
	return uint64(max(0, t.UnixNano()))
}
