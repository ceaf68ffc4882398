package telemetry

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/google/go-cmp/cmp"
)

// discardClient is an OTLP client that sends nothing anywhere.
type discardClient struct{}

func (discardClient) Start(context.Context) error                                  { return nil }
func (discardClient) Stop(context.Context) error                                   { return nil }
func (discardClient) UploadTraces(context.Context, []*tracepb.ResourceSpans) error { return nil }

// memoryClient keeps every batch it is sent as a collector reads it:
// marshalled, and unmarshalled into new messages (the queue uses its
// buffer again, and its spans are the scope's unknown fields until they
// are read).
type memoryClient struct {
	discardClient
	mu  sync.Mutex
	got []*tracepb.ResourceSpans
}

func (c *memoryClient) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	read, err := asCollectorReads(rs)
	c.got = append(c.got, read...)
	return err
}

// asCollectorReads is rs marshalled, as the client sends it, and read
// back into new messages, as a collector reads it.
func asCollectorReads(rs []*tracepb.ResourceSpans) ([]*tracepb.ResourceSpans, error) {
	var out []*tracepb.ResourceSpans
	for _, r := range rs {
		b, err := proto.Marshal(r)
		if err != nil {
			return out, err
		}
		read := &tracepb.ResourceSpans{}
		if err := proto.Unmarshal(b, read); err != nil {
			return out, err
		}
		out = append(out, read)
	}
	return out, nil
}

// spans are the spans sent so far, by span id.
func (c *memoryClient) spans() map[trace.SpanID]*tracepb.Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[trace.SpanID]*tracepb.Span{}
	for _, s := range spansOf(c.got) {
		out[trace.SpanID(s.SpanId)] = s
	}
	return out
}

