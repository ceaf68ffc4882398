package aggregator

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Tests of tasks (MCP 2025-11-25 basic/utilities/tasks; SPEC §4.7,
// issue 14): gateway-made tasks for a legacy session.

// taskOf reads a Task: a CreateTaskResult's "task", or a tasks/get result.
type taskView struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
	CreatedAt     string `json:"createdAt"`
}

func createTask(t *testing.T, c *rawClient, id int, tool, args, ttl string) taskView {
	t.Helper()
	msg := c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"task":{"ttl":%s}}}`, id, tool, args, ttl))
	var r struct {
		Task taskView `json:"task"`
	}
	if err := json.Unmarshal(result(t, msg), &r); err != nil || r.Task.TaskID == "" {
		t.Fatalf("want a CreateTaskResult, got %s", msg)
	}
	return r.Task
}

func taskCall(c *rawClient, id int, method, taskID string) []byte {
	c.t.Helper()
	return c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"taskId":%q}}`, id, method, taskID))
}

func getTask(t *testing.T, c *rawClient, taskID string) taskView {
	t.Helper()
	var v taskView
	msg := taskCall(c, 90, "tasks/get", taskID)
	if err := json.Unmarshal(result(t, msg), &v); err != nil {
		t.Fatalf("tasks/get: %s", msg)
	}
	return v
}

// waitStatus polls tasks/get until the task has status, within 10 s.
func waitStatus(t *testing.T, c *rawClient, taskID, status string) taskView {
	t.Helper()
	var v taskView
	if !testwait.Until(10*time.Second, func() bool { v = getTask(t, c, taskID); return v.Status == status }) {
		t.Fatalf("task %s: status %q after 10 s, want %q", taskID, v.Status, status)
	}
	return v
}

// A task-augmented call to a tool its server did not mark: the gateway
// makes the task, answers tasks/get, tasks/result (exactly the call's
// result, plus related-task _meta) and tasks/list; a finished task cannot
// be cancelled.
func TestGatewayTaskLifecycle(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	tk := createTask(t, c, 2, "sleep", `{"ms":1000}`, "60000")
	if tk.Status != "working" || tk.TTL != 60000 || tk.PollInterval != 500 || len(tk.TaskID) != 22 {
		t.Errorf("created task %+v", tk)
	}
	if v := getTask(t, c, tk.TaskID); v.Status != "working" {
		t.Errorf("tasks/get while running: %+v", v)
	}
	res := string(result(t, taskCall(c, 3, "tasks/result", tk.TaskID)))
	want := `{"content":[{"type":"text","text":"slept"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + tk.TaskID + `"}}}`
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("tasks/result (-want +got):\n%s", diff)
	}
	if v := getTask(t, c, tk.TaskID); v.Status != "completed" || v.CreatedAt != tk.CreatedAt {
		t.Errorf("tasks/get after: %+v", v)
	}
	list := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"tasks/list"}`)))
	if !strings.HasPrefix(list, `{"tasks":[{"taskId":"`+tk.TaskID+`","status":"completed"`) {
		t.Errorf("tasks/list: %s", list)
	}
	wantCode(t, "cancel a completed task", taskCall(c, 5, "tasks/cancel", tk.TaskID), "-32602")
	wantCode(t, "unknown task", taskCall(c, 6, "tasks/get", "nope"), "-32602")
}

// tasks/cancel of a gateway-made task cancels the call upstream: the
// server gets notifications/cancelled; the task stays cancelled.
func TestGatewayTaskCancel(t *testing.T) {
	dir := t.TempDir()
	cancelled, started := filepath.Join(dir, "cancelled"), filepath.Join(dir, "started")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`, "MCP_FAKE_CANCEL_FILE": cancelled}})
	c := newClient(t, srv)
	tk := createTask(t, c, 2, "sleep", `{"ms":30000,"started":`+string(mustQuote(started))+`}`, "60000")
	fakeserver.WaitFile(t, started)
	var v taskView
	if err := json.Unmarshal(result(t, taskCall(c, 3, "tasks/cancel", tk.TaskID)), &v); err != nil || v.Status != "cancelled" {
		t.Fatalf("tasks/cancel: %+v %v", v, err)
	}
	fakeserver.WaitFile(t, cancelled)
	waitRecord(t, cancelled, `"requestId"`) // the server got notifications/cancelled
	if v := getTask(t, c, tk.TaskID); v.Status != "cancelled" {
		t.Errorf("tasks/get after cancel: %+v", v)
	}
	wantCode(t, "tasks/result of a cancelled task", taskCall(c, 4, "tasks/result", tk.TaskID), "-32603")
	wantCode(t, "cancel again", taskCall(c, 5, "tasks/cancel", tk.TaskID), "-32602")
}

