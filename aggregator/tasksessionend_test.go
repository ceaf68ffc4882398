package aggregator

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// A legacy session's end, by DELETE or by idle expiry, cancels its relayed
// tasks on their server (tasks/cancel with the server's own id) and drops
// them: nobody can reach them through the gateway any more (issue 14).
func TestRelayedTasksCancelledAtSessionEnd(t *testing.T) {
	for _, how := range []string{"DELETE", "idle"} {
		t.Run(how, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "rec")
			var o HTTPOptions // DELETE: the default idle timeout, minutes
			if how == "idle" {
				o.SessionTimeout = 500 * time.Millisecond
			}
			srv, gw := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": mktask, "MCP_FAKE_RECORD_FILE": rec}}, o)
			c := newClient(t, srv)
			createTask(t, c, 2, "mktask", `{"ms":60000}`, "60000")
			if how == "DELETE" {
				if resp, b := send(t, "DELETE", c.url, "", sessionHeaders(c)); resp.StatusCode != 200 && resp.StatusCode != 204 {
					t.Fatalf("DELETE: %d %s", resp.StatusCode, b)
				}
			}
			want := `tasks/cancel {"taskId":"1"}`
			waitRecord(t, rec, want) // 10 s after the session ended
			if n, _ := gw.h.tasks.Usage(); n != 0 {
				t.Errorf("%d tasks kept after their session ended", n)
			}
		})
	}
}

// A task whose session has already ended as it starts is dropped at once,
// and the hook that drops it does not race with startTask setting
// t.unbind (go test -race; the hook runs on its own goroutine at once).
func TestTaskStartedAfterItsSessionEnded(t *testing.T) {
	_, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}})
	h := gw.h
	for range 50 {
		ended, end := context.WithCancel(context.Background())
		end()
		tk := tasks.NewLegacy("session:gone", time.Minute)
		c, err := gw.router.Tool([]byte(`{"name":"sleep","arguments":{"ms":30000}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.runner.StartTask(tk, c, ended, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case <-tk.Done:
		case <-time.After(10 * time.Second):
			t.Fatal("the task of an ended session still runs 10 s later")
		}
	}
	testwait.For(t, 10*time.Second, "the tasks of ended sessions to be dropped", func() bool {
		n, _ := h.tasks.Usage()
		return n == 0
	})
}
