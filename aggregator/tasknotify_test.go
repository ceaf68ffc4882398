package aggregator

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Task status notifications reach the task's creator only (SPEC §4.7).

// openStream posts or gets with headers and returns the SSE events.
func openStream(t *testing.T, ctx context.Context, method, url, body string, hdr map[string]string) <-chan string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream, application/json")
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s %s: %v %v", method, body, resp, err)
	}
	return events(t, resp)
}

// A legacy session's GET stream gets notifications/tasks/status when its
// gateway-made task ends; another session's does not.
func TestLegacyTaskStatusNotification(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, b := newClient(t, srv), newClient(t, srv)
	getA := openStream(t, ctx, "GET", a.url, "", map[string]string{"Mcp-Session-Id": a.session, "Mcp-Protocol-Version": "2025-06-18"})
	getB := openStream(t, ctx, "GET", b.url, "", map[string]string{"Mcp-Session-Id": b.session, "Mcp-Protocol-Version": "2025-06-18"})
	tk := createTask(t, a, 2, "sleep", `{"ms":100}`, "60000")
	ev := next(t, getA, "notifications/tasks/status")
	if !strings.HasPrefix(ev, `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"`+tk.TaskID+`","status":"completed",`) {
		t.Errorf("session a's GET stream: %s", ev)
	}
	select {
	case ev := <-getB:
		t.Errorf("another session's GET stream got %s", ev)
	case <-time.After(200 * time.Millisecond): // nothing else was queued for b
	}
}

// A modern caller's subscriptions/listen with notifications.taskIds is
// acknowledged with the ids it owns, and gets notifications/tasks, tagged,
// with the DetailedTask when the task ends.
func TestModernTaskNotifications(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	tk := decodeTask(t, c.call(1, "sleep", `"arguments":{"ms":1500},`))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + tasksCaps + `}`
	stream := openStream(t, ctx, "POST", u, `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"taskIds":["`+tk.TaskID+`","someone-elses"]},`+meta+`}}`,
		modernHeaders("subscriptions/listen", ""))
	want := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"},"notifications":{"taskIds":["` + tk.TaskID + `"]}}}`
	if ack := next(t, stream, "acknowledgement"); ack != want {
		t.Errorf("ack %s, want %s", ack, want)
	}
	ev := next(t, stream, "notifications/tasks")
	if !strings.HasPrefix(ev, `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"},"taskId":"`+tk.TaskID+`","status":"completed"`) ||
		!strings.HasSuffix(ev, `"result":{"content":[{"type":"text","text":"slept"}]}}}`) {
		t.Errorf("notifications/tasks: %s", ev)
	}
	// A subscription that starts after the task ended gets its state at once.
	late := openStream(t, ctx, "POST", u, `{"jsonrpc":"2.0","id":"late","method":"subscriptions/listen","params":{"notifications":{"taskIds":["`+tk.TaskID+`"]},`+meta+`}}`,
		modernHeaders("subscriptions/listen", ""))
	next(t, late, "acknowledgement")
	if ev := next(t, late, "notifications/tasks of an ended task"); !strings.Contains(ev, `/subscriptionId":"late"},"taskId":"`+tk.TaskID+`","status":"completed"`) {
		t.Errorf("late subscription: %s", ev)
	}
	resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":"x","method":"subscriptions/listen","params":{"notifications":{"taskIds":["`+tk.TaskID+`"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		modernHeaders("subscriptions/listen", ""))
	wantCode(t, "taskIds without the extension", message(t, resp, b), "-32021")
	if resp.StatusCode != 400 { // MCP 2026-07-28: MissingRequiredClientCapability is 400 on HTTP
		t.Errorf("taskIds without the extension: HTTP %d, want 400", resp.StatusCode)
	}
	body := `{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"` + tk.TaskID + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if resp, b := send(t, "POST", u, body, modernHeaders("tasks/get", tk.TaskID)); resp.StatusCode != 400 {
		t.Errorf("tasks/get without the extension: HTTP %d %s, want 400", resp.StatusCode, b)
	}
}

// A server's own notifications/tasks/status reaches the session that
// created the task, with the gateway's task id; no other session.
func TestRelayedTaskStatusNotification(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": mktask}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, b := newClient(t, srv), newClient(t, srv)
	getA := openStream(t, ctx, "GET", a.url, "", map[string]string{"Mcp-Session-Id": a.session, "Mcp-Protocol-Version": "2025-06-18"})
	getB := openStream(t, ctx, "GET", b.url, "", map[string]string{"Mcp-Session-Id": b.session, "Mcp-Protocol-Version": "2025-06-18"})
	// 1 s: the notification must come after the gateway registered the task.
	tk := createTask(t, a, 2, "mktask", `{"ms":1000}`, "60000")
	want := `{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"` + tk.TaskID + `","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":100}}`
	if ev := next(t, getA, "notifications/tasks/status"); ev != want {
		t.Errorf("session a's GET stream: %s\nwant %s", ev, want)
	}
	select {
	case ev := <-getB:
		t.Errorf("another session's GET stream got %s", ev)
	case <-time.After(200 * time.Millisecond): // nothing else was queued for b
	}
}
