package taskrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file relays servers' own tasks (MCP 2025-11-25
// basic/utilities/tasks; SPEC §4.7). A tools/call with "task" params to a
// tool its server marked execution.taskSupport "optional" or "required"
// reaches the server byte for byte. A CreateTaskResult ({"task": {"taskId",
// …}}) comes back as sent but for task.taskId, which becomes a gateway
// task id (package tasks) naming the server, the process (run) that made
// the task and the server's own id. tasks/get, tasks/result and
// tasks/cancel of that id go to that process only (supervisor CallRun
// with its run), with taskId swapped back and forth; if the process has
// ended (crash, restart, removal) they fail at once with -32602 and the
// task is dropped: its state died with the process. When the legacy
// session that created the task ends, the task is dropped and cancelled
// on its server (bindRelayed).

// RegisterRelayed registers the server's own task in obj (its "taskId",
// and its TTL in member ttlKey) for owner, made by the call o. At a task
// limit the task, which nobody could reach, is cancelled on the server
// and the limit's error returned. Without a string taskId, obj is no task:
// nil and no error.
func (tr *Runner) RegisterRelayed(ctx context.Context, owner string, obj []byte, ttlKey string, o relay.Outcome, p supervisor.Peer) (*tasks.Task, error) {
	upID, ok := jsonrpc.Text(jsonrpc.Value(obj, "taskId"))
	if !ok {
		return nil, nil
	}
	ttl := tr.table.Lim.MaxTTL
	if raw, ok := jsonrpc.Member(obj, ttlKey); ok && string(raw) != "null" {
		ttl = tr.table.Lim.TTL(raw)
	}
	t := &tasks.Task{ID: tasks.NewID(), Owner: owner, Kind: tasks.KindRelayed, Created: time.Now(), TTL: ttl,
		Relayed: &tasks.Relayed{Up: o.Route.Upstream, Run: o.Served, UpID: upID}, Trace: trace.SpanContextFromContext(ctx)}
	if err := tr.table.Add(t); err != nil {
		_, _ = o.Route.Upstream.CallRun(ctx, o.Served, "tasks/cancel", []byte(`{"taskId":`+string(jsonrpc.Quote(upID))+`}`), p)
		return nil, err
	}
	return t, nil
}

// RelayCreate relays a task-augmented tools/call (routed) to a server
// that supports tasks; a CreateTaskResult is registered for owner (ending when
// bound ends, if non-nil) and its taskId rewritten. Any other result
// comes back as it is.
func (tr *Runner) RelayCreate(ctx context.Context, owner string, bound context.Context, c relay.Call) (json.RawMessage, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	o := relay.Do(ctx, c)
	if o.Err != nil {
		return nil, o.Err
	}
	res := o.Res
	obj, ok := jsonrpc.Member(res, "task")
	if !ok || len(obj) == 0 || obj[0] != '{' {
		return res, nil
	}
	t, err := tr.RegisterRelayed(ctx, owner, obj, "ttl", o, c.Peer)
	if t == nil {
		return res, err
	}
	if bound != nil {
		tr.bindRelayed(t, bound)
	}
	if obj, err = jsonrpc.Replace(obj, "taskId", jsonrpc.Quote(t.ID)); err == nil {
		res, err = jsonrpc.Replace(res, "task", obj)
	}
	return res, err
}

// bindRelayed ends the relayed task t when bound (its legacy session)
// ends: t is dropped, and cancelled on its server with tasks/cancel (MCP
// 2025-11-25 Task Cancellation: the server SHOULD stop it). A task is
// bound to the session that made it, so once the session is gone nobody
// can reach it through the gateway again; left alone, it would run on and
// hold the server's resources until its ttl for a result nobody can read.
// CancelAll waits for a tasks/cancel in flight (bindTask).
func (tr *Runner) bindRelayed(t *tasks.Task, bound context.Context) {
	tr.bindTask(t, bound, func() {
		tr.table.Remove(t, nil)
		ctx, cancel := context.WithTimeout(tr.base, RelayTimeout)
		defer cancel()
		_, _ = t.Up.CallRun(ctx, t.Run, "tasks/cancel", []byte(`{"taskId":`+string(jsonrpc.Quote(t.UpID))+`}`), nil)
	})
}

// RelayTask sends a task method to the process that owns t, with the
// server's task id, and returns the result with the gateway's task id:
// taskId for tasks/get and tasks/cancel, _meta's related-task for
// tasks/result.
func (tr *Runner) RelayTask(ctx context.Context, t *tasks.Task, method string, params json.RawMessage, p supervisor.Peer) (json.RawMessage, error) {
	if len(params) == 0 || params[0] != '{' {
		params = []byte("{}")
	}
	if err := relay.CheckTaskParams(params); err != nil {
		return nil, err
	}
	params, err := jsonrpc.Replace(params, "taskId", jsonrpc.Quote(t.UpID))
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + err.Error()}
	}
	if p != nil {
		p = relatedPeer{p, t}
	}
	rep, err := t.Up.CallRun(ctx, t.Run, method, params, p)
	res := rep.Result
	if errors.Is(err, supervisor.ErrRunEnded) {
		tr.table.Remove(t, nil)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"task %s is lost: the process of server %q that ran it has ended (crash, restart or removal)", t.ID, t.Up.Name())}
	}
	var rpcErr *jsonrpc.Error
	if err != nil && !errors.As(err, &rpcErr) && ctx.Err() == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: fmt.Sprintf("relay %s of task %s: %v", method, t.ID, err)}
	}
	if err != nil {
		return nil, err
	}
	if t := jsonrpc.TrimLeft(res); len(t) == 0 || t[0] != '{' {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("relay %s: the server's result is not a JSON object", method)}
	}
	if method == "tasks/result" {
		return tasks.WithRelatedTask(res, t.ID), nil
	}
	if _, ok := jsonrpc.Member(res, "taskId"); ok {
		return jsonrpc.Replace(res, "taskId", jsonrpc.Quote(t.ID))
	}
	return res, nil
}

// RelayTaskGet is tasks/get of a relayed task, within relayTimeout.
func (tr *Runner) RelayTaskGet(ctx context.Context, t *tasks.Task, p supervisor.Peer) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(ctx, RelayTimeout)
	defer cancel()
	return tr.RelayTask(ctx, t, "tasks/get", nil, p)
}

// relatedPeer carries what a relayed task's server sends its client while
// a task method is relayed: a request or notification whose _meta names
// the task (related-task, MCP 2025-11-25 tasks) names it by the gateway's
// id, never the server's own.
type relatedPeer struct {
	supervisor.Peer
	t *tasks.Task
}

func (rp relatedPeer) Notify(ctx context.Context, method string, params json.RawMessage) {
	rp.Peer.Notify(ctx, method, rp.rewrite(params))
}

func (rp relatedPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return rp.Peer.Request(ctx, method, rp.rewrite(params))
}

// rewrite swaps the server's task id in params._meta's related-task for
// the gateway's; other params are returned as they are.
func (rp relatedPeer) rewrite(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(tasks.MetaRelatedTask)) {
		return params
	}
	meta, _ := jsonrpc.Member(params, "_meta")
	rel, ok := jsonrpc.Member(meta, tasks.MetaRelatedTask)
	if id, _ := jsonrpc.Text(jsonrpc.Value(rel, "taskId")); !ok || id != rp.t.UpID {
		return params
	}
	return tasks.WithRelatedTask(params, rp.t.ID)
}
