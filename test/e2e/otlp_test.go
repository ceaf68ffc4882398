package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace receiver (POST /v1/traces, the
// official protobuf types of go.opentelemetry.io/proto/otlp): what a
// collector would get from the gateway.
type otlpReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []*tracepb.Span
}

func startReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	rc := &otlpReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				rc.got = append(rc.got, ss.Spans...)
			}
		}
		rc.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// env is the gateway's environment for exporting to the receiver, with
// the export delay short enough for a test.
func (rc *otlpReceiver) env() []string {
	return []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + rc.srv.URL, "OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "OTEL_BSP_SCHEDULE_DELAY=100"}
}

// spans waits up to 15 s for the spans of trace that satisfy done, and
// returns the trace's spans.
func (rc *otlpReceiver) spans(t *testing.T, trace string, what string, done func([]*tracepb.Span) bool) []*tracepb.Span {
	t.Helper()
	var in []*tracepb.Span
	if !testwait.Until(15*time.Second, func() bool {
		in = nil
		rc.mu.Lock()
		for _, s := range rc.got {
			if hex.EncodeToString(s.TraceId) == trace {
				in = append(in, s)
			}
		}
		rc.mu.Unlock()
		return done(in)
	}) {
		t.Fatalf("trace %s: no %s within 15 s; its spans:\n%s", trace, what, describe(in))
	}
	return in
}

func describe(spans []*tracepb.Span) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "  %s %q span=%x parent=%x links=%d attrs=%v\n", s.Kind, s.Name, s.SpanId, s.ParentSpanId, len(s.Links), s.Attributes)
	}
	return b.String()
}

// named returns the spans of kind whose name is name.
func named(spans []*tracepb.Span, kind tracepb.Span_SpanKind, name string) []*tracepb.Span {
	var out []*tracepb.Span
	for _, s := range spans {
		if s.Kind == kind && s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func hasNamed(kind tracepb.Span_SpanKind, name string, n int) func([]*tracepb.Span) bool {
	return func(s []*tracepb.Span) bool { return len(named(s, kind, name)) >= n }
}

func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.Value.GetStringValue()
		}
	}
	return ""
}

// newTraceparent is a caller's W3C traceparent: its trace id and span id.
func newTraceparent() (tp, trace, span string) {
	var b [24]byte
	_, _ = rand.Read(b[:])
	trace, span = hex.EncodeToString(b[:16]), hex.EncodeToString(b[16:])
	return "00-" + trace + "-" + span + "-01", trace, span
}

// tapped is a runCmd that runs command with every line the gateway writes
// to its stdin also appended to file (tee): what the server received,
// byte for byte.
func tapped(file, command string) string {
	return fmt.Sprintf("tee -a %s | exec %s", file, command)
}

// received returns the params._meta of each request of method the server
// received, raw, in order.
func received(t *testing.T, file, method string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read what the server received: %v", err)
	}
	var out []json.RawMessage
	for _, line := range bytes.Split(b, []byte("\n")) {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Meta json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) == nil && m.Method == method {
			out = append(out, m.Params.Meta)
		}
	}
	return out
}

// metaTraceparent reads a _meta's traceparent.
func metaTraceparent(meta json.RawMessage) (tp, tracestate, baggage string) {
	var m struct {
		TP string `json:"traceparent"`
		TS string `json:"tracestate"`
		B  string `json:"baggage"`
	}
	_ = json.Unmarshal(meta, &m)
	return m.TP, m.TS, m.B
}