func spansOf(rs []*tracepb.ResourceSpans) []*tracepb.Span {
	var out []*tracepb.Span
	for _, r := range rs {
		for _, ss := range r.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}

// runTracing is tracing at version v1 that sends through client, its
// export goroutine running until the test ends.
func runTracing(t *testing.T, client otlptrace.Client, sampler sdktrace.Sampler, res *resource.Resource) *Tracing {
	tr := NewTracing(client, sampler, res, "v1", NewMetrics(), slog.New(slog.DiscardHandler), nil)
	go tr.Run()
	t.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	return tr
}

// sdkIDs is the SDK's IDGenerator, giving the next span the ids one of
// the gateway's spans was given.
type sdkIDs struct{ next trace.SpanContext }

func (g *sdkIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	return g.next.TraceID(), g.next.SpanID()
}
func (g *sdkIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return g.next.SpanID() }

// spanCase is a span a test starts, as the gateway's and as the SDK's:
// its parent, name, kind, links, and what is done to it before End.
type spanCase struct {
	name   string
	parent trace.SpanContext // remote; invalid: a root
	kind   trace.SpanKind
	links  []trace.Link
	do     func(spanLike)
}

// spanLike is what the gateway's Span and the SDK's (sdkSpan) have in
// common.
type spanLike interface {
	SetName(string)
	SetString(key, value string)
	SetStatus(codes.Code, string)
}

// sdkSpan is the SDK's span, with the gateway's SetString.
type sdkSpan struct{ trace.Span }

func (s sdkSpan) SetString(key, value string) { s.SetAttributes(attribute.String(key, value)) }

// What the gateway sends a collector is what the SDK and its OTLP
// exporter would have sent for the same span: each span of the gateway's
// is done again through an SDK TracerProvider, given the same ids,
// times, parent, links and calls, whose OTLP exporter sends to another
// client; the two messages, resource and scope must be equal. The cases
// hold the SDK's rules: a repeated key's last value, an invalid
// attribute dropped and counted, a link to nothing dropped, a status
// never lowered and Ok final, a parent's trace state, and the flags of a
// remote parent and of a root.
func TestExportIsWhatTheSDKSends(t *testing.T) {
	ts, _ := trace.ParseTraceState("vendor=1,other=x")
	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true})
	link := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{3}, SpanID: trace.SpanID{4}, TraceFlags: trace.FlagsSampled, Remote: true})
	cases := []spanCase{
		{name: "tools/call", parent: remote, kind: trace.SpanKindServer, links: []trace.Link{{SpanContext: link}}, do: func(s spanLike) {
			s.SetName("tools/call echo")
			for _, kv := range [][2]string{{"mcp.method.name", "tools/call"}, {"k", "first"}, {"n", "7"}, {"k", "last"}, {"u", "\u00e9\x00"}} {
				s.SetString(kv[0], kv[1])
			}
			s.SetStatus(codes.Error, "boom")
			s.SetStatus(codes.Unset, "")
		}},
		{name: "root", kind: trace.SpanKindClient, links: []trace.Link{{}, {SpanContext: link, Attributes: []attribute.KeyValue{attribute.String("l", "v")}}}, do: func(s spanLike) {
			s.SetString("", "no key")
			s.SetString("k", "v")
			s.SetString("empty", "")
			s.SetStatus(codes.Ok, "ignored")
			s.SetStatus(codes.Error, "too late")
		}},
		{name: "plain", parent: remote, kind: trace.SpanKindInternal, do: func(spanLike) {}},
		{name: "odd links", parent: remote, kind: trace.SpanKind(0), // no kind: internal, as the SDK's tracer has it
			links: []trace.Link{{Attributes: []attribute.KeyValue{attribute.String("l", "v")}}, {SpanContext: trace.SpanContext{}.WithTraceState(ts)}},
			do:    func(spanLike) {}},
		{name: "distinct", parent: remote, kind: trace.SpanKindServer, do: func(s spanLike) { // a1b and a2b look alike to distinctKeys
			for _, kv := range [][2]string{{"mcp.method.name", "tools/call"}, {"a1b", "1"}, {"a2b", "2"}, {"network.transport", "tcp"}} {
				s.SetString(kv[0], kv[1])
			}
		}},
		{name: "many", kind: trace.SpanKindServer, do: func(s spanLike) { // past the attributes a Span holds in place
			for i := range inlineAttrs + 3 {
				s.SetString(fmt.Sprintf("k%d", i%(inlineAttrs+1)), fmt.Sprint(i))
			}
		}},
	}
	res := resource.NewSchemaless(attribute.String("service.name", "gw"), attribute.Int("n", 1))
	ours := &memoryClient{}
	tr := runTracing(t, ours, sdktrace.AlwaysSample(), res)
	began := time.Now().Add(-time.Second)
	ids := make([]trace.SpanContext, len(cases))
	for i, c := range cases {
		ctx := trace.ContextWithRemoteSpanContext(context.Background(), c.parent)
		var sp Span
		tr.Tracer().Start(ctx, &sp, c.name, c.kind, began, c.links...)
		c.do(&sp)
		sp.End()
		ids[i] = sp.SpanContext()
	}
	if err := tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	sent := ours.spans()

	theirs := &memoryClient{}
	gen := &sdkIDs{}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(otlptrace.NewUnstarted(theirs)), sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(gen), sdktrace.WithSampler(sdktrace.AlwaysSample()))
	defer tp.Shutdown(context.Background())
	sdk := tp.Tracer(ScopeName, trace.WithInstrumentationVersion("v1"))
	for i, c := range cases {
		got := sent[ids[i].SpanID()]
		if got == nil {
			t.Fatalf("%s: not sent", c.name)
		}
		gen.next = ids[i]
		ctx := trace.ContextWithRemoteSpanContext(context.Background(), c.parent)
		_, sp := sdk.Start(ctx, c.name, trace.WithSpanKind(c.kind), trace.WithTimestamp(began), trace.WithLinks(c.links...))
		c.do(sdkSpan{sp})
		sp.End(trace.WithTimestamp(time.Unix(0, int64(got.EndTimeUnixNano))))
		want := theirs.spans()[ids[i].SpanID()]
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("%s: the gateway's span against the SDK's (-sdk +gateway):\n%s", c.name, diff)
		}
	}
	if got := sent[ids[1].SpanID()]; got.DroppedAttributesCount != 1 || len(got.Attributes) != 2 || len(got.Links) != 1 || got.Status.GetCode() != tracepb.Status_STATUS_CODE_OK {
		t.Errorf("root span: attributes %v (%d dropped), links %v, status %v; want k and an empty value, 1 dropped, 1 link, Ok",
			got.Attributes, got.DroppedAttributesCount, got.Links, got.Status)
	}
	strip := func(rs *tracepb.ResourceSpans) *tracepb.ResourceSpans {
		rs = proto.Clone(rs).(*tracepb.ResourceSpans)
		for _, ss := range rs.ScopeSpans {
			ss.Spans = nil
		}
		return rs
	}
	if diff := cmp.Diff(strip(theirs.got[0]), strip(ours.got[0]), protocmp.Transform()); diff != "" {
		t.Errorf("resource and scope (-sdk +gateway):\n%s", diff)
	}
}

