package e2e

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// TestTracesCrossTheGateway (SPEC §11.3, issue 24): the TypeScript SDK v2
// client sends a W3C trace context in _meta (SEP-414) or as the HTTP
// traceparent header; the gateway exports over OTLP/HTTP to a receiver
// here, decoded with the official protobuf types. The gateway's server
// span continues the caller's trace with the caller's span as parent; its
// client span is the server span's child; and the server (a real fixture
// behind tee, which records what it received) gets a traceparent with the
// same trace id and the client span's id, tracestate and baggage with it.
// An MRTR round's retries and a task's polls are in the trace of the call
// that began them. With tracing off, the server gets the client's _meta
// byte for byte.
func TestTracesCrossTheGateway(t *testing.T) {
	needNPM(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	modernFixture := "node " + filepath.Join(root, "test", "fixtures", "modern-server.mjs")
	legacyFixture := buildLegacyFixture(t, t.TempDir())
	const state, bag = "vendor=opaque", "userId=alice"
	traced := func(t *testing.T, server, command string) (*gateway, *otlpReceiver, string) {
		rc := startReceiver(t)
		dir := t.TempDir()
		tap := filepath.Join(dir, "received")
		g := launchEnv(t, dir, fmt.Sprintf(`{%q: {"runCmd": %q}}`, server, tapped(tap, command)), rc.env()...)
		return g, rc, tap
	}

	for _, era := range []struct{ name, server, command, mode string }{
		{"legacy-server", "legacy", legacyFixture, "legacy"},
		{"modern-server", "modern", modernFixture, "modern"},
	} {
		t.Run(era.name+"/meta", func(t *testing.T) {
			g, rc, tap := traced(t, era.server, era.command)
			tp, trace, caller := newTraceparent()
			runTSClient(t, node, g, "--mode", era.mode, "--call", "test_simple_text", "--traceparent", tp, "--tracestate", state, "--baggage", bag)
			spans := rc.spans(t, trace, "server and client span", crossed("tools/call test_simple_text"))
			client := crossing(t, spans, caller, "tools/call test_simple_text")
			metas := received(t, tap, "tools/call")
			if len(metas) != 1 {
				t.Fatalf("the server received %d tools/call, want 1", len(metas))
			}
			gotTP, gotState, gotBag := metaTraceparent(metas[0])
			if want := "00-" + trace + "-" + hex.EncodeToString(client.SpanId) + "-01"; gotTP != want || gotState != state || gotBag != bag {
				t.Errorf("the server received _meta %s; want traceparent %s (the client span's), tracestate %q, baggage %q", metas[0], want, state, bag)
			}
			if log, _ := os.ReadFile(filepath.Join(g.dir, "gateway.log")); !strings.Contains(string(log), "name=test_simple_text era="+era.mode) ||
				!strings.Contains(string(log), "trace_id="+trace) {
				t.Errorf("no call line with trace_id=%s in the log:\n%s", trace, log)
			}
		})
	}

	t.Run("modern-server/header", func(t *testing.T) {
		g, rc, tap := traced(t, "modern", modernFixture)
		tp, trace, caller := newTraceparent()
		runTSClient(t, node, g, "--mode", "modern", "--call", "test_simple_text", "--trace-header", tp)
		spans := rc.spans(t, trace, "server and client span", crossed("tools/call test_simple_text"))
		client := crossing(t, spans, caller, "tools/call test_simple_text")
		gotTP, _, _ := metaTraceparent(received(t, tap, "tools/call")[0])
		if want := "00-" + trace + "-" + hex.EncodeToString(client.SpanId) + "-01"; gotTP != want {
			t.Errorf("the server received traceparent %q, want %s", gotTP, want)
		}
	})

	// A legacy server asks during a modern client's call: the call parks,
	// the SDK retries with inputResponses; both requests' server spans are
	// in the caller's trace, and the one upstream call is the first's child.
	t.Run("mrtr-parked", func(t *testing.T) {
		g, rc, tap := traced(t, "legacy", legacyFixture)
		tp, trace, caller := newTraceparent()
		lines := runTSClient(t, node, g, "--mode", "modern", "--call", "test_input_required_result_elicitation", "--traceparent", tp)
		if !strings.Contains(fmt.Sprint(lines), "elicitation") {
			t.Fatalf("the client was not asked: %v", lines)
		}
		name := "tools/call test_input_required_result_elicitation"
		spans := rc.spans(t, trace, "two server spans", hasNamed(tracepb.Span_SPAN_KIND_SERVER, name, 2))
		first := crossing(t, spans, caller, name)
		if n := len(named(spans, tracepb.Span_SPAN_KIND_CLIENT, name)); n != 1 {
			t.Errorf("%d client spans, want 1 (the parked call is one upstream request):\n%s", n, describe(spans))
		}
		gotTP, _, _ := metaTraceparent(received(t, tap, "tools/call")[0])
		if want := "00-" + trace + "-" + hex.EncodeToString(first.SpanId) + "-01"; gotTP != want {
			t.Errorf("the server received traceparent %q, want %s", gotTP, want)
		}
	})

	// A modern server's own InputRequiredResult: each retry reaches the
	// server, in the caller's trace.
	t.Run("mrtr-modern-server", func(t *testing.T) {
		g, rc, tap := traced(t, "modern", modernFixture)
		tp, trace, _ := newTraceparent()
		runTSClient(t, node, g, "--mode", "modern", "--call", "test_input_required_result_elicitation", "--traceparent", tp)
		name := "tools/call test_input_required_result_elicitation"
		spans := rc.spans(t, trace, "two client spans", hasNamed(tracepb.Span_SPAN_KIND_CLIENT, name, 2))
		for i, meta := range received(t, tap, "tools/call") {
			if gotTP, _, _ := metaTraceparent(meta); !strings.HasPrefix(gotTP, "00-"+trace+"-") {
				t.Errorf("request %d reached the server with traceparent %q, not in trace %s:\n%s", i, gotTP, trace, describe(spans))
			}
		}
	})

	// A task and its polls: tasks/get and tasks/result carry no trace
	// context from the client, yet join the trace of the call that made
	// the task, and are relayed to the server in it.
	t.Run("task", func(t *testing.T) {
		g, rc, tap := traced(t, "legacy", legacyFixture)
		tp, trace, caller := newTraceparent()
		runTSClient(t, node, g, "--mode", "legacy", "--task", "slow_compute", "--args", `{"seconds":1}`, "--traceparent", tp)
		spans := rc.spans(t, trace, "tasks/result's spans", crossed("tasks/result"))
		crossing(t, spans, caller, "tools/call slow_compute")
		if len(named(spans, tracepb.Span_SPAN_KIND_SERVER, "tasks/get")) == 0 {
			t.Errorf("no tasks/get server span in the call's trace:\n%s", describe(spans))
		}
		for _, m := range []string{"tasks/get", "tasks/result"} {
			for i, meta := range received(t, tap, m) {
				if gotTP, _, _ := metaTraceparent(meta); !strings.HasPrefix(gotTP, "00-"+trace+"-") {
					t.Errorf("%s %d reached the server with traceparent %q, not in trace %s", m, i, gotTP, trace)
				}
			}
		}
	})

	t.Run("off", func(t *testing.T) {
		dir := t.TempDir()
		tap := filepath.Join(dir, "received")
		g := launch(t, dir, fmt.Sprintf(`{"legacy": {"runCmd": %q}}`, tapped(tap, legacyFixture)))
		tp, _, _ := newTraceparent()
		runTSClient(t, node, g, "--mode", "legacy", "--call", "test_simple_text", "--traceparent", tp, "--tracestate", state, "--baggage", bag)
		want := fmt.Sprintf(`"_meta":{"traceparent":%q,"tracestate":%q,"baggage":%q}`, tp, state, bag)
		b, _ := os.ReadFile(tap)
		if !strings.Contains(string(b), want) {
			t.Errorf("with tracing off the server did not receive the client's _meta as sent (%s):\n%s", want, b)
		}
	})
}

// crossed is a wait for a call's server span and client span: a batch
// may hold one and not the other.
func crossed(name string) func([]*tracepb.Span) bool {
	return func(s []*tracepb.Span) bool {
		return hasNamed(tracepb.Span_SPAN_KIND_SERVER, name, 1)(s) && hasNamed(tracepb.Span_SPAN_KIND_CLIENT, name, 1)(s)
	}
}

// crossing checks one call's crossing in spans: the gateway's server span
// named name, whose parent is the caller's span (caller, hex), and its one
// client span, of the same name, its child. It returns the client span.
func crossing(t *testing.T, spans []*tracepb.Span, caller, name string) *tracepb.Span {
	t.Helper()
	servers := named(spans, tracepb.Span_SPAN_KIND_SERVER, name)
	if len(servers) == 0 {
		t.Fatalf("no server span %q:\n%s", name, describe(spans))
	}
	server := servers[0]
	if got := hex.EncodeToString(server.ParentSpanId); got != caller {
		t.Errorf("server span %q has parent %s, want the caller's span %s", name, got, caller)
	}
	if attr(server, "mcp.method.name") != strings.Fields(name)[0] || attr(server, "gen_ai.tool.name") == "" && strings.HasPrefix(name, "tools/call") {
		t.Errorf("server span %q attributes %v, want mcp.method.name and gen_ai.tool.name", name, server.Attributes)
	}
	var client *tracepb.Span
	for _, s := range named(spans, tracepb.Span_SPAN_KIND_CLIENT, name) {
		if string(s.ParentSpanId) == string(server.SpanId) {
			client = s
		}
	}
	if client == nil {
		t.Fatalf("no client span %q child of the server span %x:\n%s", name, server.SpanId, describe(spans))
	}
	return client
}
