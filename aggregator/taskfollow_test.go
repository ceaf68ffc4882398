package aggregator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Tests of tasks across eras (SPEC §4.7, taskfollow.go): a task lives in
// its caller's era; the gateway follows a server's task of the other era.

// extClient is a legacy session whose initialize declares the tasks
// extension, as the TypeScript SDK v2 client in legacy mode does.
func extClient(t *testing.T, url string) *rawClient {
	c := &rawClient{t: t, url: url + "/mcp"}
	res := c.rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	if !strings.Contains(string(res), `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", res)
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// waitRecord waits, 10 s at most, until a file the fake server appends to
// (its MCP_FAKE_RECORD_FILE or MCP_FAKE_CANCEL_FILE) holds want, and
// returns the file.
func waitRecord(t *testing.T, rec, want string) string {
	t.Helper()
	var b []byte
	if !testwait.Until(10*time.Second, func() bool {
		b, _ = os.ReadFile(rec)
		return strings.Contains(string(b), want)
	}) {
		t.Fatalf("%s lacks %s after 10 s: %q", rec, want, b)
	}
	return string(b)
}

// (1) A legacy session that declares the extension, a modern server, no
// task param: the server gets the session's capabilities without the
// extension, so it makes no task, and the call is answered as a call.
func TestLegacyCallerModernServerNoTask(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_TOOLS": mktask, "MCP_FAKE_RECORD_FILE": rec}})
	c := extClient(t, srv.URL)
	got := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mktask","arguments":{"ms":100}}}`)))
	if !strings.Contains(got, "task none done") || strings.Contains(got, `"task"`) {
		t.Errorf("a plain call: %s", got)
	}
	b, _ := os.ReadFile(rec)
	if strings.Contains(string(b), "io.modelcontextprotocol/tasks") || !strings.Contains(string(b), `"elicitation":{}`) {
		t.Errorf("the server's record: the session's capabilities, without the extension, want: %s", b)
	}
}

// (2) A legacy session's task-augmented call to a modern server: a
// gateway-made task whose call declares the extension; the server's task
// is followed with tasks/get and its result is the task's.
func TestLegacyTaskModernServerFollowed(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_TASK_RESULT": "1", "MCP_FAKE_TOOLS": mktask, "MCP_FAKE_RECORD_FILE": rec}})
	c := extClient(t, srv.URL)
	tk := createTask(t, c, 2, "mktask", `{"ms":300}`, "60000")
	if len(tk.TaskID) != 22 || tk.Status != "working" {
		t.Fatalf("CreateTaskResult: %+v", tk)
	}
	res := string(result(t, taskCall(c, 3, "tasks/result", tk.TaskID)))
	want := `{"content":[{"type":"text","text":"task 1 done"}],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + tk.TaskID + `"}}}`
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("tasks/result (-want +got):\n%s", diff)
	}
	if v := getTask(t, c, tk.TaskID); v.Status != "completed" {
		t.Errorf("tasks/get: %+v", v)
	}
	b, _ := os.ReadFile(rec)
	call := string(b)[strings.Index(string(b), "tools/call"):]
	call = call[:strings.IndexByte(call, '\n')]
	if strings.Contains(call, `"task"`) || !strings.Contains(call, `"io.modelcontextprotocol/tasks":{}`) {
		t.Errorf("the server's tools/call: without task params, declaring the extension, want: %s", call)
	}
	if !strings.Contains(string(b), `tasks/get {"taskId":"1"`) {
		t.Errorf("the server's record lacks the follower's tasks/get: %s", b)
	}
}

// (2) tasks/cancel of a gateway-made task that follows a modern server's
// task reaches the server as tasks/cancel with its own id.
func TestLegacyTaskModernServerCancel(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_TASK_RESULT": "1", "MCP_FAKE_TOOLS": mktask, "MCP_FAKE_RECORD_FILE": rec}})
	c := extClient(t, srv.URL)
	tk := createTask(t, c, 2, "mktask", `{"ms":60000}`, "60000")
	waitRecord(t, rec, `tasks/get {"taskId":"1"`)
	if v := decodeLegacy(t, taskCall(c, 3, "tasks/cancel", tk.TaskID)); v.Status != "cancelled" {
		t.Errorf("tasks/cancel: %+v", v)
	}
	waitRecord(t, rec, `tasks/cancel {"taskId":"1"`)
}

func decodeLegacy(t *testing.T, msg []byte) taskView {
	t.Helper()
	var v taskView
	if err := json.Unmarshal(result(t, msg), &v); err != nil {
		t.Fatalf("decode %s: %v", msg, err)
	}
	return v
}

const requiredTask = `[{"name":"mktask","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}]`

// (3) A modern caller with the extension, a legacy tool marked
// taskSupport "required": the call reaches the server with "task": {};
// its task is followed (tasks/get, then tasks/result) and shown as a
// gateway-made modern task. A caller without the extension gets -32021.
func TestModernCallerRequiredLegacyTask(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": requiredTask, "MCP_FAKE_RECORD_FILE": rec}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	created := decodeTask(t, c.call(1, "mktask", `"arguments":{"ms":1500},`))
	if created.ResultType != "task" || len(created.TaskID) != 22 {
		t.Fatalf("the call: %+v", created)
	}
	done := pollModern(t, u, created.TaskID, "completed")
	// "task 1 done", not "task none done": the call had "task" params.
	if got := string(done.Result); got != `{"content":[{"type":"text","text":"task 1 done"}],"_meta":{}}` {
		t.Errorf("the task's result: %s", got)
	}
	b := waitRecord(t, rec, `tasks/result {"taskId":"1"}`)
	if !strings.Contains(b, `tasks/get {"taskId":"1"}`) {
		t.Errorf("the server's record: %s", b)
	}
	plain := modernCaller{t: t, url: u, caps: `{}`}
	wantCode(t, "a caller without the extension", plain.call(2, "mktask", `"arguments":{"ms":10},`), "-32021")
}

// (3) tasks/cancel of a gateway-made modern task that follows a legacy
// server's task reaches the server as tasks/cancel with its own id.
func TestModernCallerRequiredLegacyCancel(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": requiredTask, "MCP_FAKE_RECORD_FILE": rec}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	created := decodeTask(t, c.call(1, "mktask", `"arguments":{"ms":60000},`))
	if created.ResultType != "task" {
		t.Fatalf("the call: %+v", created)
	}
	waitRecord(t, rec, `tasks/get {"taskId":"1"}`)
	if got := string(result(t, postModernTask(t, u, tasksCaps, "tasks/cancel", created.TaskID, ""))); got != `{"resultType":"complete"}` {
		t.Errorf("tasks/cancel: %s", got)
	}
	waitRecord(t, rec, `tasks/cancel {"taskId":"1"}`)
	if v := pollModern(t, u, created.TaskID, "cancelled"); v.Status != "cancelled" {
		t.Errorf("tasks/get: %+v", v)
	}
}