// Another session cannot see, wait for or cancel a session's task.
func TestTaskIsolation(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	a, b := newClient(t, srv), newClient(t, srv)
	tk := createTask(t, a, 2, "echo", `{"text":"mine"}`, "60000")
	for i, m := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
		msg := taskCall(b, 10+i, m, tk.TaskID)
		wantCode(t, "another session's "+m, msg, "-32602")
		if !strings.Contains(string(msg), "another session") {
			t.Errorf("%s: %s", m, msg)
		}
	}
	if got := string(result(t, b.rpc(`{"jsonrpc":"2.0","id":20,"method":"tasks/list"}`))); got != `{"tasks":[]}` {
		t.Errorf("another session's tasks/list: %s", got)
	}
	if res := string(result(t, taskCall(a, 21, "tasks/result", tk.TaskID))); !strings.Contains(res, `"text":"mine"`) {
		t.Errorf("the owner's tasks/result: %s", res)
	}
}

// A server that crashes while a gateway-made task runs fails the task
// with an error naming the server; tasks/result answers that error.
func TestGatewayTaskCrash(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"crash","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	tk := createTask(t, c, 2, "crash", `{"ms":100}`, "60000")
	msg := taskCall(c, 3, "tasks/result", tk.TaskID)
	wantCode(t, "tasks/result of a crashed call", msg, "-32001")
	if !strings.Contains(string(msg), `server \"s\"`) {
		t.Errorf("error does not name the server: %s", msg)
	}
	if v := getTask(t, c, tk.TaskID); v.Status != "failed" || !strings.Contains(v.StatusMessage, `server "s"`) {
		t.Errorf("tasks/get: %+v", v)
	}
}

// Each limit is a clear error past it: tasks per caller, tasks in all,
// bytes of kept results; a task is dropped at its TTL.
func TestTaskLimits(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}},{"name":"big","inputSchema":{"type":"object"}}]`}},
		HTTPOptions{MaxSessions: 3, Tasks: TaskLimits{PerCaller: 2, Total: 3, ResultBytes: 200, MinTTL: 10 * time.Millisecond}})
	a, b := newClient(t, srv), newClient(t, srv)
	createTask(t, a, 2, "sleep", `{"ms":20000}`, "60000")
	big := createTask(t, a, 3, "big", `{"bytes":1000}`, "60000")
	msg := a.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep","arguments":{},"task":{}}}`)
	if e := rpcError(t, msg); !strings.Contains(string(e["message"]), "this caller holds its limit of 2 tasks") {
		t.Errorf("past the per-caller limit: %s", msg)
	}
	createTask(t, b, 5, "sleep", `{"ms":20000}`, "60000")
	msg = b.rpc(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sleep","arguments":{},"task":{}}}`)
	if e := rpcError(t, msg); !strings.Contains(string(e["message"]), "the gateway holds its limit of 3 tasks") {
		t.Errorf("past the total limit: %s", msg)
	}
	msg = taskCall(a, 7, "tasks/result", big.TaskID)
	if e := rpcError(t, msg); !strings.Contains(string(e["message"]), "do not fit the gateway's room for kept task results (200 bytes in all)") {
		t.Errorf("a result past the byte limit: %s", msg)
	}
	if v := getTask(t, a, big.TaskID); v.Status != "failed" {
		t.Errorf("the task whose result did not fit: %+v", v)
	}
}

