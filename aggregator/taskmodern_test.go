package aggregator

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Tests of the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks;
// SPEC §4.7, issue 14).

const tasksCaps = `{"extensions":{"io.modelcontextprotocol/tasks":{}},"elicitation":{}}`

// postModernTask posts a tasks/* request of a modern caller with caps.
func postModernTask(t *testing.T, url, caps, method, taskID, extra string) []byte {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":{"taskId":%q,%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`,
		method, taskID, extra, caps)
	resp, b := send(t, "POST", url, body, modernHeaders(method, taskID))
	return message(t, resp, b)
}

type modernTaskView struct {
	ResultType    string                     `json:"resultType"`
	TaskID        string                     `json:"taskId"`
	Status        string                     `json:"status"`
	TTL           *int64                     `json:"ttlMs"`
	Result        json.RawMessage            `json:"result"`
	Error         json.RawMessage            `json:"error"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
}

func decodeTask(t *testing.T, msg []byte) modernTaskView {
	t.Helper()
	var v modernTaskView
	if err := json.Unmarshal(result(t, msg), &v); err != nil {
		t.Fatalf("decode %s: %v", msg, err)
	}
	return v
}

// pollModern polls tasks/get until status, within 10 s.
func pollModern(t *testing.T, url, taskID, status string) modernTaskView {
	t.Helper()
	var v modernTaskView
	if !testwait.Until(10*time.Second, func() bool {
		v = decodeTask(t, postModernTask(t, url, tasksCaps, "tasks/get", taskID, ""))
		return v.Status == status
	}) {
		t.Fatalf("task %s: %+v after 10 s, want status %s", taskID, v, status)
	}
	return v
}

// A modern caller with the extension, a legacy server: a quick call is
// answered as usual; a slow one becomes a gateway-made task, whose
// tasks/get carries the result once done; one that asks for input is a
// task at once, input_required until tasks/update answers.
func TestModernGatewayTask(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"sleep","inputSchema":{"type":"object"}},{"name":"elicit","inputSchema":{"type":"object"}}]`}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	if got := string(result(t, c.call(1, "echo", `"arguments":{"text":"quick"},`))); got != `{"resultType":"complete","content":[{"type":"text","text":"quick"}]}` {
		t.Errorf("a quick call: %s", got)
	}
	created := decodeTask(t, c.call(2, "sleep", `"arguments":{"ms":1500},`))
	if created.ResultType != "task" || created.Status != "working" || created.TTL == nil || *created.TTL != 300000 {
		t.Fatalf("a slow call: %+v", created)
	}
	done := pollModern(t, u, created.TaskID, "completed")
	if diff := cmp.Diff(`{"content":[{"type":"text","text":"slept"}]}`, string(done.Result)); diff != "" || done.ResultType != "complete" {
		t.Errorf("tasks/get of the done task (-want +got):\n%s", diff)
	}

	asking := decodeTask(t, c.call(3, "elicit", `"arguments":{},`))
	if asking.ResultType != "task" {
		t.Fatalf("a call asking for input: %+v", asking)
	}
	v := pollModern(t, u, asking.TaskID, "input_required")
	want := map[string]json.RawMessage{"elicitation-1": json.RawMessage(`{"method":"elicitation/create","params":{"message":"pick n","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}}`)}
	if diff := cmp.Diff(want, v.InputRequests); diff != "" {
		t.Errorf("inputRequests (-want +got):\n%s", diff)
	}
	answer := `{"action":"accept","content":{"n":9007199254740993}}`
	if got := string(result(t, postModernTask(t, u, tasksCaps, "tasks/update", asking.TaskID, `"inputResponses":{"elicitation-1":`+answer+`},`))); got != `{"resultType":"complete"}` {
		t.Errorf("tasks/update: %s", got)
	}
	done = pollModern(t, u, asking.TaskID, "completed")
	if !strings.Contains(string(done.Result), `9007199254740993`) {
		t.Errorf("the answer did not reach the server: %s", done.Result)
	}

	wantCode(t, "tasks/get without the extension", postModernTask(t, u, `{}`, "tasks/get", created.TaskID, ""), "-32021")
	wantCode(t, "an unknown task", postModernTask(t, u, tasksCaps, "tasks/get", "nope", ""), "-32602")
	legacy := newClient(t, srv)
	wantCode(t, "a legacy session asking for a modern caller's task", taskCall(legacy, 9, "tasks/get", created.TaskID), "-32602")
}

