package aggregator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Tests of servers' own tasks relayed by task id (SPEC §4.7, issue 14).

const mktask = `[{"name":"mktask","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},{"name":"crash","inputSchema":{"type":"object"}}]`

// Two servers both number their first task "1": the client gets two
// gateway ids, and each task method reaches the server that owns the task
// with that server's own id.
func TestRelayedTaskCollision(t *testing.T) {
	dir := t.TempDir()
	recA, recB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	srv, _ := startGateway(t, map[string]map[string]string{
		"a": {"MCP_FAKE_TOOLS": mktask, "MCP_FAKE_NAME": "a", "MCP_FAKE_RECORD_FILE": recA},
		"b": {"MCP_FAKE_TOOLS": mktask, "MCP_FAKE_NAME": "b", "MCP_FAKE_RECORD_FILE": recB}, // b_mktask
	})
	c := newClient(t, srv)
	var ids [2]string
	for i, tool := range []string{"mktask", "b_mktask"} {
		msg := c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"ms":200},"task":{"ttl":60000}}}`, i+2, tool))
		var r struct {
			Task taskView `json:"task"`
		}
		res := result(t, msg)
		_ = json.Unmarshal(res, &r)
		ids[i] = r.Task.TaskID
		// As the server sent it, but for the task id.
		want := `{"task":{"taskId":"` + ids[i] + `","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":100},"_meta":{"fake":"kept"}}`
		if diff := cmp.Diff(want, string(res)); diff != "" || len(ids[i]) != 22 {
			t.Errorf("CreateTaskResult of %s (-want +got):\n%s", tool, diff)
		}
	}
	if ids[0] == ids[1] {
		t.Fatalf("both tasks got id %s", ids[0])
	}
	for i, name := range []string{"a", "b"} {
		res := string(result(t, taskCall(c, 10+i, "tasks/result", ids[i])))
		want := `{"content":[{"type":"text","text":"task 1 done from ` + name + `"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + ids[i] + `"}}}`
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("tasks/result of %s's task (-want +got):\n%s", name, diff)
		}
		if v := getTask(t, c, ids[i]); v.TaskID != ids[i] || v.Status != "completed" {
			t.Errorf("tasks/get of %s's task: %+v", name, v)
		}
	}
	for _, rec := range []string{recA, recB} {
		b, _ := os.ReadFile(rec)
		if want := `tasks/get {"taskId":"1"}`; !strings.Contains(string(b), want) {
			t.Errorf("%s: the server's record %q lacks %s", filepath.Base(rec), b, want)
		}
	}
	list := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":20,"method":"tasks/list"}`)))
	if !strings.Contains(list, ids[0]) || !strings.Contains(list, ids[1]) || strings.Contains(list, `"taskId":"1"`) {
		t.Errorf("tasks/list: %s", list)
	}
	other := newClient(t, srv)
	wantCode(t, "another session's relayed task", taskCall(other, 30, "tasks/get", ids[0]), "-32602")
}

// A server that crashes while its task runs: a waiting tasks/result gets
// an error at once, and later task methods say the task is lost; nothing
// reaches the restarted process.
func TestRelayedTaskCrash(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": mktask, "MCP_FAKE_RECORD_FILE": rec}})
	c := newClient(t, srv)
	tk := createTask(t, c, 2, "mktask", `{"ms":60000}`, "60000")
	waiting := make(chan string, 1)
	go func() {
		waiting <- postRaw(c, `{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+tk.TaskID+`"}}`)
	}()
	waitRecord(t, rec, "tasks/result") // tasks/result reached the server
	c.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"crash","arguments":{}}}`)
	select {
	case got := <-waiting:
		if !strings.Contains(got, `"code":-32001`) || !strings.Contains(got, `server \"s\"`) {
			t.Errorf("the waiting tasks/result: %s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiting tasks/result still hangs 10 s after the crash")
	}
	msg := taskCall(c, 5, "tasks/get", tk.TaskID)
	wantCode(t, "tasks/get after the crash", msg, "-32602")
	if !strings.Contains(string(msg), "is lost") {
		t.Errorf("tasks/get after the crash: %s", msg)
	}
	// The task was dropped with its process.
	wantCode(t, "tasks/get again", taskCall(c, 6, "tasks/get", tk.TaskID), "-32602")
	if b, _ := os.ReadFile(rec); strings.Count(string(b), "tasks/get") != 0 {
		t.Errorf("a task method reached a server process: %s", b)
	}
}

// postRaw posts one request of c's session and returns the body, or the
// error as text (for a goroutine, which must not call t.Fatal).
func postRaw(c *rawClient, body string) string {
	req, _ := http.NewRequest("POST", c.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// A relayed task's server-to-client request carries the task in _meta's
// related-task: the client gets the gateway's task id there, never the
// server's own (found by an adversarial review).
func TestRelayedTaskRequestNamesTheGatewayTask(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": mktask, "MCP_FAKE_TASK_ASK": "1"}})
	c := newClient(t, srv)
	tk := createTask(t, c, 2, "mktask", `{"ms":500}`, "60000")
	ch := events(t, c.post(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+tk.TaskID+`"}}`))
	req := next(t, ch, "the server's sampling request")
	if !strings.Contains(req, `"method":"sampling/createMessage"`) || !strings.Contains(req, `/related-task":{"taskId":"`+tk.TaskID+`"}`) {
		t.Errorf("on the tasks/result stream: %s, want related-task %s", req, tk.TaskID)
	}
	var m struct{ ID json.RawMessage }
	_ = json.Unmarshal([]byte(req), &m)
	c.post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}`).Body.Close()
	if final := next(t, ch, "tasks/result's response"); !strings.Contains(final, `"id":3`) {
		t.Errorf("tasks/result: %s", final)
	}
}

// tasks/list gives the servers of relayed tasks 5 s for the whole page: a
// stalled server's four tasks are left out after about 5 s, not 20.
func TestTaskListBoundedByOneTimeout(t *testing.T) {
	srv, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": mktask}})
	c := newClient(t, srv)
	for i := range 4 {
		createTask(t, c, 10+i, "mktask", `{"ms":60000}`, "60000")
	}
	pid := gw.Health().Servers[0].PID
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(pid, syscall.SIGCONT)
	// kill returns once SIGSTOP is queued; the process runs on until a
	// thread of it takes the signal, which on a busy machine was long
	// enough to answer one tasks/get (CI at 6bb6ead).
	testwait.For(t, 10*time.Second, "the server's threads to stop", func() bool { return stopped(pid) })
	start := time.Now()
	msg := c.rpc(`{"jsonrpc":"2.0","id":20,"method":"tasks/list","params":{}}`)
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("tasks/list with a stalled server took %v, want about 5 s", d)
	}
	if !strings.Contains(string(msg), `"tasks":[]`) {
		t.Errorf("tasks/list with a stalled server: %s", msg)
	}
}

// stopped reports whether every thread of process pid is stopped by a
// signal: state T in /proc/pid/task/*/stat (proc(5)).
func stopped(pid int) bool {
	stats, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	for _, f := range stats {
		if b, _ := os.ReadFile(f); !strings.Contains(string(b), ") T ") {
			return false
		}
	}
	return len(stats) > 0
}
