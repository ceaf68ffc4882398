package aggregator

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
)

// BenchmarkHandlerCallTelemetry is BenchmarkHandlerCall's legacy call
// with what the daemon tells of it (SPEC §11): nothing; the call line and
// the metrics (the daemon's default); and those with tracing on, spans
// started and queued (made into OTLP's messages, and dropped, on another
// goroutine, whose cost is not this one's).
//
//	go test ./aggregator -run '^$' -bench HandlerCallTelemetry -benchmem -count 5
func BenchmarkHandlerCallTelemetry(b *testing.B) {
	tracing := telemetry.NewTracing(discardClient{}, sdktrace.AlwaysSample(), nil, "bench", telemetry.NewMetrics(), slog.New(slog.DiscardHandler), nil)
	go tracing.Run()
	b.Cleanup(func() { _ = tracing.Shutdown(context.Background()) })
	for _, c := range []struct {
		name string
		tel  Telemetry
	}{
		{"none", Telemetry{}},
		{"log+metrics", Telemetry{Metrics: telemetry.NewMetrics(), CallLog: testCallLog}},
		{"log+metrics+tracing", Telemetry{Metrics: telemetry.NewMetrics(), CallLog: testCallLog, Tracer: tracing.Tracer()}},
	} {
		b.Run(c.name, func(b *testing.B) {
			srv, _ := startGatewayOpts(b, map[string]map[string]string{"s": {}}, HTTPOptions{Telemetry: c.tel})
			h := srv.Config.Handler
			sid := benchSession(b, srv.URL+"/mcp")
			body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"},"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
				r.Header.Set("Authorization", "Bearer "+testToken)
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				r.Header.Set("Mcp-Session-Id", sid)
				r.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("tools/call: %d %s", w.Code, w.Body.Bytes())
				}
			}
		})
	}
	_ = os.Stderr
}

// discardClient is an OTLP client that sends nothing anywhere.
type discardClient struct{}

func (discardClient) Start(context.Context) error                                  { return nil }
func (discardClient) Stop(context.Context) error                                   { return nil }
func (discardClient) UploadTraces(context.Context, []*tracepb.ResourceSpans) error { return nil }