// tasks/cancel of a modern gateway-made task is acknowledged and cancels
// the call upstream.
func TestModernTaskCancel(t *testing.T) {
	dir := t.TempDir()
	cancelled, started := filepath.Join(dir, "cancelled"), filepath.Join(dir, "started")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`, "MCP_FAKE_CANCEL_FILE": cancelled}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	tk := decodeTask(t, c.call(1, "sleep", `"arguments":{"ms":30000,"started":`+string(mustQuote(started))+`},`))
	fakeserver.WaitFile(t, started)
	if got := string(result(t, postModernTask(t, u, tasksCaps, "tasks/cancel", tk.TaskID, ""))); got != `{"resultType":"complete"}` {
		t.Errorf("tasks/cancel: %s", got)
	}
	fakeserver.WaitFile(t, cancelled)
	pollModern(t, u, tk.TaskID, "cancelled")
}

// Two modern servers both answer task "1": the caller gets two gateway
// ids, and each tasks/get reaches its own server with "1".
func TestModernRelayedTaskCollision(t *testing.T) {
	dir := t.TempDir()
	rec := [2]string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	tools := `[{"name":"mktask","inputSchema":{"type":"object"}}]`
	srv, _ := startGateway(t, map[string]map[string]string{
		"a": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_TOOLS": tools, "MCP_FAKE_RECORD_FILE": rec[0]},
		"b": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_TOOLS": tools, "MCP_FAKE_RECORD_FILE": rec[1]},
	})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	var ids [2]string
	for i, tool := range []string{"mktask", "b_mktask"} {
		res := string(result(t, c.call(i+1, tool, `"arguments":{"ms":100},`)))
		v := decodeTask(t, []byte(`{"result":`+res+`}`))
		ids[i] = v.TaskID
		want := `{"resultType":"task","taskId":"` + v.TaskID + `","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":100}`
		if diff := cmp.Diff(want, res); diff != "" || len(v.TaskID) != 22 {
			t.Errorf("CreateTaskResult of %s (-want +got):\n%s", tool, diff)
		}
	}
	if ids[0] == ids[1] {
		t.Fatalf("both tasks got id %s", ids[0])
	}
	for i := range ids {
		v := pollModern(t, u, ids[i], "completed")
		if v.TaskID != ids[i] {
			t.Errorf("tasks/get answered taskId %s, want %s", v.TaskID, ids[i])
		}
		b, _ := os.ReadFile(rec[i])
		if !strings.Contains(string(b), `tasks/get {"taskId":"1"`) {
			t.Errorf("server %d's record lacks tasks/get of its task 1: %s", i, b)
		}
	}
	legacy := newClient(t, srv)
	wantCode(t, "a legacy session asking for a modern caller's relayed task", taskCall(legacy, 9, "tasks/get", ids[0]), "-32602")
}

// A modern server that crashes while its task runs: its tasks/get fails at
// once, saying the task is lost, and never reaches the new process.
func TestModernRelayedTaskCrash(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "rec")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_RECORD_FILE": rec,
		"MCP_FAKE_TOOLS": `[{"name":"mktask","inputSchema":{"type":"object"}},{"name":"crash","inputSchema":{"type":"object"}}]`}})
	u := srv.URL + "/mcp"
	c := modernCaller{t: t, url: u, caps: tasksCaps}
	tk := decodeTask(t, c.call(1, "mktask", `"arguments":{"ms":60000},`))
	c.call(2, "crash", `"arguments":{},`)
	msg := postModernTask(t, u, tasksCaps, "tasks/get", tk.TaskID, "")
	wantCode(t, "tasks/get after the crash", msg, "-32602")
	if !strings.Contains(string(msg), "is lost") {
		t.Errorf("tasks/get after the crash: %s", msg)
	}
	if b, _ := os.ReadFile(rec); strings.Contains(string(b), "tasks/get") {
		t.Errorf("a tasks/get reached a server process: %s", b)
	}
}

// At a task limit, a modern caller's call is served as if it had not
// declared the extension: no task, the result at the end.
func TestModernTaskLimitServesWithoutTask(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}},
		HTTPOptions{MaxSessions: 3, Tasks: TaskLimits{PerCaller: 1}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: tasksCaps}
	if v := decodeTask(t, c.call(1, "sleep", `"arguments":{"ms":1500},`)); v.ResultType != "task" {
		t.Fatalf("the first slow call: %+v", v)
	}
	if got := string(result(t, c.call(2, "sleep", `"arguments":{"ms":1200},`))); got != `{"resultType":"complete","content":[{"type":"text","text":"slept"}]}` {
		t.Errorf("the second, past the limit: %s", got)
	}
}

// At a task limit, a modern caller's call to a legacy tool that runs only
// as a task (taskSupport "required") gets the limit's error, naming the
// tool and its server, not the server's refusal of a plain call ("requires
// task augmentation"), which told the caller nothing of the limit. The
// chaos soak found it: 16 modern clients share a token, whose 100 tasks
// are kept 5 minutes.
func TestModernRequiredTaskAtTheLimit(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": requiredTask}},
		HTTPOptions{MaxSessions: 3, Tasks: TaskLimits{PerCaller: 1}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: tasksCaps}
	if v := decodeTask(t, c.call(1, "mktask", `"arguments":{"ms":1500},`)); v.ResultType != "task" {
		t.Fatalf("the first call: %+v", v)
	}
	msg := c.call(2, "mktask", `"arguments":{"ms":10},`)
	e := rpcError(t, msg)
	if text := string(e["message"]); !strings.Contains(text, "limit of 1 tasks") || !strings.Contains(text, `mktask`) || !strings.Contains(text, `server \"s\"`) {
		t.Errorf("the second, past the limit: %s", msg)
	}
}