// A span keeps at most 256 bytes of its status message, cut where a rune
// starts; one started with no time starts now, as the SDK's does.
func TestSpanCutsStatusAndDatesAnUndatedStart(t *testing.T) {
	mc := &memoryClient{}
	tr := runTracing(t, mc, sdktrace.AlwaysSample(), nil)
	before := time.Now()
	var sp Span
	tr.Tracer().Start(context.Background(), &sp, "long", trace.SpanKindClient, time.Time{})
	sp.SetStatus(codes.Error, strings.Repeat("é", 1000))
	sp.End()
	if err := tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := spansOf(mc.got)[0]
	msg := got.Status.GetMessage()
	if len(msg) > 256+len("…") || !strings.HasSuffix(msg, "é…") || !utf8.ValidString(msg) {
		t.Errorf("status message of %d bytes: %q", len(msg), msg)
	}
	if start := time.Unix(0, int64(got.StartTimeUnixNano)); start.Before(before.Add(-time.Second)) {
		t.Errorf("a span started with no time is dated %v", start)
	}
}

// A name, attribute or status message that is not UTF-8 (a client's
// request id, a server's error: JSON carries any bytes) reaches the
// collector with U+FFFD in its place, and does not cost the batch: a
// collector refuses a request with a protobuf string that is not UTF-8.
func TestSpanNotUTF8ReachesTheCollector(t *testing.T) {
	mc := &memoryClient{}
	tr := runTracing(t, mc, sdktrace.AlwaysSample(), nil)
	var bad, good Span
	tr.Tracer().Start(context.Background(), &bad, "tools/call \xff\xfe", trace.SpanKindServer, time.Now())
	bad.SetString("jsonrpc.request.id", "a\xc0b")
	bad.SetString("k\x80", "v")
	bad.SetStatus(codes.Error, "boom \xe2\x28")
	bad.End()
	tr.Tracer().Start(context.Background(), &good, "ok", trace.SpanKindServer, time.Now())
	good.End()
	if err := tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	mc.mu.Lock()
	defer mc.mu.Unlock()
	sent := spansOf(mc.got)
	if len(sent) != 2 {
		t.Fatalf("the collector read %d spans, want both", len(sent))
	}
	s := sent[0]
	if s.Name != "tools/call \uFFFD" || s.Attributes[0].GetValue().GetStringValue() != "a\uFFFDb" || s.Attributes[1].Key != "k\uFFFD" || s.Status.GetMessage() != "boom \uFFFD(" {
		t.Errorf("the span that was not UTF-8 became %v", s)
	}
}