// A task is dropped at its TTL (clamped to the limits), running or not;
// a running one is cancelled upstream.
func TestTaskTTL(t *testing.T) {
	cancelled := filepath.Join(t.TempDir(), "cancelled")
	srv, gw := startGatewayOpts(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`, "MCP_FAKE_CANCEL_FILE": cancelled}},
		HTTPOptions{MaxSessions: 3, Tasks: TaskLimits{MinTTL: 100 * time.Millisecond, MaxTTL: time.Minute}})
	c := newClient(t, srv)
	if tk := createTask(t, c, 2, "sleep", `{"ms":0}`, "86400000"); tk.TTL != 60000 {
		t.Errorf("ttl of a day: %d ms, want the 1 min maximum", tk.TTL)
	}
	tk := createTask(t, c, 3, "sleep", `{"ms":30000}`, "1")
	if tk.TTL != 100 {
		t.Errorf("ttl of 1 ms: %d ms, want the 100 ms minimum", tk.TTL)
	}
	testwait.For(t, 10*time.Second, "the 100 ms task to be dropped at its ttl (tasks/get an error)", func() bool {
		return strings.Contains(string(taskCall(c, 4, "tasks/get", tk.TaskID)), `"error"`)
	})
	fakeserver.WaitFile(t, cancelled)
	if n, _ := gw.h.tasks.Usage(); n != 1 {
		t.Errorf("%d tasks kept, want 1 (the one with a minute to live)", n)
	}
}

// A gateway-made task whose server asks the client (sampling) is
// input_required until a tasks/result stream carries the request, with
// related-task _meta, and the client's answer goes back to the server.
func TestGatewayTaskInputRequired(t *testing.T) {
	c, tk, ch, req := sampleTaskResult(t)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal([]byte(req), &m) != nil || m.Method != "sampling/createMessage" ||
		!strings.HasSuffix(string(m.Params), `"maxTokens":10,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+tk.TaskID+`"}}}`) {
		t.Fatalf("on the tasks/result stream: %s", req)
	}
	resp := c.post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"forty-two"},"model":"m1"}}`)
	resp.Body.Close()
	final := next(t, ch, "tasks/result's response")
	if !strings.Contains(final, `forty-two`) || !strings.Contains(final, `"id":3`) || !strings.Contains(final, `related-task":{"taskId":"`+tk.TaskID) {
		t.Errorf("tasks/result: %s", final)
	}
	if v := getTask(t, c, tk.TaskID); v.Status != "completed" {
		t.Errorf("tasks/get after: %+v", v)
	}
}

// A session's end (DELETE) ends its tasks: a running gateway-made task is
// cancelled upstream and its id is gone.
func TestTasksEndWithTheSession(t *testing.T) {
	dir := t.TempDir()
	cancelled, started := filepath.Join(dir, "cancelled"), filepath.Join(dir, "started")
	srv, gw := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`, "MCP_FAKE_CANCEL_FILE": cancelled}})
	c := newClient(t, srv)
	createTask(t, c, 2, "sleep", `{"ms":30000,"started":`+string(mustQuote(started))+`}`, "60000")
	fakeserver.WaitFile(t, started)
	if resp, b := send(t, "DELETE", c.url, "", sessionHeaders(c)); resp.StatusCode != 200 && resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, b)
	}
	fakeserver.WaitFile(t, cancelled)
	if n, _ := gw.h.tasks.Usage(); n != 0 {
		t.Errorf("%d tasks kept after their session ended", n)
	}
}

// A tasks/result that relays the task's server-to-client request ends when
// the task does: tasks/cancel while the request waits for the client
// withdraws it (notifications/cancelled with its id) and answers
// tasks/result with the task's outcome. Before, the stream stayed open
// for good (found by an adversarial review).
func TestTaskResultEndsWhenItsTaskEndsWhileAsking(t *testing.T) {
	c, tk, ch, req := sampleTaskResult(t)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal([]byte(req), &m) != nil || m.Method != "sampling/createMessage" {
		t.Fatalf("on the tasks/result stream: %s", req)
	}
	result(t, taskCall(c, 4, "tasks/cancel", tk.TaskID))
	if got := next(t, ch, "the withdrawn request"); !strings.Contains(got, `"method":"notifications/cancelled"`) || !strings.Contains(got, `"requestId":`+string(m.ID)) {
		t.Errorf("after tasks/cancel, on the tasks/result stream: %s", got)
	}
	if final := next(t, ch, "tasks/result's response"); !strings.Contains(final, `"id":3`) {
		t.Errorf("tasks/result after its task was cancelled: %s", final)
	}
}

// sampleTaskResult makes a gateway-made task whose server asks the client
// for sampling, waits until it is input_required, and opens its
// tasks/result (id 3): the client, the task, the stream's events and the
// first one, which should be the server's request.
func sampleTaskResult(t *testing.T) (*rawClient, taskView, <-chan string, string) {
	t.Helper()
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sample","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	tk := createTask(t, c, 2, "sample", `{}`, "60000")
	waitStatus(t, c, tk.TaskID, "input_required")
	ch := events(t, c.post(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"`+tk.TaskID+`"}}`))
	return c, tk, ch, next(t, ch, "sampling request")
}
