package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/trace"

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

// Task statuses (MCP 2025-11-25 TaskStatus).
const (
	taskWorking   = "working"
	taskInput     = "input_required"
	taskCompleted = "completed"
	taskFailed    = "failed"
	taskCancelled = "cancelled"
)

// metaRelatedTask is the _meta key tying a message to its task.
const metaRelatedTask = "io.modelcontextprotocol/related-task"

// taskAsk is a server-to-client request of a gateway-made task, waiting
// for a tasks/result stream to carry it to the client.
type taskAsk struct {
	key    string // modern: its inputRequests key
	method string
	params json.RawMessage
	reply  chan taskReply // buffered 1
}

type taskReply struct {
	res json.RawMessage
	err error
}

// errTaskCancelled is the cause a tasks/cancel cancels the call with; the
// server gets notifications/cancelled.
var errTaskCancelled = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task was cancelled (tasks/cancel) before it finished"}

// newTask is a working gateway-made task (taskMade) of owner's, a legacy
// session, with ttl.
func newTask(owner string, ttl time.Duration) *task {
	t := newMadeTask(owner, ttl, taskMade)
	t.asks = make(chan *taskAsk)
	return t
}

// newMadeTask is a working task of kind, made by the gateway, with the
// madeTask part (whose ctx and cancel startTask sets).
func newMadeTask(owner string, ttl time.Duration, kind taskKind) *task {
	now := time.Now()
	return &task{id: newTaskID(), owner: owner, kind: kind, created: now, ttl: ttl,
		madeTask: &madeTask{status: taskWorking, updated: now, done: make(chan struct{})}}
}

// startTask registers t, a gateway-made task (newTask), and starts its
// call c (routed and checked) on a context of its own, with a taskPeer
// over base; bound, if non-nil, ends the task when it ends (a legacy
// session). A task the server makes of the call, in the other era, is
// followed (follow).
func (h *handler) startTask(t *task, c upstreamCall, bound context.Context, base supervisor.Peer) error {
	ctx, cancel := context.WithCancelCause(h.baseCtx)
	t.ctx, t.cancel = ctx, cancel
	if t.trace.IsValid() {
		ctx = trace.ContextWithSpanContext(ctx, t.trace) // its call is in the trace of the call that made it
	}
	if err := h.tasks.add(t); err != nil {
		cancel(nil)
		return err
	}
	if bound != nil {
		h.bindTask(t, bound, func() { h.tasks.remove(t, errTaskSession) })
	}
	h.tasks.wg.Add(1)
	go func() {
		defer h.tasks.wg.Done()
		defer close(t.done)
		defer cancel(nil)
		c.peer = &taskPeer{t: t, base: base}
		res, err := h.follow(ctx, c, t.kind == taskModern) // taskfollow.go
		h.finishTask(t, res, err)
	}()
	return nil
}

// bindTask runs end on a goroutine of its own when bound (t's legacy
// session) ends, and sets t.unbind to stop it (remove calls it). The hook
// counts in h.tasks.wg until it has run or been stopped, so cancelAll
// waits for it; it waits for t.unbind to be set, since with bound ended
// already it starts at once (a data race, found by go test -race).
func (h *handler) bindTask(t *task, bound context.Context, end func()) {
	h.tasks.wg.Add(1)
	ready := make(chan struct{})
	stop := context.AfterFunc(bound, func() {
		defer h.tasks.wg.Done()
		<-ready
		end()
	})
	t.unbind = func() bool {
		if !stop() {
			return false
		}
		h.tasks.wg.Done()
		return true
	}
	close(ready)
}

// withoutNested is obj without obj[outer][inner], the rest of obj kept
// (outer re-encoded compact); obj as it is when outer is not an object or
// has no inner.
func withoutNested(obj json.RawMessage, outer, inner string) json.RawMessage {
	in, ok := jsonrpc.Member(obj, outer)
	if !ok || len(in) == 0 || in[0] != '{' {
		return obj
	}
	if _, ok := jsonrpc.Member(in, inner); !ok {
		return obj
	}
	out, err := jsonrpc.Replace(obj, outer, withoutMember(in, inner))
	if err != nil {
		return obj
	}
	return out
}

// withoutMember returns obj without its member key (compact).
func withoutMember(obj json.RawMessage, key string) json.RawMessage {
	fields, err := jsonrpc.Fields(obj)
	if err != nil {
		return obj
	}
	out := fields[:0]
	for _, f := range fields {
		if f.Key != key {
			out = append(out, f)
		}
	}
	return jsonrpc.Encode(out)
}

