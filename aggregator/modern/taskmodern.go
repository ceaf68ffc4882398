package modern

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/auth"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/taskrun"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file serves the 2026-07-28 tasks extension (io.modelcontextprotocol/
// tasks, SEP-2663; SPEC §4.7) to modern callers that declare it in their
// request's clientCapabilities.extensions. The server decides whether a
// call becomes a task:
//
//   - A modern server decides itself: its {"resultType": "task", "taskId",
//     …} comes back as sent but for taskId, a gateway id bound to the
//     caller's token and naming the server's process (bridge.go, relayTask).
//   - For a legacy server (which has no tasks) the gateway decides: a call
//     still running after taskAfter, or asking the client for input, becomes
//     a gateway-made task; one that ends sooner is answered as usual, and
//     so is every call while the caller or the gateway is at a task limit.
//     A tool the legacy server marked execution.taskSupport "required" is
//     called with "task" params and the server's task followed
//     (taskfollow.go); at a task limit, such a call gets the limit's error.
//
// tasks/get answers a DetailedTask: {"resultType": "complete", "taskId",
// "status", "statusMessage"?, "createdAt", "lastUpdatedAt", "ttlMs",
// "pollIntervalMs"} plus "result" (completed), "error" (failed: a JSON-RPC
// error) or "inputRequests" ({key: {"method", "params"}}: input_required).
// tasks/update gives the call the client's inputResponses; tasks/cancel
// cancels it upstream. Both acknowledge with {"resultType": "complete"}.
// The Mcp-Name header must carry the taskId.

// taskAfter is how long a modern caller's call to a legacy server runs
// before the gateway makes it a task. It sits well under a second: the
// tasks extension's scenarios treat a call of one second (slow_compute
// {"seconds": 1}, failing_job) as one that makes a task, and at a 1 s
// threshold such a call raced the timer by the milliseconds of its
// transport. It equals taskPollInterval, so a call that just misses it
// is answered about as soon as a poll would have seen it end.
const taskAfter = 500 * time.Millisecond

var ackComplete = json.RawMessage(`{"resultType":"complete"}`)

// modernTasks serves the tasks extension over the gateway's router, task
// runner and table: a modern tools/call made a task (call), its
// "task" member dropped for a legacy server (dropLegacy), and tasks/get,
// tasks/update, tasks/cancel (serve). changed is Options.TaskChanged;
// uris is the modern callers' URI memory (Front's).
type modernTasks struct {
	router  *relay.Router
	runner  *taskrun.Runner
	table   *tasks.Table
	uris    *registry.Memory
	changed func(t *tasks.Task)
}

func tokenOwner(r *http.Request) string {
	tok, _ := auth.Bearer(r.Header.Get("Authorization"))
	return "token:" + auth.TokenDigest(tok)
}

// call runs a modern tools/call to a legacy server as a
// gateway-made task when the caller declares the extension, and reports
// whether it did; otherwise Front's modernCall serves the call. A retry that
// carries a requestState is modernCall's (an MRTR round, SPEC §4.6).
//
// Until the task is announced (taskAfter, or the call asks for input) the
// caller waits inline, as for any call: the call's progress and log
// messages travel on its response, which honours Accept, and a result
// that ends the call meanwhile is its answer, not counted against the
// kept-results room (it is not kept).
func (mt *modernTasks) call(w http.ResponseWriter, r *http.Request, req *modernReq) bool {
	if !wantsTasks(req.caps) || req.hasState || req.progressErr != nil {
		return false
	}
	c, err := modernRoute(mt.router, req)
	if err != nil || c.Route.Upstream.Status().Era == supervisor.EraModern || checkParamHeaders(r, req.Params, c.ParamHeaders()) != nil {
		return false
	}
	c.Mem = mt.uris
	out := wire.NewStream(w, req.accept.sse)
	t := tasks.NewMade(tokenOwner(r), mt.table.Lim.DefaultTTL, tasks.KindModern)
	t.Out, t.Trace = out, req.rec.SpanContext()
	t.Modern = &tasks.Modern{Caps: req.caps, Asked: make(chan struct{}, 1), OnAsk: mt.changed, Inline: true, Level: req.level}
	base := &modernBase{id: t.ID, info: supervisor.ClientInfo{Capabilities: req.caps, Info: req.info, LogLevel: req.level}}
	if err := mt.runner.StartTask(t, c, nil, base); err != nil {
		// Past a task limit the call is served without a task, but for a
		// tool that runs only as one, whose server would refuse a plain
		// call: the limit is its answer (the chaos soak, at 100 tasks a
		// token, got the server's "requires task augmentation").
		var limit *jsonrpc.Error
		if c.Route.TaskSupport != "required" || !errors.As(err, &limit) {
			return false
		}
		named := &jsonrpc.Error{Code: limit.Code, Message: fmt.Sprintf("tool %s of server %q runs only as a task: %s", c.Name, c.Route.Upstream.Name(), limit.Message)}
		req.rec.Routed(c.Name, c.Route.Upstream.Name(), c.Route.Name)
		out.FinishStatus(modernErrorStatus(named), req.rec.ErrorParts(req.ID, named)...)
		out.Done()
		return true
	}
	req.rec.Routed(c.Name, c.Route.Upstream.Name(), c.Route.Name)
	defer out.Done()
	if !req.accept.json && out.OpenSSE() != nil {
		mt.table.Remove(t, errClientCancelled)
		req.rec.Cancelled()
		return true
	}
	wait := time.NewTimer(taskAfter)
	defer wait.Stop()
	select {
	case <-t.Done:
	case <-wait.C:
	case <-t.Asked:
	case <-r.Context().Done():
		mt.table.Remove(t, errClientCancelled)
		req.rec.Cancelled()
		out.Close()
		return true
	}
	if t.Announce() {
		res := t.RenderModern("task", false)
		req.rec.Task(t.ID, res)
		out.Finish(wire.ResultParts(req.ID, res)...)
		return true
	}
	mt.answerInline(t, req, out)
	return true
}

// answerInline answers a call that ended before its task was announced
// with its outcome, and drops the task.
func (mt *modernTasks) answerInline(t *tasks.Task, req *modernReq, out *wire.Stream) {
	<-t.Done
	t.Mu.Lock()
	res, rpcErr := t.Result, t.RPCErr
	t.Mu.Unlock()
	mt.table.Remove(t, nil)
	if rpcErr != nil {
		out.FinishStatus(modernErrorStatus(rpcErr), req.rec.ErrorParts(req.ID, rpcErr)...)
		return
	}
	req.rec.Result(res)
	out.Finish(modernResultParts(req.ID, res)...)
}

// dropLegacy removes a 2025-11-25 "task" member from a modern
// caller's tools/call params bound for a legacy server. The tasks
// extension has no such param (a server tolerates it and makes no task of
// it, SEP-2663); relayed to a legacy server that has tasks, it would make
// a 2025-11-25 task whose {"task": …} and server-side id the modern caller
// could never use. A modern server gets it as sent (SPEC §4.3).
func (mt *modernTasks) dropLegacy(req *modernReq) {
	if !req.hasTask {
		return
	}
	c, err := modernRoute(mt.router, req)
	if err != nil || c.Route.Upstream.Status().Era == supervisor.EraModern {
		return
	}
	req.Params = jsonrpc.Without(req.Params, "task")
}

// modernBase is the ClientID and Client of a modern gateway-made task (or
// of the gateway's own polls for a modern caller).
type modernBase struct {
	id   string
	info supervisor.ClientInfo
}

func (b *modernBase) Notify(context.Context, string, json.RawMessage) {}
func (b *modernBase) Request(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no client to ask"}
}
func (b *modernBase) ClientID() string              { return "modern-task:" + b.id }
func (b *modernBase) Client() supervisor.ClientInfo { return b.info }

// serve answers tasks/get, tasks/update and tasks/cancel of a
// modern caller (Mcp-Name: the taskId). A caller without the extension
// gets -32021; a task it does not own, -32602.
func (mt *modernTasks) serve(w http.ResponseWriter, r *http.Request, req *modernReq) {
	if !wantsTasks(req.caps) {
		wire.WriteParts(w, http.StatusBadRequest, wire.ErrorParts(req.ID, &jsonrpc.Error{Code: codeMissingCapability,
			Message: "Missing required client capability: " + req.Method + " needs the " + extTasks + " extension",
			Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + extTasks + `":{}}}}`)}))
		return
	}
	raw, _ := jsonrpc.Member(req.Params, "taskId")
	id, ok := jsonrpc.Text(raw)
	if !ok {
		wire.WriteParts(w, http.StatusOK, wire.ErrorParts(req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + req.Method + " needs a string \"taskId\""}))
		return
	}
	if e := checkHeader(r, "Mcp-Name", id, true); e != nil {
		e.ID = req.ID
		wire.WriteError(w, e)
		return
	}
	t, err := mt.table.Get(id, tokenOwner(r))
	if err != nil {
		wire.WriteParts(w, modernErrorStatus(err), wire.ErrorParts(req.ID, err))
		return
	}
	req.rec.Follows(t.Trace) // the task's methods join the trace of the call that made it
	var res json.RawMessage
	switch {
	case t.Kind == tasks.KindRelayed:
		res, err = mt.runner.RelayTask(req.rec.Context(r.Context()), t, req.Method, req.Params, &modernBase{id: t.ID, info: supervisor.ClientInfo{Modern: true}})
	case req.Method == "tasks/get":
		res = t.RenderModern("complete", true)
	case req.Method == "tasks/update":
		responses, _ := jsonrpc.Member(req.Params, "inputResponses")
		t.Update(responses)
		res = ackComplete
	default: // tasks/cancel: acknowledged, even for a task already ended
		if _, err := t.CancelTask(); err == nil {
			mt.changed(t)
		}
		res = ackComplete
	}
	if err != nil {
		wire.WriteParts(w, modernErrorStatus(err), wire.ErrorParts(req.ID, err))
		return
	}
	wire.WriteResult(w, req.ID, res)
}

// taskRequired refuses a modern call without the tasks extension to a
// legacy tool (exported as name) marked execution.taskSupport "required"
// with -32021, as the extension has a server refuse such a caller; the
// legacy server would answer a plain call -32601. A caller with the
// extension gets a gateway-made task (modernTasks.call), or, past a task
// limit, the limit's error.
func taskRequired(caps json.RawMessage, name string, rt registry.Route) error {
	if rt.TaskSupport != "required" || wantsTasks(caps) || rt.Upstream.Status().Era == supervisor.EraModern {
		return nil
	}
	return &jsonrpc.Error{Code: codeMissingCapability,
		Message: "Missing required client capability: tool " + name + " requires a task, which needs the " + extTasks + " extension",
		Data:    json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + extTasks + `":{}}}}`)}
}
