package aggregator

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// A modern caller that declares the tasks extension is served as any
// caller until its call becomes a task (found by an adversarial review):
//   - a retry with a requestState is an MRTR round, checked as such: a
//     forged one is -32602, not a new call;
//   - a quick call's result is answered, even while other tasks fill the
//     room for kept results;
//   - a quick call's progress travels on its response, and Accept is
//     honoured (SSE only: SSE).
func TestModernTaskCallerServedInline(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"big","inputSchema":{"type":"object"}},{"name":"progress","inputSchema":{"type":"object"}},{"name":"sleep","inputSchema":{"type":"object"}}]`}},
		HTTPOptions{Tasks: TaskLimits{ResultBytes: 1 << 20}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}

	t.Run("forged requestState", func(t *testing.T) {
		msg := c.call(1, "echo", `"arguments":{"text":"x"},"requestState":"garbage.AAAA","inputResponses":{},`)
		var r struct {
			Error *struct{ Code int } `json:"error"`
		}
		if json.Unmarshal(msg, &r) != nil || r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("a retry with a forged requestState: %s, want -32602", msg)
		}
	})

	t.Run("kept-results room full", func(t *testing.T) {
		// A finished task holds 900 KiB of the 1 MiB room.
		created := decodeTask(t, c.call(2, "big", `"arguments":{"ms":600,"bytes":921600},`))
		if created.ResultType != "task" {
			t.Fatalf("a slow call: %+v", created)
		}
		pollModern(t, u, created.TaskID, "completed")
		// A quick 512 KiB call does not fit the room, and needs none.
		msg := c.call(3, "big", `"arguments":{"bytes":524288},`)
		if !strings.Contains(string(msg), `"resultType":"complete"`) || strings.Contains(string(msg), "do not fit") {
			t.Errorf("a quick call beside a full room: %.300s", msg)
		}
	})

	t.Run("progress and Accept", func(t *testing.T) {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"n":2,"ms":10},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`, tasksCaps)
		hdr := modernHeaders("tools/call", "progress")
		hdr["Accept"] = "text/event-stream"
		resp, b := send(t, http.MethodPost, u, body, hdr)
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
			t.Fatalf("Accept: text/event-stream answered as %q: %s", ct, b)
		}
		if n := strings.Count(string(b), `"method":"notifications/progress"`); n != 2 || !strings.Contains(string(b), `"done"`) {
			t.Errorf("want 2 progress notifications, then the result; got %d in %s", n, b)
		}
	})
}

// A modern gateway-made task whose call outlasts the TTL the gateway gave
// it is not cut: its TTL grows by the default, up to the maximum, and the
// result arrives (found by an adversarial review: 5 min killed longer calls).
func TestModernTaskTTLGrowsWhileItsCallRuns(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}},
		HTTPOptions{Tasks: TaskLimits{DefaultTTL: time.Second, MinTTL: 100 * time.Millisecond, MaxTTL: 4 * time.Second}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	created := decodeTask(t, c.call(1, "sleep", `"arguments":{"ms":2500},`))
	if created.ResultType != "task" || created.TTL == nil || *created.TTL != 1000 {
		t.Fatalf("a slow call: %+v", created)
	}
	done := pollModern(t, u, created.TaskID, "completed")
	if done.TTL == nil || *done.TTL < 3000 || !strings.Contains(string(done.Result), "slept") {
		t.Errorf("after a 2.5 s call with a 1 s TTL: %+v, want completed with ttlMs ≥ 3000", done)
	}
}
