package aggregator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A modern server's own task, relayed: the creator's subscriptions/listen
// that names the gateway's task id gets notifications/tasks with the
// server's tasks/get answer under the gateway's id, when the task ends
// (the gateway polls the server); a stream that did not name it gets
// nothing, and one opened after the end gets the end at once.
func TestModernRelayedTaskNotifications(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_RECORD_FILE": rec,
		"MCP_FAKE_TOOLS": `[{"name":"mktask","inputSchema":{"type":"object"}}]`}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	tk := decodeTask(t, c.call(1, "mktask", `"arguments":{"ms":700},`))
	if tk.TaskID == "1" || len(tk.TaskID) != 22 {
		t.Fatalf("the caller got task id %q, want the gateway's", tk.TaskID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	listen := func(id, taskIDs string) <-chan string {
		body := `{"jsonrpc":"2.0","id":"` + id + `","method":"subscriptions/listen","params":{"notifications":{"taskIds":` + taskIDs +
			`},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + tasksCaps + `}}}`
		s := openStream(t, ctx, "POST", u, body, modernHeaders("subscriptions/listen", ""))
		next(t, s, "acknowledgement of "+id)
		return s
	}
	mine, other := listen("sub", `["`+tk.TaskID+`"]`), listen("other", `["1"]`)
	want := `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"},"taskId":"` + tk.TaskID +
		`","status":"completed","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":100}}`
	if diff := cmp.Diff(want, next(t, mine, "notifications/tasks")); diff != "" {
		t.Errorf("the creator's stream (-want +got):\n%s", diff)
	}
	select {
	case ev := <-other:
		t.Errorf("a stream that did not name the task got %s", ev)
	case <-time.After(200 * time.Millisecond): // nothing was queued for it
	}
	late := listen("late", `["`+tk.TaskID+`"]`)
	if ev := next(t, late, "notifications/tasks of an ended task"); ev != strings.Replace(want, `"sub"`, `"late"`, 1) {
		t.Errorf("late subscription: %s", ev)
	}
	if b, _ := os.ReadFile(rec); !strings.Contains(string(b), `tasks/get {"taskId":"1"`) {
		t.Errorf("the server's record lacks the gateway's tasks/get of its task 1: %s", b)
	}
}
