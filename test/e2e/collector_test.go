package e2e

import (
	"bytes"
	"fmt"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCollectorDownOrHangingCostsCallsNothing (SPEC §11.3): with tracing
// on and the collector refusing connections, or accepting them and never
// answering, calls are answered as usual, /metrics counts the spans that
// could not be exported, and the daemon still stops promptly. Bounds are
// in seconds, to prove that nothing waits on the collector; what tracing
// costs a call is measured in bench/.
func TestCollectorDownOrHangingCostsCallsNothing(t *testing.T) {
	fixture := buildLegacyFixture(t, t.TempDir())
	down := func(t *testing.T) string { return "http://127.0.0.1:" + strconv.Itoa(freePort(t)) }
	hanging := func(t *testing.T) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() { <-stop; c.Close() }() // read nothing, answer nothing
			}
		}()
		t.Cleanup(func() { close(stop); ln.Close() })
		return "http://" + ln.Addr().String()
	}
	for name, collector := range map[string]func(*testing.T) string{"down": down, "hanging": hanging} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			g := launchEnv(t, dir, fmt.Sprintf(`{"legacy": {"runCmd": "exec %s"}}`, fixture),
				"OTEL_EXPORTER_OTLP_ENDPOINT="+collector(t), "OTEL_BSP_SCHEDULE_DELAY=50", "OTEL_BSP_EXPORT_TIMEOUT=300")
			s := newSession(t, g)
			start := time.Now()
			const calls = 200
			for i := range calls {
				tp, _, _ := newTraceparent()
				res := s.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"test_simple_text","arguments":{},"_meta":{"traceparent":%q}}}`, i+10, tp))
				if !strings.Contains(res, `"result"`) {
					t.Fatalf("call %d: %s", i, res)
				}
			}
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("%d calls took %v with the collector %s", calls, took, name)
			}
			dropped := regexp.MustCompile(`(?m)^mcp_gateway_trace_spans_dropped_total (\S+)$`)
			if !testwait.Until(15*time.Second, func() bool {
				m := dropped.FindStringSubmatch(s.get("/metrics"))
				n := 0.0
				if m != nil {
					n, _ = strconv.ParseFloat(m[1], 64)
				}
				return n > 0
			}) {
				t.Fatalf("mcp_gateway_trace_spans_dropped_total still 0 15 s after %d traced calls to a collector %s", calls, name)
			}
			_ = syscall.Kill(g.pid, syscall.SIGTERM)
			testwait.For(t, 10*time.Second, "the daemon to end after SIGTERM with the collector "+name, func() bool {
				return syscall.Kill(g.pid, 0) != nil || zombie(g.pid)
			})
		})
	}
}

// session is a legacy MCP session over raw HTTP.
type session struct {
	t       *testing.T
	g       *gateway
	id      string
	version string
}

func newSession(t *testing.T, g *gateway) *session {
	s := &session{t: t, g: g}
	s.rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`)
	if s.id == "" {
		t.Fatal("initialize gave no Mcp-Session-Id")
	}
	s.version = "2025-11-25"
	return s
}

// rpc posts one request and returns the response body (JSON, or the
// data lines of an SSE stream).
func (s *session) rpc(body string) string {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.g.url, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+s.g.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", s.version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		s.id = id
	}
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// get GETs path on the gateway's port with the token.
func (s *session) get(path string) string {
	s.t.Helper()
	req, _ := http.NewRequest("GET", strings.TrimSuffix(s.g.url, "/mcp")+path, nil)
	req.Header.Set("Authorization", "Bearer "+s.g.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// zombie reports whether pid has exited and waits to be reaped (PID 1 on
// these sandboxes does not reap orphans, NOTES.md).
func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command, which is in parentheses.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] == 'Z'
	}
	return false
}
