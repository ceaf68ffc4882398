package taskrun

import (
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

// This file makes tasks for servers that have none (MCP 2025-11-25
// basic/utilities/tasks; SPEC §4.7). A tools/call with "task" params to a
// tool whose server did not mark it execution.taskSupport "optional" or
// "required" becomes a gateway-made task: the client gets a
// CreateTaskResult at once ({"task": Task}), the call runs on upstream
// apart from the request (its "task" member removed: the server did not
// declare tasks for it, and MCP says such a server ignores it), and the
// gateway answers tasks/get, tasks/result, tasks/list and tasks/cancel
// itself. Task is
//
//	{"taskId", "status", "statusMessage"?, "createdAt", "lastUpdatedAt"
//	 (RFC 3339, ms), "ttl" (ms), "pollInterval" (ms)}
//
// status: working, input_required (a server-to-client request waits for
// the client's tasks/result), completed, failed (a JSON-RPC error, or a
// result with isError true), cancelled.

// Runner runs the calls of tasks for callers of both eras: the
// gateway-made ones (this file), a server's own task followed for a
// caller of the other era (follow.go), and a server's own task relayed
// to its caller (relayed.go). It holds the task table; it tells the
// fronts of a task's new state through changed, and reaches servers
// through package relay.
type Runner struct {
	table *tasks.Table
	base  context.Context // every task's call's parent; shutdown ends them
	// changed is told of every task whose state a call moved.
	changed func(*tasks.Task)
}

// New makes the runner of table's tasks: their calls run under base
// (shutdown cancels it), and changed is told of every task whose state a
// call moved (it must not block).
func New(table *tasks.Table, base context.Context, changed func(*tasks.Task)) *Runner {
	return &Runner{table: table, base: base, changed: changed}
}

// StartTask registers t, a gateway-made task (newTask), and starts its
// call c (routed and checked) on a context of its own, with a taskPeer
// over base; bound, if non-nil, ends the task when it ends (a legacy
// session). A task the server makes of the call, in the other era, is
// followed (follow).
func (tr *Runner) StartTask(t *tasks.Task, c relay.Call, bound context.Context, base supervisor.Peer) error {
	ctx, cancel := context.WithCancelCause(tr.base)
	t.Ctx, t.Cancel = ctx, cancel
	if t.Trace.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, t.Trace) // its call is in the trace of the call that made it
	}
	if err := tr.table.Add(t); err != nil {
		cancel(nil)
		return err
	}
	if bound != nil {
		tr.bindTask(t, bound, func() { tr.table.Remove(t, tasks.ErrSessionEnded) })
	}
	tr.table.WG.Add(1)
	go func() {
		defer tr.table.WG.Done()
		defer close(t.Done)
		defer cancel(nil)
		c.Peer = &taskPeer{t: t, base: base}
		res, err := tr.Follow(ctx, c, t.Kind == tasks.KindModern) // follow.go
		tr.finishTask(t, res, err)
	}()
	return nil
}

// bindTask runs end on a goroutine of its own when bound (t's legacy
// session) ends, and sets t.unbind to stop it (remove calls it). The hook
// counts in tr.table.wg until it has run or been stopped, so cancelAll
// waits for it; it waits for t.unbind to be set, since with bound ended
// already it starts at once (a data race, found by go test -race).
func (tr *Runner) bindTask(t *tasks.Task, bound context.Context, end func()) {
	tr.table.WG.Add(1)
	ready := make(chan struct{})
	stop := context.AfterFunc(bound, func() {
		defer tr.table.WG.Done()
		<-ready
		end()
	})
	t.Unbind = func() bool {
		if !stop() {
			return false
		}
		tr.table.WG.Done()
		return true
	}
	close(ready)
}

// Follow runs c (routed and checked), for a caller of either era
// (modernCaller), to an end without a server task of the other era
// (follow.go's file comment): its result, or the *jsonrpc.Error to answer.
func (tr *Runner) Follow(ctx context.Context, c relay.Call, modernCaller bool) (json.RawMessage, error) {
	return follow(ctx, tr.base, c, modernCaller)
}

// finishTask records the call's outcome, unless the task was cancelled
// (it stays cancelled, MCP Task Cancellation). A result that does not fit
// TaskLimits.ResultBytes fails the task with a JSON-RPC error saying so.
func (tr *Runner) finishTask(t *tasks.Task, res json.RawMessage, err error) {
	var rpcErr *jsonrpc.Error
	if err != nil && !errors.As(err, &rpcErr) {
		rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: err.Error()}
	}
	t.Mu.Lock()
	cancelled := t.Status == tasks.Cancelled
	t.Mu.Unlock()
	if cancelled {
		return // its result is not kept
	}
	kept := err != nil || tr.table.Keep(t, int64(len(res)))
	t.Mu.Lock()
	if t.Status == tasks.Cancelled {
		t.Mu.Unlock()
		return
	}
	if !kept && !t.IsInline() { // an inline call's result is answered, not kept
		rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"keep task result: its %d bytes do not fit the gateway's room for kept task results (%d bytes in all)", len(res), tr.table.Lim.ResultBytes)}
		res = nil
	}
	switch {
	case rpcErr != nil:
		t.Status, t.Message, t.RPCErr = tasks.Failed, rpcErr.Message, rpcErr
	case tasks.IsErrorResult(res):
		t.Status, t.Message, t.Result = tasks.Failed, "the tool's result has isError true", res
	default:
		t.Status, t.Result = tasks.Completed, res
	}
	t.Updated = time.Now()
	t.Mu.Unlock()
	tr.changed(t)
}

// taskPeer is the supervisor.Peer of a gateway-made task's call: progress
// and log messages go to the tasks/result response attached, if any (else
// they are dropped); a server-to-client request moves the task to
// input_required and waits for a tasks/result to carry it.
type taskPeer struct {
	t    *tasks.Task
	base supervisor.Peer // the caller's, for Session and Client
}

var _ supervisor.Peer = (*taskPeer)(nil)

func (p *taskPeer) Notify(_ context.Context, method string, params json.RawMessage) {
	p.t.Mu.Lock()
	out, modern := p.t.Out, p.t.Modern
	level := ""
	if modern != nil {
		level = modern.Level
	}
	p.t.Mu.Unlock()
	if out == nil || (modern != nil && !relay.LogPasses(method, params, level)) {
		return
	}
	_ = out.Event(jsonrpc.Notification(method, params))
}

func (p *taskPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	a := &tasks.Ask{Method: method, Params: params, Reply: make(chan tasks.Reply, 1)}
	if p.t.Kind == tasks.KindModern {
		if !relay.ClientCan(p.t.Caps, a.Method) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("%s: the calling client did not declare the %s capability", a.Method, relay.CapabilityOf(a.Method))}
		}
		return p.t.AskModern(ctx, a, relay.CapabilityOf(a.Method))
	}
	p.t.SetStatus(tasks.InputRequired)
	defer p.t.SetStatus(tasks.Working)
	select {
	case p.t.Asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-a.Reply:
		return r.Res, r.Err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *taskPeer) ClientID() string              { return p.base.ClientID() }
func (p *taskPeer) Client() supervisor.ClientInfo { return p.base.Client() }
