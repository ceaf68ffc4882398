package telemetry

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

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
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": ep + "/v1/traces"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": ep}},
		{env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": ep}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, on: true},
		{env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, errText: "OTEL_TRACES_EXPORTER=zipkin"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": ep, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, errText: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json"},
	} {
		tr, err := FromEnv(envOf(c.env), "test", NewMetrics(), slog.New(slog.NewTextHandler(io.Discard, nil)))
		if c.errText != "" {
			if err == nil || !strings.Contains(err.Error(), c.errText) {
				t.Errorf("%v: error %v, want one naming %s", c.env, err, c.errText)
			}
			continue
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
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	params := `{"name":"x","arguments":{"n":9007199254740993,"z":1,"a":[1.50]},"_meta":{"progressToken":7,"traceparent":"00-ffffffffffffffffffffffffffffffff-ffffffffffffffff-01","tracestate":"old=1","zz":{"keep":true}},"zzz":null}`
	got, err := InjectMeta(ctx, []byte(params))
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
	if got, _ := InjectMeta(ctx, []byte(spaced)); string(got) != wantSpaced {
		t.Errorf("got %s, want %s", got, wantSpaced)
	}
	if got, _ := InjectMeta(ctx, []byte(`{"_meta":"odd"}`)); string(got) != `{"_meta":"odd"}` {
		t.Errorf("a _meta that is not an object changed: %s", got)
	}
	if got, _ := InjectMeta(ctx, nil); string(got) != `{"_meta":{"traceparent":"00-01020300000000000000000000000000-0405060000000000-01"}}` {
		t.Errorf("absent params became %s", got)
	}
	if got, _ := InjectMeta(context.Background(), []byte(params)); string(got) != params {
		t.Errorf("without a span context the params changed: %s", got)
	}
	if back := ParseTraceparent(Traceparent(sc)); back.TraceID() != sc.TraceID() || back.SpanID() != sc.SpanID() {
		t.Errorf("Traceparent round trip: %v, want %v", back, sc)
	}
}

// blockingExporter takes nothing until release closes; failing fails
// every export.
type blockingExporter struct {
	release chan struct{}
	failing bool
}

func (e *blockingExporter) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	if e.failing {
		return errors.New("collector down")
	}
	select {
	case <-e.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *blockingExporter) Shutdown(context.Context) error { return nil }

// A collector that hangs or refuses costs the spans, never the caller:
// OnEnd never waits, and the spans lost are counted.
func TestSpanQueueDropsAndCounts(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, failing := range []bool{false, true} {
		m := NewMetrics()
		exp := &blockingExporter{release: make(chan struct{}), failing: failing}
		q := newSpanQueue(exp, m, log, envOf(map[string]string{"OTEL_BSP_MAX_QUEUE_SIZE": "4", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "2",
			"OTEL_BSP_SCHEDULE_DELAY": "10", "OTEL_BSP_EXPORT_TIMEOUT": "60000"}))
		p := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(q))
		go q.run()
		start := time.Now()
		for range 100 {
			_, sp := p.Tracer("t").Start(context.Background(), "s")
			sp.End()
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("failing=%v: 100 spans took %v to end", failing, took)
		}
		testwait.For(t, 0, "dropped spans counted", func() bool { return testutil.ToFloat64(m.spansDropped) >= 90 })
		close(exp.release)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := p.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		cancel()
	}
}

// countingExporter reports each batch it is given on got.
type countingExporter struct{ got chan int }

func (e *countingExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.got <- len(spans)
	return nil
}

func (e *countingExporter) Shutdown(context.Context) error { return nil }

// A full batch is exported when it has queued, not at the next tick (an
// hour away here), and the spans before it wait for it: the queue wakes
// its exporter once a batch, not once a span.
func TestSpanQueueExportsFullBatches(t *testing.T) {
	exp := &countingExporter{got: make(chan int, 8)}
	q := newSpanQueue(exp, NewMetrics(), slog.New(slog.NewTextHandler(io.Discard, nil)),
		envOf(map[string]string{"OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "3", "OTEL_BSP_SCHEDULE_DELAY": "3600000"}))
	p := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(q))
	done := make(chan struct{})
	go func() { defer close(done); q.run() }()
	end := func() {
		_, sp := p.Tracer("t").Start(context.Background(), "s")
		sp.End()
	}
	end()
	end()
	select {
	case n := <-exp.got:
		t.Fatalf("a batch of %d exported before the batch was full", n)
	default:
	}
	end()
	select {
	case n := <-exp.got:
		if n != 3 {
			t.Errorf("exported a batch of %d, want 3", n)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a full batch was not exported within 10 s")
	}
	end()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	if n := <-exp.got; n != 1 {
		t.Errorf("shutdown exported %d spans, want the 1 queued", n)
	}
}

// BenchmarkInjectMeta is the _meta rewrite of each traced request to a
// server: a modern client's _meta with a traceparent to replace.
//
//	go test ./internal/telemetry -run '^$' -bench InjectMeta -benchmem
func BenchmarkInjectMeta(b *testing.B) {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1, 2, 3}, SpanID: trace.SpanID{4, 5, 6}, TraceFlags: trace.FlagsSampled})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	params := []byte(`{"name":"echo","arguments":{"message":"hello"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","progressToken":1}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := InjectMeta(ctx, params); err != nil {
			b.Fatal(err)
		}
	}
}

// A span ended within a request waits for the request's Flush and keeps
// the time it ended; one that ends after the Flush ends at once, and so
// does one without a Later.
func TestEndLater(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tr := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)).Tracer("t")
	var later Later
	ctx := later.Within(context.Background())
	ctx = Carry(context.Background(), ctx) // as a call's context gets it
	_, held := tr.Start(ctx, "held")
	EndLater(ctx, held)
	ended := time.Now()
	if n := len(rec.Ended()); n != 0 {
		t.Fatalf("%d spans ended before the flush", n)
	}
	_, alone := tr.Start(context.Background(), "alone")
	EndLater(context.Background(), alone)
	if n := len(rec.Ended()); n != 1 {
		t.Fatalf("a span without a Later: %d spans ended, want 1", n)
	}
	later.Flush()
	got := rec.Ended()
	if len(got) != 2 || got[1].Name() != "held" || got[1].EndTime().After(ended) {
		t.Fatalf("after the flush: %d spans, the held one ended %v (EndLater returned %v)", len(got), got[len(got)-1].EndTime(), ended)
	}
	_, late := tr.Start(ctx, "late")
	EndLater(ctx, late)
	if n := len(rec.Ended()); n != 3 {
		t.Errorf("a span ending after the flush: %d spans ended, want 3", n)
	}
}