// What the call's path decided is what is sent: the ids Start gave (and
// put in the returned context) in the caller's trace, sampled; a span
// the sampler drops is never sent but still carries an unsampled
// context; a span ended twice is sent once, and changes after End are
// let be. The zero Span takes every method.
func TestTracerSendsWhatStartDecided(t *testing.T) {
	mc := &memoryClient{}
	sampler, err := samplerFromEnv(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	tr := runTracing(t, mc, sampler, nil)

	remote := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled, Remote: true})
	var server, client, dropped, zero Span
	tr.Tracer().Start(trace.ContextWithRemoteSpanContext(context.Background(), remote), &server, "tools/call", trace.SpanKindServer, time.Now())
	ctx := Carry(context.Background(), server.SpanContext(), nil)
	if got := trace.SpanContextFromContext(ctx); !got.Equal(server.SpanContext()) || got.TraceID() != remote.TraceID() || !got.IsSampled() {
		t.Fatalf("context %v, span %v: want one span context in remote's trace, sampled", got, server.SpanContext())
	}
	tr.Tracer().Start(ctx, &client, "tools/call echo", trace.SpanKindClient, time.Now())
	client.End()
	server.End()
	server.End() // a second End is let be
	server.SetString("late", "x")

	unsampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{5}, SpanID: trace.SpanID{6}, Remote: true})
	tr.Tracer().Start(trace.ContextWithRemoteSpanContext(context.Background(), unsampled), &dropped, "dropped", trace.SpanKindServer, time.Now())
	if dsc := dropped.SpanContext(); dropped.Recording() || dsc.IsSampled() || !dsc.IsValid() || dsc.TraceID() != unsampled.TraceID() {
		t.Errorf("under an unsampled parent: recording %v, context %v; want an unsampled, valid context in its trace and nothing recorded", dropped.Recording(), dsc)
	}
	dropped.End()
	zero.SetName("x")
	zero.SetString("x", "y")
	zero.SetStatus(codes.Error, "x")
	zero.End()

	if err := tr.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	sent := spansOf(mc.got)
	if len(sent) != 2 {
		t.Fatalf("sent %d spans, want the client and server spans", len(sent))
	}
	c, s := sent[0], sent[1]
	if trace.SpanID(s.SpanId) != server.SpanContext().SpanID() || trace.SpanID(s.ParentSpanId) != remote.SpanID() || len(s.Attributes) != 0 {
		t.Errorf("server span sent as %v", s)
	}
	if trace.SpanID(c.SpanId) != client.SpanContext().SpanID() || trace.SpanID(c.ParentSpanId) != server.SpanContext().SpanID() || trace.TraceID(c.TraceId) != remote.TraceID() {
		t.Errorf("client span sent as %v, want the server span's child", c)
	}
}

// Batch after batch, the messages are used again: a span costs the
// export no allocation once the batches have reached their size (a
// dozen attributes and more, past those a Span holds in place).
func TestOTLPBatchAllocatesNothingOnceGrown(t *testing.T) {
	b := newOTLPBatch(resource.Default(), instrumentation.Scope{Name: ScopeName, Version: "v1"})
	spans := make([]spanData, 64)
	for i := range spans {
		s := &spans[i]
		s.sc = trace.NewSpanContext(trace.SpanContextConfig{TraceID: newTraceID(), SpanID: newSpanID(), TraceFlags: trace.FlagsSampled})
		s.name, s.start, s.end = "tools/call echo", time.Now(), time.Now()
		sp := Span{d: s}
		for k := range inlineAttrs + 2 {
			sp.SetString(string(rune('a'+k)), "value")
		}
	}
	fill := func() {
		for i := range spans {
			b.add(&spans[i])
		}
		b.request()
		b.reset()
	}
	fill()
	if n := testing.AllocsPerRun(10, fill); n != 0 {
		t.Errorf("a batch of %d spans allocated %v times, want 0", len(spans), n)
	}
}

