package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/taskrun"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file serves tasks to legacy sessions (MCP 2025-11-25
// basic/utilities/tasks; SPEC §4.7): a tools/call with "task" params, and
// tasks/get, tasks/result, tasks/list and tasks/cancel. A session's tasks
// are its own: another session asking for one gets -32602, as for an
// unknown id. They end with the session (DELETE or idle expiry), and are
// cancelled upstream then, as nobody can reach them any more: a
// gateway-made task's call is cancelled (its server gets
// notifications/cancelled), a relayed task gets tasks/cancel
// (bindRelayed).

// sessionTasks serves a session's task methods, over the task runner and
// table; the router routes a task-augmented tools/call.
type sessionTasks struct {
	router *relay.Router
	runner *taskrun.Runner
	table  *tasks.Table
}

// taskCapability is the gateway's capabilities.tasks at initialize: it
// lists, cancels and takes task-augmented tools/call (for any tool; see
// callTask).
var taskCapability = map[string]any{"list": struct{}{}, "cancel": struct{}{},
	"requests": map[string]any{"tools": map[string]any{"call": struct{}{}}}}

// taskListPage is how many tasks one tasks/list page holds.
const taskListPage = 100

func sessionOwner(s *Session) string { return "session:" + s.id }

// callTask answers a tools/call with "task" params: relayed to a legacy
// server if it marked the tool execution.taskSupport "optional" or
// "required" (taskrun/relayed.go), else a gateway-made task ({"task": Task} at
// once). A modern server ignores 2025-11-25 "task" params, so its calls
// are always gateway-made tasks, whose call declares the tasks extension:
// a task the server makes of it is followed (taskrun/follow.go).
func (st *sessionTasks) callTask(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record, c relay.Call, err error) [][]byte {
	if own, ok := relay.OwnOf(err); ok { // search_tools answers at once, no task made (relay/toolsearch.go)
		rec.Routed(own.Name, "", own.Name)
		return rec.ResultParts(m.ID, own.Result())
	}
	if err != nil {
		return rec.ErrorParts(m.ID, err)
	}
	rec.Routed(c.Name, c.Route.Upstream.Name(), c.Route.Name)
	c.Mem = &s.uris // its result's URIs are the session's (registry.Memory)
	ttlRaw, _ := jsonrpc.Member(m.Params, "task")
	ttlRaw, _ = jsonrpc.Member(ttlRaw, "ttl")
	modernUp := c.Route.Upstream.Status().Era == supervisor.EraModern
	if !modernUp && (c.Route.TaskSupport == "optional" || c.Route.TaskSupport == "required") {
		ctx, end, refused := s.beginRequest(m, out)
		if refused != nil {
			rec.Failed(errDuplicateID)
			return refused
		}
		defer end.Done()
		c.Peer = &peer{s: s, out: out}
		res, err := st.runner.RelayCreate(rec.Context(ctx), sessionOwner(s), s.ctx, c)
		if err != nil {
			if errors.Is(context.Cause(ctx), errClientCancelled) {
				return nil
			}
			return rec.ErrorParts(m.ID, err)
		}
		if id, ok := jsonrpc.Text(jsonrpc.Value(jsonrpc.Value(res, "task"), "taskId")); ok {
			rec.Task(id, res)
			return wire.ResultParts(m.ID, res)
		}
		return rec.ResultParts(m.ID, res)
	}
	if err := c.Check(); err != nil {
		return rec.ErrorParts(m.ID, err)
	}
	t := tasks.NewLegacy(sessionOwner(s), st.table.Lim.TTL(ttlRaw))
	t.Trace = rec.SpanContext() // its calls and methods join the call's trace
	var base supervisor.Peer = &peer{s: s}
	if modernUp {
		base = taskrun.TasksExtPeer{Peer: base} // the server may make a task; the gateway follows it (taskrun/follow.go)
	}
	c.Params = jsonrpc.Without(c.Params, "task")
	if err := st.runner.StartTask(t, c, s.ctx, base); err != nil {
		return rec.ErrorParts(m.ID, err)
	}
	res := []byte(`{"task":` + string(t.Snapshot()) + `}`)
	rec.Task(t.ID, res)
	return wire.ResultParts(m.ID, res)
}

// taskMethod answers tasks/get, tasks/result, tasks/list and tasks/cancel
// of a session.
func (st *sessionTasks) taskMethod(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record) [][]byte {
	owner := sessionOwner(s)
	if m.Method == "tasks/list" {
		return st.listTasks(s, m)
	}
	raw, _ := jsonrpc.Member(m.Params, "taskId")
	id, ok := jsonrpc.Text(raw)
	if !ok {
		return wire.ErrorParts(m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + m.Method + " needs a string \"taskId\""})
	}
	t, err := st.table.Get(id, owner)
	if err != nil {
		return wire.ErrorParts(m.ID, err)
	}
	rec.Follows(t.Trace) // the task's methods join the trace of the call that made it
	if t.Kind == tasks.KindRelayed {
		return st.relayTaskMethod(s, m, out, t, rec)
	}
	switch m.Method {
	case "tasks/get":
		return wire.ResultParts(m.ID, t.Snapshot())
	case "tasks/cancel":
		res, err := t.CancelTask()
		if err != nil {
			return wire.ErrorParts(m.ID, err)
		}
		return wire.ResultParts(m.ID, res)
	}
	return st.taskResult(s, m, out, t)
}

