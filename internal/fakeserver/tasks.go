package fakeserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tasks (MCP 2025-11-25 basic/utilities/tasks), for the gateway's task
// relay tests:
//
//	mktask {"ms": n}   with "task" params (modern: when the client declares
//	                   io.modelcontextprotocol/tasks): a CreateTaskResult for a task with
//	                   id "1", "2", … (per process), which completes after n
//	                   ms with text "task <id> done[ from <MCP_FAKE_NAME>]"
//	                   (legacy: and sends notifications/tasks/status);
//	                   without: that text at once
//	tasks/get, tasks/result, tasks/cancel, tasks/list  on those tasks;
//	                   an unknown id is -32602; with MCP_FAKE_TASK_RESULT
//	                   set, a modern completed task's tasks/get carries
//	                   its "result" (a DetailedTask); with
//	                   MCP_FAKE_TASK_ASK set, tasks/result first sends
//	                   sampling/createMessage with related-task _meta
//
// Every tasks/* request is recorded with MCP_FAKE_RECORD_FILE, in both
// modes.

type fakeTask struct {
	id, status string
	done       chan struct{}
	result     string
}

var tasks = struct {
	sync.Mutex
	next int
	byID map[string]*fakeTask
}{byID: map[string]*fakeTask{}}

func taskText(id string) string {
	t := "task " + id + " done"
	if name := os.Getenv("MCP_FAKE_NAME"); name != "" {
		t += " from " + name
	}
	return text(t)
}

// taskCall answers the mktask tool; it reports whether name was its.
func (s *server) taskCall(id json.RawMessage, name string, params json.RawMessage) bool {
	if name != "mktask" {
		return false
	}
	var p struct {
		Task      json.RawMessage `json:"task"`
		Arguments struct {
			MS int `json:"ms"`
		} `json:"arguments"`
	}
	_ = json.Unmarshal(params, &p)
	// A modern fake makes a task when the client declares the extension
	// (io.modelcontextprotocol/tasks: the server decides).
	modernTask := s.modern && strings.Contains(string(params), `"io.modelcontextprotocol/tasks"`)
	if p.Task == nil && !modernTask {
		s.reply(id, taskText("none"))
		return true
	}
	tasks.Lock()
	tasks.next++
	t := &fakeTask{id: strconv.Itoa(tasks.next), status: "working", done: make(chan struct{})}
	tasks.byID[t.id] = t
	tasks.Unlock()
	go func() {
		time.Sleep(time.Duration(p.Arguments.MS) * time.Millisecond)
		tasks.Lock()
		done := t.status == "working"
		if done {
			t.status, t.result = "completed", taskText(t.id)
			close(t.done)
		}
		note := fakeTaskJSON(t)
		tasks.Unlock()
		if done && !s.modern {
			s.notify("notifications/tasks/status", note)
		}
	}()
	if modernTask {
		s.reply(id, `{"resultType":"task",`+fakeTaskJSON(t)[1:])
		return true
	}
	s.reply(id, `{"task":`+fakeTaskJSON(t)+`,"_meta":{"fake":"kept"}}`)
	return true
}

// fakeTaskJSON renders a Task; call with tasks locked or before sharing t.
func fakeTaskJSON(t *fakeTask) string {
	return fmt.Sprintf(`{"taskId":%q,"status":%q,"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":60000,"pollInterval":100}`, t.id, t.status)
}

// taskMethod answers tasks/get, tasks/result, tasks/cancel and tasks/list.
func (s *server) taskMethod(id json.RawMessage, method string, params json.RawMessage) {
	if !s.modern { // modern mode recorded it already
		record(method, params)
	}
	var p struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal(params, &p)
	tasks.Lock()
	t := tasks.byID[p.TaskID]
	if method == "tasks/list" {
		out := `{"tasks":[`
		for i := 1; i <= tasks.next; i++ {
			if i > 1 {
				out += ","
			}
			out += fakeTaskJSON(tasks.byID[strconv.Itoa(i)])
		}
		tasks.Unlock()
		s.reply(id, out+`]}`)
		return
	}
	if t == nil {
		tasks.Unlock()
		s.replyErr(id, -32602, "Failed to retrieve task: Task not found", "")
		return
	}
	switch method {
	case "tasks/get":
		res := fakeTaskJSON(t)
		if s.modern && t.status == "completed" && os.Getenv("MCP_FAKE_TASK_RESULT") != "" { // a DetailedTask's result
			res = res[:len(res)-1] + `,"result":` + t.result + `}`
		}
		s.reply(id, res)
	case "tasks/cancel":
		if t.status != "working" {
			s.replyErr(id, -32602, "Cannot cancel task: already in terminal status '"+t.status+"'", "")
			break
		}
		t.status = "cancelled"
		close(t.done)
		s.reply(id, fakeTaskJSON(t))
	case "tasks/result":
		tasks.Unlock()
		if os.Getenv("MCP_FAKE_TASK_ASK") != "" { // a request on behalf of the task
			s.request("sampling/createMessage", `{"messages":[],"maxTokens":1,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+t.id+`"}}}`)
		}
		<-t.done
		tasks.Lock()
		res := t.result
		if res == "" {
			res = text("cancelled")
		}
		s.reply(id, res[:len(res)-1]+`,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"`+t.id+`"}}}`)
	}
	tasks.Unlock()
}