// BenchmarkOTLPBatch is what the export goroutine does with a full batch
// of a call's spans: write them (fill), and marshal the request as the
// OTLP/HTTP client does; per span.
//
//	go test ./internal/telemetry -run '^$' -bench OTLPBatch -benchmem
func BenchmarkOTLPBatch(b *testing.B) {
	batch := newOTLPBatch(resource.Default(), instrumentation.Scope{Name: ScopeName, Version: "v1"})
	spans := make([]spanData, batchSize)
	for i := range spans {
		s := &spans[i]
		s.name, s.kind, s.start, s.end = "tools/call echo", trace.SpanKindServer, time.Now(), time.Now()
		s.sc = trace.NewSpanContext(trace.SpanContextConfig{TraceID: newTraceID(), SpanID: newSpanID(), TraceFlags: trace.FlagsSampled})
		sp := Span{d: s}
		for _, kv := range [][2]string{{"mcp.method.name", "tools/call"}, {"network.transport", "tcp"}, {"network.protocol.name", "http"},
			{"jsonrpc.request.id", "7"}, {"mcp.session.id", "0123456789abcdef"}, {"gen_ai.tool.name", "echo"}, {"gen_ai.operation.name", "execute_tool"},
			{"mcp_gateway.server", "echo"}, {"mcp_gateway.outcome", "ok"}} {
			sp.SetString(kv[0], kv[1])
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range spans {
			batch.add(&spans[i])
		}
		if _, err := proto.Marshal(batch.request()[0]); err != nil {
			b.Fatal(err)
		}
		batch.reset()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(spans)), "ns/span")
}

// traceService is an OTLP collector's trace service, over gRPC or HTTP:
// it reads each request into the OTLP types and reports its spans.
type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	got chan []*tracepb.Span
}

func (s *traceService) Export(_ context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	s.got <- spansOf(req.ResourceSpans)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

func (s *traceService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := &coltracepb.ExportTraceServiceRequest{}
	if err := proto.Unmarshal(body, req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	_, _ = s.Export(r.Context(), req)
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// Over either protocol of OTLP, the spans the batch writes reach a
// collector as spans, read by its own protobuf code: the OTLP exporter's
// clients marshal the batch's unknown fields as they are.
func TestCollectorReadsTheSpansOverGRPCAndHTTP(t *testing.T) {
	svc := &traceService{got: make(chan []*tracepb.Span, 4)}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	coltracepb.RegisterTraceServiceServer(gs, svc)
	go gs.Serve(lis)
	defer gs.Stop()
	hs := httptest.NewServer(svc)
	defer hs.Close()
	for _, c := range []struct{ protocol, endpoint string }{{"grpc", "http://" + lis.Addr().String()}, {"http/protobuf", hs.URL}} {
		t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", c.protocol)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.endpoint)
		tr, err := FromEnv(os.Getenv, "v1", NewMetrics(), slog.New(slog.DiscardHandler))
		if err != nil || tr == nil {
			t.Fatalf("%s: tracing %v, %v", c.protocol, tr, err)
		}
		go tr.Run()
		var sp Span
		tr.Tracer().Start(context.Background(), &sp, "tools/call echo", trace.SpanKindServer, time.Now())
		sp.SetString("mcp.method.name", "tools/call")
		sp.End()
		if err := tr.ForceFlush(context.Background()); err != nil {
			t.Fatalf("%s: flush: %v", c.protocol, err)
		}
		select {
		case got := <-svc.got:
			if len(got) != 1 || trace.SpanID(got[0].SpanId) != sp.SpanContext().SpanID() || got[0].Name != "tools/call echo" ||
				len(got[0].Attributes) != 1 || got[0].Attributes[0].GetValue().GetStringValue() != "tools/call" {
				t.Errorf("%s: the collector read %v", c.protocol, got)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: nothing reached the collector within 10 s", c.protocol)
		}
		if err := tr.Shutdown(context.Background()); err != nil {
			t.Errorf("%s: shutdown: %v", c.protocol, err)
		}
	}
}
