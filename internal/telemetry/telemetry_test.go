package telemetry

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

func envOf(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestFromEnvSwitchesTracing(t *testing.T) {
	const ep = "http://127.0.0.1:1"
	for _, c := range []struct {
		env     map[string]string
		on      bool
		errText string
	}{
		{env: nil},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://user:hunter2@collector:4318/base"}, on: true},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ep + "/v1/traces"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": ep}},
		{env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": ep}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, errText: "OTEL_TRACES_EXPORTER=zipkin"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, errText: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_TRACES_SAMPLER": "xray"}, errText: "OTEL_TRACES_SAMPLER=xray"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"}, errText: "OTEL_TRACES_SAMPLER_ARG=2"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "127.0.0.1:4318"}, errText: "OTEL_EXPORTER_OTLP_ENDPOINT=127.0.0.1:4318: want the collector's URL"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "collector/v1/traces"}, errText: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=collector/v1/traces"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "ftp://u:hunter2@c:1"}, errText: "OTEL_EXPORTER_OTLP_ENDPOINT=…: want"},
	} {
		var log strings.Builder
		tr, err := FromEnv(envOf(c.env), "test", NewMetrics(), slog.New(slog.NewTextHandler(&log, nil)))
		if c.errText != "" {
			if err == nil || !strings.Contains(err.Error(), c.errText) || strings.Contains(err.Error(), "hunter2") {
				t.Errorf("%v: error %v, want one naming %s, and no password", c.env, err, c.errText)
			}
			continue
		}
		if said := strings.Contains(log.String(), "tracing on"); said != c.on || strings.Contains(log.String(), "hunter2") {
			t.Errorf("%v: the log says %q; want a line that tracing is on: %v, and no password", c.env, log.String(), c.on)
		}
		if err != nil || (tr != nil) != c.on {
			t.Errorf("%v: tracing %v (error %v), want on=%v", c.env, tr != nil, err, c.on)
		}
		if tr != nil {
			_ = tr.Shutdown(context.Background())
		}
	}
}

// InjectMeta replaces the caller's trace context and keeps every other
// byte: members in their order, numbers as written, fields it does not
// know.
func TestInjectMetaKeepsEveryOtherByte(t *testing.T) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled})
	ctx := context.Background()
	params := `{"name":"x","arguments":{"n":9007199254740993,"z":1,"a":[1.50]},"_meta":{"progressToken":7,"traceparent":"00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01","tracestate":"old=1","zz":{"keep":true}},"zzz":null}`
	got, err := InjectMeta(ctx, sc, []byte(params))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"x","arguments":{"n":9007199254740993,"z":1,"a":[1.50]},"_meta":{"progressToken":7,"traceparent":"00-01020300000000000000000000000000-0405060000000000-01","zz":{"keep":true}},"zzz":null}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Without a member to remove, not a byte moves but the three values.
	spaced := `{ "name": "x", "_meta": { "traceparent": "00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01", "n": 1e400 } }`
	wantSpaced := `{ "name": "x", "_meta": { "traceparent": "00-01020300000000000000000000000000-0405060000000000-01", "n": 1e400 } }`
	if got, _ := InjectMeta(ctx, sc, []byte(spaced)); string(got) != wantSpaced {
		t.Errorf("got %s, want %s", got, wantSpaced)
	}
	if got, err := InjectMeta(ctx, sc, []byte(`[1,2]`)); string(got) != `[1,2]` || err != nil {
		t.Errorf("params that are not an object became %s (%v): want them as they are, as without tracing", got, err)
	}
	if got, _ := InjectMeta(ctx, sc, []byte(`{"_meta":"odd"}`)); string(got) != `{"_meta":"odd"}` {
		t.Errorf("a _meta that is not an object changed: %s", got)
	}
	if got, _ := InjectMeta(ctx, sc, nil); string(got) != `{"_meta":{"traceparent":"00-01020300000000000000000000000000-0405060000000000-01"}}` {
		t.Errorf("absent params became %s", got)
	}
	// Params without a _meta (most clients') get one, with tracestate and
	// baggage when the context has them.
	ts, _ := trace.ParseTraceState("v=1")
	mb, _ := baggage.NewMemberRaw("k", "a\"b")
	bag, _ := baggage.New(mb)
	full := baggage.ContextWithBaggage(context.Background(), bag)
	if got, _ := InjectMeta(full, sc.WithTraceState(ts), []byte(` {"name":"x"} `)); string(got) != ` {"name":"x","_meta":{"traceparent":"00-01020300000000000000000000000000-0405060000000000-01","tracestate":"v=1","baggage":"k=a%22b"}}` {
		t.Errorf("params without _meta became %s", got)
	}
	if got, _ := InjectMeta(context.Background(), trace.SpanContext{}, []byte(params)); string(got) != params {
		t.Errorf("without a span context the params changed: %s", got)
	}
	if got, _ := InjectMeta(full, sc, []byte(`{"_meta":null,"a":1}`)); string(got) != `{"_meta":{"traceparent":"00-01020300000000000000000000000000-0405060000000000-01","baggage":"k=a%22b"},"a":1}` {
		t.Errorf("a null _meta became %s", got)
	}
	// The traceparent is the one the W3C propagator writes, whatever the
	// flags: sampled and random kept, the others not.
	for _, flags := range []trace.TraceFlags{0, trace.FlagsSampled, trace.FlagsRandom, 0xff} {
		sc := sc.WithTraceFlags(flags)
		var c metaCarrier
		propagator.Inject(trace.ContextWithSpanContext(context.Background(), sc), &c)
		got, _ := InjectMeta(ctx, sc, nil)
		if want := `{"_meta":{"traceparent":"` + c[traceparentAt] + `"}}`; string(got) != want || Traceparent(sc) != c[traceparentAt] {
			t.Errorf("flags %02x: %s and %s, want %s", byte(flags), got, Traceparent(sc), want)
		}
	}
	if back := ParseTraceparent(Traceparent(sc)); back.TraceID() != sc.TraceID() || back.SpanID() != sc.SpanID() {
		t.Errorf("Traceparent round trip: %v, want %v", back, sc)
	}
}

