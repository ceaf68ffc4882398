package telemetry

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// otlpBatch is a batch of ended Spans as OTLP's protobuf messages
// (go.opentelemetry.io/proto/otlp), what the OTLP exporter's client
// (otlptrace.Client.UploadTraces) marshals and sends: one resource, the
// gateway's, and one scope, made once, whose spans are written in
// protobuf's wire format (protowire) into a buffer used again batch
// after batch, and given to the scope's message as its unknown fields,
// which protobuf marshals as they are: on the wire, the scope's spans
// field. The export goroutine owns it.
//
// The SDK's way, a read-only span per span and then the exporter's
// transform of it into new messages for proto.Marshal, cost about 40
// allocations and 4 KiB per span, and the marshal alone, on messages
// used again, 1.5 µs per span here; the collector's share of those, and
// the pages the runtime gave back and took again, were most of what
// tracing cost a call (issue 24). Writing a span costs no allocation
// once the buffer has grown.
//
// What a span becomes is what the OTLP exporter's own transform
// (otlptrace/internal/tracetransform) makes of the SDK's span: the same
// ids, flags (the W3C trace flags, with the parent's "remote" bits),
// times, kind, attributes, links and status (TestExportIsWhatTheSDKSends
// compares the two); the field numbers are read from the OTLP types'
// descriptors.
type otlpBatch struct {
	list     []*tracepb.ResourceSpans // the one resource below: UploadTraces' argument
	resource tracepb.ResourceSpans
	scope    tracepb.ScopeSpans
	buf      []byte // the spans, each a scope's spans field
	n        int    // spans in buf
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

// add writes s after the spans written before it, and returns how many
// the batch holds.
func (b *otlpBatch) add(s *spanData) int {
	b.buf = protowire.AppendTag(b.buf, fieldScopeSpans, protowire.BytesType)
	at := len(b.buf)
	b.buf = appendSpan(b.buf, s)
	b.buf = insertLen(b.buf, at)
	b.n++
	return b.n
}

// len is how many spans the batch holds.
func (b *otlpBatch) len() int { return b.n }

// request is the batch as UploadTraces takes it, until reset.
func (b *otlpBatch) request() []*tracepb.ResourceSpans {
	b.scope.ProtoReflect().SetUnknown(b.buf)
	return b.list
}

// reset empties the batch, and takes its spans off the scope's message:
// the buffer is the batch's again, unless it grew past keepBuffer (a
// batch of many, or long, spans), when it goes.
func (b *otlpBatch) reset() {
	b.scope.ProtoReflect().SetUnknown(nil)
	b.buf, b.n = b.buf[:0], 0
	if cap(b.buf) > keepBuffer {
		b.buf = nil
	}
}

// keepBuffer is the most a batch's buffer keeps between batches: more
// than twice a full batch of the default size (512 spans of a call, 370
// bytes each: 190 KB).
const keepBuffer = 512 << 10

// The field numbers the spans are written with, read from the OTLP
// types' descriptors.
var (
	fieldScopeSpans = fieldNumber(&tracepb.ScopeSpans{}, "spans")

	fieldTraceID      = fieldNumber(&tracepb.Span{}, "trace_id")
	fieldSpanID       = fieldNumber(&tracepb.Span{}, "span_id")
	fieldTraceState   = fieldNumber(&tracepb.Span{}, "trace_state")
	fieldParentSpanID = fieldNumber(&tracepb.Span{}, "parent_span_id")
	fieldName         = fieldNumber(&tracepb.Span{}, "name")
	fieldKind         = fieldNumber(&tracepb.Span{}, "kind")
	fieldStart        = fieldNumber(&tracepb.Span{}, "start_time_unix_nano")
	fieldEnd          = fieldNumber(&tracepb.Span{}, "end_time_unix_nano")
	fieldAttributes   = fieldNumber(&tracepb.Span{}, "attributes")
	fieldDropped      = fieldNumber(&tracepb.Span{}, "dropped_attributes_count")
	fieldLinks        = fieldNumber(&tracepb.Span{}, "links")
	fieldStatus       = fieldNumber(&tracepb.Span{}, "status")
	fieldFlags        = fieldNumber(&tracepb.Span{}, "flags")

	fieldStatusMessage = fieldNumber(&tracepb.Status{}, "message")
	fieldStatusCode    = fieldNumber(&tracepb.Status{}, "code")

	fieldKey         = fieldNumber(&commonpb.KeyValue{}, "key")
	fieldValue       = fieldNumber(&commonpb.KeyValue{}, "value")
	fieldStringValue = fieldNumber(&commonpb.AnyValue{}, "string_value")
)

// fieldNumber is the number of m's field name; it panics, at start, if
// the OTLP types have none of that name.
func fieldNumber(m proto.Message, name protoreflect.Name) protowire.Number {
	f := m.ProtoReflect().Descriptor().Fields().ByName(name)
	if f == nil {
		panic(fmt.Sprintf("otlp: %s has no field %s", m.ProtoReflect().Descriptor().FullName(), name))
	}
	return f.Number()
}

// appendSpan appends s as a Span message's fields, as tracetransform's
// span makes them from the SDK's span (zero values left out, as proto3
// leaves them; the status always there, as the transform sets one).
func appendSpan(b []byte, s *spanData) []byte {
	tid, sid, pid := s.sc.TraceID(), s.sc.SpanID(), s.parent.SpanID()
	b = appendBytes(b, fieldTraceID, tid[:])
	b = appendBytes(b, fieldSpanID, sid[:])
	b = appendString(b, fieldTraceState, s.sc.TraceState().String())
	if pid.IsValid() {
		b = appendBytes(b, fieldParentSpanID, pid[:])
	}
	b = appendString(b, fieldName, s.name)
	b = appendVarint(b, fieldKind, uint64(spanKind(s.kind)))
	b = appendFixed64(b, fieldStart, unixNano(s.start))
	b = appendFixed64(b, fieldEnd, unixNano(s.end))
	var dropped uint64
	b, dropped = appendAttributes(b, s.attrs[:s.nattrs], s.more)
	b = appendVarint(b, fieldDropped, dropped)
	for _, l := range s.links {
		if l.SpanContext.IsValid() || len(l.Attributes) > 0 || l.SpanContext.TraceState().Len() > 0 { // as the SDK drops a link to nothing
			b = appendMessage(b, fieldLinks, newLink(l))
		}
	}
	b = protowire.AppendTag(b, fieldStatus, protowire.BytesType)
	at := len(b)
	switch s.status {
	case codes.Ok:
		b = appendVarint(b, fieldStatusCode, uint64(tracepb.Status_STATUS_CODE_OK))
	case codes.Error:
		b = appendString(b, fieldStatusMessage, s.message)
		b = appendVarint(b, fieldStatusCode, uint64(tracepb.Status_STATUS_CODE_ERROR))
	}
	b = insertLen(b, at)
	flags := spanFlags(s.sc.TraceFlags(), s.parent)
	return protowire.AppendFixed32(protowire.AppendTag(b, fieldFlags, protowire.Fixed32Type), flags)
}

// appendAttributes appends the span's attributes, inline then more, as
// the SDK keeps them: each key once, at its last value, in the order the
// keys were first set, and without invalid ones (an empty key), which
// it counts in dropped.
func appendAttributes(b []byte, inline, more []stringAttr) (_ []byte, dropped uint64) {
	if len(more) == 0 && distinctKeys(inline) { // a gateway span's: written as they are
		for _, a := range inline {
			b = appendAttribute(b, a.key, a.value)
		}
		return b, 0
	}
	n := len(inline) + len(more)
	at := func(i int) stringAttr {
		if i < len(inline) {
			return inline[i]
		}
		return more[i-len(inline)]
	}
next:
	for i := range n {
		a := at(i)
		if a.key == "" {
			dropped++
			continue
		}
		for j := range i {
			if at(j).key == a.key {
				continue next // set before: written there, with its last value
			}
		}
		value := a.value
		for j := i + 1; j < n; j++ {
			if o := at(j); o.key == a.key {
				value = o.value
			}
		}
		b = appendAttribute(b, a.key, value)
	}
	return b, dropped
}

// distinctKeys reports whether attrs' keys are all set and all
// different, looking at no two keys of which the length and ends differ.
func distinctKeys(attrs []stringAttr) bool {
	var seen uint64
	for i, a := range attrs {
		if a.key == "" {
			return false
		}
		bit := uint64(1) << ((len(a.key)*7 + int(a.key[0]) + int(a.key[len(a.key)-1])*3) & 63)
		if seen&bit != 0 && slices.ContainsFunc(attrs[:i], func(o stringAttr) bool { return o.key == a.key }) {
			return false
		}
		seen |= bit
	}
	return true
}

// appendAttribute appends one KeyValue of a string value.
func appendAttribute(b []byte, key, value string) []byte {
	key, value = validUTF8(key), validUTF8(value)
	anyLen := protowire.SizeTag(fieldStringValue) + protowire.SizeBytes(len(value))
	kvLen := protowire.SizeTag(fieldKey) + protowire.SizeBytes(len(key)) + protowire.SizeTag(fieldValue) + protowire.SizeBytes(anyLen)
	b = protowire.AppendVarint(protowire.AppendTag(b, fieldAttributes, protowire.BytesType), uint64(kvLen))
	b = protowire.AppendString(protowire.AppendTag(b, fieldKey, protowire.BytesType), key)
	b = protowire.AppendVarint(protowire.AppendTag(b, fieldValue, protowire.BytesType), uint64(anyLen))
	return protowire.AppendString(protowire.AppendTag(b, fieldStringValue, protowire.BytesType), value)
}

// insertLen makes b[at:], a message's fields just written, a
// length-delimited value: its length goes before it.
func insertLen(b []byte, at int) []byte {
	n := len(b) - at
	k := protowire.SizeVarint(uint64(n))
	var room [binary.MaxVarintLen64]byte
	b = append(b, room[:k]...)
	copy(b[at+k:], b[at:at+n])
	protowire.AppendVarint(b[:at], uint64(n))
	return b
}

// The fields of a span, left out when they hold their zero value, as
// proto3 leaves them out.

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

func appendString(b []byte, num protowire.Number, v string) []byte {
	if v == "" {
		return b
	}
	return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), validUTF8(v))
}

// validUTF8 is s with each run of bytes that is not UTF-8 replaced by
// U+FFFD. A protobuf string must be UTF-8, and a collector refuses a
// request that holds one that is not, with all its spans; a tool's name,
// a request id or an error's message comes from a client or a server,
// and JSON carries any bytes. (The SDK's exporter fails to marshal such
// a batch, and drops it.)
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func appendFixed64(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	return protowire.AppendFixed64(protowire.AppendTag(b, num, protowire.Fixed64Type), v)
}

// appendMessage appends m, marshalled by protobuf, as field num (a
// span's link: rare, a caller that sent two trace contexts); nothing,
// should protobuf refuse it.
func appendMessage(b []byte, num protowire.Number, m proto.Message) []byte {
	start := len(b)
	b = protowire.AppendTag(b, num, protowire.BytesType)
	at := len(b)
	b, err := proto.MarshalOptions{}.MarshalAppend(b, m)
	if err != nil {
		return b[:start]
	}
	return insertLen(b, at)
}

// newKeyValues is attrs as new messages (a resource's, a link's), as
// tracetransform's KeyValues makes them.
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

// newLink is l as a new message, as tracetransform's links makes it.
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
