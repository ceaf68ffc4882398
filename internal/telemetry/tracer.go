package telemetry

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Tracer starts the gateway's spans (SPEC §11.3) in two halves, so that
// a call pays for the little it must know at once, and the rest is done
// away from it:
//
//   - on the call's path, Start decides the span with the sampler the
//     environment names (sdktrace.Sampler.ShouldSample, as the SDK's own
//     tracer asks it) and gives it its ids, since its context goes to the
//     server in _meta before the call is answered; the span's name, times,
//     attributes and status are kept in its spanData, and End queues it;
//   - on the export goroutine (spanQueue.run), each queued span is
//     written in OTLP's protobuf (otlpBatch), and the OTLP exporter's
//     client sends them in batches.
//
// What is exported is what the SDK's own span would have been, as its
// OTLP exporter would have sent it: the same ids, parent, times,
// attributes, links, status, resource and scope, by the SDK's rules (a
// status never lowered, invalid attributes and links dropped, a repeated
// key's last value), but for its limits of 128 attributes and links,
// which a gateway span is far under, and the attributes a sampler may
// add, which the environment's samplers do not. The SDK's span was
// measured at +28 to +53 µs of p50 per traced call on the call's path
// (issue 24: its start, attributes, end and snapshot, and the collection
// they leave to the GC), against a budget of +15 µs.
//
// A nil *Tracer is tracing off: nothing is started.
type Tracer struct {
	sampler sdktrace.Sampler
	queue   *spanQueue
}

// Span is one span of a call as its caller holds it: decided, with its
// ids, when it started; its name, attributes and status set until End.
// The zero Span, and one the sampler dropped, record nothing; every
// method takes them. A Span is its goroutine's, as the request that
// holds it is, and lives where it does (in a call's record, with a
// pending call); what it records while it does (spanData) comes from
// its queue's free list, and goes back there once written for export,
// so that a traced call's spans allocate nothing of their own once the
// list has grown. It must not be copied: a copy would end what the
// other has ended, and by then another span may hold it.
type Span struct {
	_  noCopy
	sc trace.SpanContext
	d  *spanData  // nil: records nothing (not sampled, or ended)
	q  *spanQueue // where End queues d
}

// noCopy makes go vet's copylocks check report a Span copied.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

// Start starts *s, named name, of kind, dated start, as a child of ctx's
// span context (a root when ctx has none), linking links. Its context
// (SpanContext) is what a call made for it carries (Carry) and what
// InjectMeta writes. The sampler decides it as the SDK would: a span it
// drops has ids and a context (its traceparent says "not sampled") but
// records nothing.
func (t *Tracer) Start(ctx context.Context, s *Span, name string, kind trace.SpanKind, start time.Time, links ...trace.Link) {
	kind = trace.ValidateSpanKind(kind) // as the SDK's tracer: unknown is internal
	if start.IsZero() {
		start = time.Now()
	}
	parent := trace.SpanContextFromContext(ctx)
	tid := parent.TraceID()
	if !tid.IsValid() {
		tid = newTraceID()
	}
	decided := t.sampler.ShouldSample(sdktrace.SamplingParameters{ParentContext: ctx, TraceID: tid, Name: name, Kind: kind, Links: links})
	flags := parent.TraceFlags() &^ trace.FlagsSampled
	if decided.Decision == sdktrace.RecordAndSample {
		flags |= trace.FlagsSampled
	}
	s.sc = trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: newSpanID(), TraceFlags: flags, TraceState: decided.Tracestate})
	s.d = nil
	if s.sc.IsSampled() { // a span recorded but not sampled is not exported: it is not kept either
		d := t.queue.newData()
		d.parent, d.name, d.kind, d.start, d.links = parent, name, kind, start, links
		s.d, s.q = d, t.queue
	}
}

// SpanContext is the span's context.
func (s *Span) SpanContext() trace.SpanContext { return s.sc }

// Recording reports whether the span is kept (sampled, and not ended):
// there is no need to work out attributes for one that is not.
func (s *Span) Recording() bool { return s.d != nil }

// SetName renames the span.
func (s *Span) SetName(name string) {
	if s.d != nil {
		s.d.name = name
	}
}

// SetString adds the attribute key=value; a key set again keeps its last
// value, as the SDK keeps it, when the span is exported (otlpBatch).
func (s *Span) SetString(key, value string) {
	switch d := s.d; {
	case d == nil:
	case d.nattrs < inlineAttrs:
		d.attrs[d.nattrs] = stringAttr{key, value}
		d.nattrs++
	default:
		d.more = append(d.more, stringAttr{key, value})
	}
}

// SetStatus sets the span's status as the SDK does: never lowered
// (Unset < Error < Ok, so Ok is final), and a description only with
// codes.Error, of at most maxStatusMessage bytes (a server's error
// message can be as long as it likes).
func (s *Span) SetStatus(code codes.Code, message string) {
	d := s.d
	if d == nil || d.status > code {
		return
	}
	d.status, d.message = code, ""
	if code == codes.Error {
		d.message = cutMessage(message)
	}
}

// maxStatusMessage is the longest status description a span keeps.
const maxStatusMessage = 256

// cutMessage is message cut to maxStatusMessage bytes, at a rune's
// start, with "…" after it.
func cutMessage(message string) string {
	if len(message) <= maxStatusMessage {
		return message
	}
	n := maxStatusMessage
	for n > 0 && !utf8.RuneStart(message[n]) {
		n--
	}
	return message[:n] + "…"
}

// End ends the span now and queues it for export (spanQueue.add: never
// waiting but for the queue's mutex); a span ended again, or one not
// recording, is let be.
func (s *Span) End() {
	d := s.d
	if d == nil {
		return
	}
	s.d = nil
	d.sc, d.end = s.sc, d.start.Add(time.Since(d.start)) // on the monotonic clock, as the SDK ends a span
	s.q.add(d)
}

// newTraceID and newSpanID are random, non-zero ids (the W3C Trace
// Context's, as the SDK's own generator makes them), from math/rand/v2's
// per-thread ChaCha8: no lock on the call's path.
func newTraceID() (id trace.TraceID) {
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:8], rand.Uint64())
		binary.NativeEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func newSpanID() (id trace.SpanID) {
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}