// The caller's trace context comes from params._meta (SEP-414), its keys
// read as JSON reads them (escapes too), else from the HTTP header; with
// both, the header's is the link; baggage comes with _meta's.
func TestRemoteReadsMetaThenHeader(t *testing.T) {
	const fromMeta, fromHeader = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "00-11111111111111111111111111111111-2222222222222222-01"
	header := http.Header{"Traceparent": {fromHeader}}
	for _, c := range []struct {
		name, params   string
		header         http.Header
		want, wantLink string
		bag            string
	}{
		{"meta", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","traceparent":"` + fromMeta + `","baggage":"k=v"}}`, nil, fromMeta, "", "k=v"},
		{"escaped key", `{"_meta":{"trace\u0070arent":"` + fromMeta + `"}}`, nil, fromMeta, "", ""},
		{"both", `{"_meta":{"traceparent":"` + fromMeta + `"}}`, header, fromMeta, fromHeader, ""},
		{"header", `{"name":"x"}`, header, fromHeader, "", ""},
		{"bad meta", `{"_meta":{"traceparent":"00-nothex"}}`, header, fromHeader, "", ""},
		{"none", `{"_meta":{"traceparent":7}}`, nil, "", "", ""},
	} {
		ctx, link := Remote(context.Background(), []byte(c.params), c.header)
		if got := Traceparent(trace.SpanContextFromContext(ctx)); got != c.want || Traceparent(link) != c.wantLink {
			t.Errorf("%s: traceparent %q, link %q; want %q and %q", c.name, got, Traceparent(link), c.want, c.wantLink)
		}
		if got := baggage.FromContext(ctx).String(); got != c.bag {
			t.Errorf("%s: baggage %q, want %q", c.name, got, c.bag)
		}
	}
}

// blockingClient takes nothing until release closes; failing fails
// every upload.
type blockingClient struct {
	discardClient
	release chan struct{}
	failing bool
}

func (c *blockingClient) UploadTraces(ctx context.Context, _ []*tracepb.ResourceSpans) error {
	if c.failing {
		return errors.New("collector down")
	}
	select {
	case <-c.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A collector that hangs or refuses costs the spans, never the caller:
// OnEnd never waits, and the spans lost are counted.
func TestSpanQueueDropsAndCounts(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, failing := range []bool{false, true} {
		m := NewMetrics()
		exp := &blockingClient{release: make(chan struct{}), failing: failing}
		tr := NewTracing(exp, sdktrace.AlwaysSample(), nil, "test", m, log, envOf(map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "4", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "2",
			"OTEL_BSP_SCHEDULE_DELAY": "10", "OTEL_BSP_EXPORT_TIMEOUT": "60000"}))
		go tr.Run()
		start := time.Now()
		endSpans(tr, 100)
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("failing=%v: 100 spans took %v to end", failing, took)
		}
		testwait.For(t, 0, "dropped spans counted", func() bool { return testutil.ToFloat64(m.spansDropped) >= 90 })
		close(exp.release)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := tr.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		cancel()
	}
}

// countingClient reports the spans of each batch it is sent on got.
type countingClient struct {
	discardClient
	got chan int
}

func (c *countingClient) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	read, err := asCollectorReads(rs)
	c.got <- len(spansOf(read))
	return err
}