// finishTask records the call's outcome, unless the task was cancelled
// (it stays cancelled, MCP Task Cancellation). A result that does not fit
// TaskLimits.ResultBytes fails the task with a JSON-RPC error saying so.
func (h *handler) finishTask(t *task, res json.RawMessage, err error) {
	var rpcErr *jsonrpc.Error
	if err != nil && !errors.As(err, &rpcErr) {
		rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: err.Error()}
	}
	t.mu.Lock()
	cancelled := t.status == taskCancelled
	t.mu.Unlock()
	if cancelled {
		return // its result is not kept
	}
	kept := err != nil || h.tasks.keep(t, int64(len(res)))
	t.mu.Lock()
	if t.status == taskCancelled {
		t.mu.Unlock()
		return
	}
	if !kept && !t.isInline() { // an inline call's result is answered, not kept
		rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"keep task result: its %d bytes do not fit the gateway's room for kept task results (%d bytes in all)", len(res), h.tasks.lim.ResultBytes)}
		res = nil
	}
	switch {
	case rpcErr != nil:
		t.status, t.message, t.rpcErr = taskFailed, rpcErr.Message, rpcErr
	case isErrorResult(res):
		t.status, t.message, t.result = taskFailed, "the tool's result has isError true", res
	default:
		t.status, t.result = taskCompleted, res
	}
	t.updated = time.Now()
	t.mu.Unlock()
	h.taskChanged(t)
}

func isErrorResult(res json.RawMessage) bool {
	v, _ := jsonrpc.Member(res, "isError")
	return string(v) == "true"
}

// render is the Task object; call with t.mu held.
func (t *task) render() json.RawMessage {
	v := struct {
		TaskID        string `json:"taskId"`
		Status        string `json:"status"`
		StatusMessage string `json:"statusMessage,omitempty"`
		CreatedAt     string `json:"createdAt"`
		LastUpdatedAt string `json:"lastUpdatedAt"`
		TTL           int64  `json:"ttl"`
		PollInterval  int    `json:"pollInterval"`
	}{t.id, t.status, t.message, stamp(t.created), stamp(t.updated), t.ttl.Milliseconds(), taskPollInterval}
	b, _ := json.Marshal(v)
	return b
}

func stamp(ts time.Time) string { return ts.UTC().Format("2006-01-02T15:04:05.000Z") }

// snapshot is render under t.mu.
func (t *task) snapshot() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.render()
}

// cancelTask is tasks/cancel of a gateway-made task: a terminal task is
// -32602; otherwise it becomes cancelled at once and its call is
// cancelled upstream (the server gets notifications/cancelled).
func (t *task) cancelTask() (json.RawMessage, error) {
	t.mu.Lock()
	switch t.status {
	case taskCompleted, taskFailed, taskCancelled:
		st := t.status
		t.mu.Unlock()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Cannot cancel task: already in terminal status '%s'", st)}
	}
	t.status, t.message, t.updated = taskCancelled, "The task was cancelled by request.", time.Now()
	res := t.render()
	t.mu.Unlock()
	t.cancel(errTaskCancelled)
	return res, nil
}

// outcome is what tasks/result answers for a finished gateway-made task:
// exactly what the call would have answered, with the related-task _meta
// added to a result (MCP: tasks/result MUST include it).
func (t *task) outcome() (json.RawMessage, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.status == taskCancelled:
		return nil, errTaskCancelled
	case t.rpcErr != nil:
		return nil, t.rpcErr
	case t.result == nil:
		return nil, errTaskGone(t.id)
	}
	return withRelatedTask(t.result, t.id), nil
}

// withRelatedTask sets _meta["io.modelcontextprotocol/related-task"] of a
// result to {"taskId": id}, every other byte kept.
func withRelatedTask(res json.RawMessage, id string) json.RawMessage {
	rel := []byte(`{"taskId":` + string(jsonrpc.Quote(id)) + `}`)
	meta, ok := jsonrpc.Member(res, "_meta")
	if !ok || len(meta) == 0 || meta[0] != '{' {
		meta = []byte("{}")
	}
	meta, err := jsonrpc.Replace(meta, metaRelatedTask, rel)
	if err != nil {
		return res
	}
	out, err := jsonrpc.Replace(res, "_meta", meta)
	if err != nil {
		return res
	}
	return out
}

// setStatus moves a running task between working and input_required.
func (t *task) setStatus(status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == taskWorking || t.status == taskInput {
		t.status, t.updated = status, time.Now()
	}
}

// taskPeer is the supervisor.Peer of a gateway-made task's call: progress
// and log messages go to the tasks/result response attached, if any (else
// they are dropped); a server-to-client request moves the task to
// input_required and waits for a tasks/result to carry it.
type taskPeer struct {
	t    *task
	base supervisor.Peer // the caller's, for Session and Client
}

var _ supervisor.Peer = (*taskPeer)(nil)

func (p *taskPeer) Notify(_ context.Context, method string, params json.RawMessage) {
	p.t.mu.Lock()
	out, modern := p.t.out, p.t.modernTask
	level := ""
	if modern != nil {
		level = modern.level
	}
	p.t.mu.Unlock()
	if out == nil || (modern != nil && !logPasses(method, params, level)) {
		return
	}
	_ = out.Event(jsonrpc.Notification(method, params))
}

func (p *taskPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	a := &taskAsk{method: method, params: params, reply: make(chan taskReply, 1)}
	if p.t.kind == taskModern {
		return p.t.askModern(ctx, a)
	}
	p.t.setStatus(taskInput)
	defer p.t.setStatus(taskWorking)
	select {
	case p.t.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case r := <-a.reply:
		return r.res, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *taskPeer) ClientID() string              { return p.base.ClientID() }
func (p *taskPeer) Client() supervisor.ClientInfo { return p.base.Client() }