// A call that runs for about a second is one the tasks extension's
// scenarios expect a task for (slow_compute {"seconds": 1}, failing_job):
// the gateway makes it one well before it ends, not in a race with its
// end (the threshold was 1 s; see taskAfter).
func TestModernTaskOfASecondLongCall(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: tasksCaps}
	start := time.Now()
	v := decodeTask(t, c.call(1, "sleep", `"arguments":{"ms":900},`))
	if v.ResultType != "task" || v.Status != "working" {
		t.Fatalf("a 900 ms call: want a working task, got %+v", v)
	}
	if took := time.Since(start); took > 800*time.Millisecond {
		t.Errorf("the CreateTaskResult came after %s, want it well before the call's 900 ms end", took)
	}
}

// A modern caller's 2025-11-25 "task" param (which the tasks extension
// does not have: a server tolerates it and makes no task of it, SEP-2663)
// does not reach a legacy server: one that has tasks would make a
// 2025-11-25 task the modern caller could never reach, and answer
// {"task": …} with its own task id. With or without the extension, the
// call is served as a plain call.
func TestModernLegacyTaskParamDropped(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"mktask","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]`}})
	for i, caps := range []string{`{}`, tasksCaps} {
		c := modernCaller{t: t, url: srv.URL + "/mcp", caps: caps}
		got := string(result(t, c.call(i+1, "mktask", `"arguments":{"ms":10},"task":{"ttl":60000,"pollInterval":100},`)))
		if want := `{"resultType":"complete","content":[{"type":"text","text":"task none done"}]}`; got != want {
			t.Errorf("caps %s: want %s, got %s", caps, want, got)
		}
	}
}