// taskResult is tasks/result of a gateway-made task: it waits for the
// task to end, carrying the call's server-to-client requests to the
// client on its own response (with related-task _meta) meanwhile, and
// answers exactly what the call would have answered.
func (st *sessionTasks) taskResult(s *Session, m *wire.Message, out *wire.Stream, t *tasks.Task) [][]byte {
	ctx, end, refused := s.beginRequest(m, out)
	if refused != nil {
		return refused
	}
	defer end.Done()
	t.Mu.Lock()
	t.Out = out
	t.Mu.Unlock()
	defer func() {
		t.Mu.Lock()
		if t.Out == out {
			t.Out = nil
		}
		t.Mu.Unlock()
	}()
	p := &peer{s: s, out: out}
	for {
		select {
		case <-t.Done:
			res, err := t.Outcome()
			if err != nil {
				return wire.ErrorParts(m.ID, err)
			}
			return wire.ResultParts(m.ID, res)
		case a := <-t.Asks:
			a.Reply <- st.askForTask(ctx, t, p, a)
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errClientCancelled) {
				return nil
			}
			return wire.ErrorParts(m.ID, fmt.Errorf("wait for task %s: %w", t.ID, context.Cause(ctx)))
		}
	}
}

// askForTask relays a gateway-made task's server-to-client request to the
// client on its tasks/result response and returns the answer. The ask is
// withdrawn when the task's call ends (cancelled, its server gone, its
// TTL): a tasks/result waiting on it hung after the task had ended (found
// by an adversarial review).
func (st *sessionTasks) askForTask(ctx context.Context, t *tasks.Task, p *peer, a *tasks.Ask) tasks.Reply {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(t.Ctx, cancel)
	defer stop()
	res, err := p.Request(ctx, a.Method, withRelatedMeta(a.Params, t.ID))
	return tasks.Reply{Res: res, Err: err}
}

// withRelatedMeta sets params._meta's related-task (MCP: a request a task
// depends on carries its task id).
func withRelatedMeta(params json.RawMessage, id string) json.RawMessage {
	if len(params) == 0 || params[0] != '{' {
		params = []byte("{}")
	}
	return tasks.WithRelatedTask(params, id)
}

// listTasks is tasks/list: the session's tasks, oldest first, a page of
// taskListPage; the cursor is an offset. A relayed task is shown as its
// server's tasks/get answers (taskId rewritten); one whose server cannot
// answer is left out, as tasks/get would fail for it too; the servers
// have relayTimeout (5 s) for the whole page, not each task (six tasks of
// a stalled server took 30 s, found by an adversarial review).
func (st *sessionTasks) listTasks(s *Session, m *wire.Message) [][]byte {
	start := 0
	if c, ok := jsonrpc.Member(m.Params, "cursor"); ok {
		text, _ := jsonrpc.Text(c)
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 {
			return wire.ErrorParts(m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: tasks/list cursor " + orNull(c) + " is not one the gateway issued"})
		}
		start = n
	}
	all := st.table.Owned(sessionOwner(s))
	start = min(start, len(all))
	end := min(start+taskListPage, len(all))
	ctx, cancel := context.WithTimeout(s.ctx, taskrun.RelayTimeout)
	defer cancel()
	b := []byte(`{"tasks":[`)
	n := 0
	for _, t := range all[start:end] {
		var item json.RawMessage
		if t.Kind == tasks.KindRelayed {
			var err error
			if item, err = st.runner.RelayTaskGet(ctx, t, &peer{s: s}); err != nil {
				continue
			}
		} else {
			item = t.Snapshot()
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, item...)
		n++
	}
	b = append(b, ']')
	if end < len(all) {
		b = append(append(b, `,"nextCursor":`...), jsonrpc.Quote(strconv.Itoa(end))...)
	}
	return wire.ResultParts(m.ID, append(b, '}'))
}

// relayTaskMethod answers a legacy session's tasks/get, tasks/result or
// tasks/cancel of a relayed task; the client may cancel a waiting
// tasks/result with notifications/cancelled.
func (st *sessionTasks) relayTaskMethod(s *Session, m *wire.Message, out *wire.Stream, t *tasks.Task, rec *record.Record) [][]byte {
	ctx, end, refused := s.beginRequest(m, out)
	if refused != nil {
		return refused
	}
	defer end.Done()
	res, err := st.runner.RelayTask(rec.Context(ctx), t, m.Method, m.Params, &peer{s: s, out: out})
	if err != nil {
		if errors.Is(context.Cause(ctx), errClientCancelled) {
			return nil
		}
		return wire.ErrorParts(m.ID, err)
	}
	return wire.ResultParts(m.ID, res)
}

func orNull(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}