// wantNoBatch fails if c has been sent a batch.
func (c *countingClient) wantNoBatch(t *testing.T) {
	t.Helper()
	select {
	case n := <-c.got:
		t.Fatalf("a batch of %d sent before it was full", n)
	default:
	}
}

// wantBatch waits for the next batch, 10 s at most, and fails unless it
// holds n spans.
func (c *countingClient) wantBatch(t *testing.T, n int) {
	t.Helper()
	select {
	case got := <-c.got:
		if got != n {
			t.Errorf("sent a batch of %d, want %d", got, n)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("a full batch of %d was not sent within 10 s", n)
	}
}

// endSpans starts and ends n spans of tr.
func endSpans(tr *Tracing, n int) {
	for range n {
		var sp Span
		tr.Tracer().Start(context.Background(), &sp, "s", trace.SpanKindInternal, time.Now())
		sp.End()
	}
}

// A full batch is exported when it has queued, not at the next tick (an
// hour away here), and the spans before it wait for it: the queue wakes
// its exporter once a batch, not once a span.
func TestSpanQueueExportsFullBatches(t *testing.T) {
	exp := &countingClient{got: make(chan int, 8)}
	tr := NewTracing(exp, sdktrace.AlwaysSample(), nil, "test", NewMetrics(), slog.New(slog.NewTextHandler(io.Discard, nil)),
		envOf(map[string]string{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "3", "OTEL_BSP_SCHEDULE_DELAY": "3600000"}))
	done := make(chan struct{})
	go func() { defer close(done); tr.Run() }()
	endSpans(tr, 2)
	exp.wantNoBatch(t)
	endSpans(tr, 1)
	exp.wantBatch(t, 3)
	endSpans(tr, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	if n := <-exp.got; n != 1 {
		t.Errorf("shutdown exported %d spans, want the 1 queued", n)
	}
}

// Spans leave the queue each time wakeEvery have queued, written into
// the batch (their data back in the free list), and the batch goes when it is
// full: what waits is written bytes, not Spans.
func TestSpanQueueWritesSpansBeforeTheBatchIsFull(t *testing.T) {
	exp := &countingClient{got: make(chan int, 8)}
	tr := NewTracing(exp, sdktrace.AlwaysSample(), nil, "test", NewMetrics(), slog.New(slog.DiscardHandler),
		envOf(map[string]string{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "100", "OTEL_BSP_SCHEDULE_DELAY": "3600000"}))
	go tr.Run()
	defer tr.Shutdown(context.Background())
	queued := func() int {
		tr.queue.mu.Lock()
		defer tr.queue.mu.Unlock()
		return len(tr.queue.queued)
	}
	endSpans(tr, wakeEvery)
	testwait.For(t, 0, "the queue emptied into the batch", func() bool { return queued() == 0 })
	exp.wantNoBatch(t)
	endSpans(tr, 100-wakeEvery)
	exp.wantBatch(t, 100)
}

// BenchmarkInjectMeta is the _meta rewrite of each traced request to a
// server: a modern client's _meta with a traceparent to replace, and
// params without a _meta (most clients' tools/call).
//
//	go test ./internal/telemetry -run '^$' -bench InjectMeta -benchmem
func BenchmarkInjectMeta(b *testing.B) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled})
	ctx := context.Background()
	for _, c := range []struct{ name, params string }{
		{"replace", `{"name":"echo","arguments":{"message":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","progressToken":1}}`},
		{"add", `{"name":"echo","arguments":{"message":"hello"}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			params := []byte(c.params)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := InjectMeta(ctx, sc, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The sampler is the one OTEL_TRACES_SAMPLER names, read from the
// gateway's getenv, with its ratio.
func TestSamplerFromEnv(t *testing.T) {
	for _, c := range []struct {
		name, arg, want string
	}{
		{"", "", "ParentBased{root:AlwaysOnSampler"},
		{"always_off", "", "AlwaysOffSampler"},
		{"ALWAYS_ON", "", "AlwaysOnSampler"},
		{"traceidratio", "0.25", "TraceIDRatioBased{0.25}"},
		{"parentbased_traceidratio", "", "ParentBased{root:TraceIDRatioBased{1}"},
		{"parentbased_always_off", "", "ParentBased{root:AlwaysOffSampler"},
		{"traceidratio", "x", "error: OTEL_TRACES_SAMPLER_ARG=x"},
		{"traceidratio", "NaN", "error: OTEL_TRACES_SAMPLER_ARG=NaN"},
		{"jaeger_remote", "", "error: OTEL_TRACES_SAMPLER=jaeger_remote"},
	} {
		s, err := samplerFromEnv(envOf(map[string]string{"OTEL_TRACES_SAMPLER": c.name, "OTEL_TRACES_SAMPLER_ARG": c.arg}))
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = s.Description()
		}
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %s: %s, want %s…", c.name, c.arg, got, c.want)
		}
	}
}

// BenchmarkCallSpans is what a traced call costs the call's own path:
// the caller's context read, the server span started, a client span
// started and written into the server's _meta, both given their
// attributes and ended (queued; the export goroutine makes them OTLP's
// messages, and drops them here).
//
//	go test ./internal/telemetry -run '^$' -bench CallSpans -benchmem
func BenchmarkCallSpans(b *testing.B) {
	tr := NewTracing(discardClient{}, sdktrace.ParentBased(sdktrace.AlwaysSample()), nil, "bench", NewMetrics(), slog.New(slog.DiscardHandler), nil)
	go tr.Run()
	b.Cleanup(func() { _ = tr.Shutdown(context.Background()) })
	params := []byte(`{"name":"echo","arguments":{"message":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}`)
	b.ReportAllocs()
	for b.Loop() {
		remote, _ := Remote(context.Background(), params, nil)
		var server, client Span
		tr.Tracer().Start(remote, &server, "tools/call echo", trace.SpanKindServer, time.Now())
		ctx := Carry(context.Background(), server.SpanContext(), remote)
		tr.Tracer().Start(ctx, &client, "tools/call echo", trace.SpanKindClient, time.Now())
		for _, kv := range [][2]string{{"mcp.method.name", "tools/call"}, {"jsonrpc.request.id", "7"}, {"network.transport", "pipe"},
			{"mcp_gateway.server", "echo"}, {"gen_ai.tool.name", "echo"}} {
			client.SetString(kv[0], kv[1])
		}
		if _, err := InjectMeta(ctx, client.SpanContext(), params); err != nil {
			b.Fatal(err)
		}
		client.End()
		for _, kv := range [][2]string{{"mcp.method.name", "tools/call"}, {"network.transport", "tcp"}, {"network.protocol.name", "http"},
			{"jsonrpc.request.id", "7"}, {"mcp.session.id", "0123456789abcdef"}, {"gen_ai.tool.name", "echo"}, {"gen_ai.operation.name", "execute_tool"},
			{"mcp_gateway.server", "echo"}, {"mcp_gateway.outcome", "ok"}} {
			server.SetString(kv[0], kv[1])
		}
		server.End()
	}
}

// Spans queued before the export goroutine ever ran are exported by
// Shutdown, not lost; a schedule delay too long for a Duration is the
// default, not a panic in the ticker.
func TestSpanQueueShutdownWithoutRun(t *testing.T) {
	exp := &countingClient{got: make(chan int, 8)}
	tr := NewTracing(exp, sdktrace.AlwaysSample(), nil, "test", NewMetrics(), slog.New(slog.DiscardHandler),
		envOf(map[string]string{"OTEL_BSP_SCHEDULE_DELAY": "9999999999999", "OTEL_BSP_EXPORT_TIMEOUT": "9999999999999"}))
	if tr.queue.every != batchDelay || tr.queue.timeout != exportTimeout {
		t.Errorf("overflowing delays became %v and %v, want the defaults", tr.queue.every, tr.queue.timeout)
	}
	endSpans(tr, 1)
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-exp.got:
		if n != 1 {
			t.Errorf("shutdown exported %d spans, want 1", n)
		}
	default:
		t.Error("the span queued before run began was not exported")
	}
	tr.Run() // returns at once: shut down already
}
