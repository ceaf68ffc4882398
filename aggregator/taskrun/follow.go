package taskrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file follows a server's own task for a caller of the other era
// (SPEC §4.7). A task lives in its caller's era; the gateway translates
// at the server, so a server's task never reaches a caller of the other
// era raw:
//
//   - A legacy caller's call to a modern server. Its session's
//     capabilities reach the server without the tasks extension
//     (peer.Client), so a plain call is answered as a plain call; a
//     gateway-made task's call declares it (tasksExtPeer). Either way a
//     {"resultType": "task"} the server answers is followed: tasks/get at
//     the server's pollIntervalMs (pollEvery's bounds) until it ends, its
//     result or error being the call's outcome.
//   - A modern caller's call to a legacy tool marked
//     execution.taskSupport "required" (the server refuses a plain call
//     with -32601) gets "task": {} added; the server's CreateTaskResult is
//     followed: tasks/get at its pollInterval while working, then
//     tasks/result, which carries the task's server-to-client requests to
//     the caller's peer and answers the outcome.
//
// The follower runs within the call's context: ended early (tasks/cancel
// of the gateway-made task, its caller gone, shutdown), it sends the
// server tasks/cancel with the server's id. A modern server's task that
// asks for input (input_required) is not relayed: the gateway cancels it
// and fails the call with errFollowInput.

// errFollowInput fails a followed modern task that asks for input.
var errFollowInput = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "follow task: the server's task asks for input " +
	"(input_required), which the gateway does not relay for a task it follows on behalf of a caller of the other era; the task was cancelled"}

// Follow runs c (routed and checked), for a caller of either era
// (modernCaller), to an end without a server task of the other era: see
// the file comment.
func (tr *Runner) Follow(ctx context.Context, c relay.Call, modernCaller bool) (json.RawMessage, error) {
	modernUp := c.Route.Upstream.Status().Era == supervisor.EraModern
	asked := modernCaller && !modernUp && c.Route.TaskSupport == "required" && !TaskParams(c.Params)
	if asked {
		var err error
		if c.Params, err = jsonrpc.Replace(c.Params, "task", []byte("{}")); err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + err.Error()}
		}
	}
	o := relay.Do(ctx, c)
	if o.Err != nil {
		return nil, o.Err
	}
	res := o.Res
	f := &follower{tr: tr, up: c.Route.Upstream, run: o.Served, p: c.Peer}
	switch {
	case asked:
		obj, _ := jsonrpc.Member(res, "task")
		if f.id, _ = jsonrpc.Text(jsonrpc.Value(obj, "taskId")); f.id == "" {
			return res, nil // answered without a task
		}
		return f.legacy(ctx)
	case modernUp && !modernCaller && isTask(res): // the result is scanned only then
		f.p = TasksExtPeer{c.Peer}
		if f.id, _ = jsonrpc.Text(jsonrpc.Value(res, "taskId")); f.id == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "follow task: the server's task result has no string taskId"}
		}
		return f.modern(ctx, res)
	}
	return res, nil
}

// isTask reports whether a result is a modern CreateTaskResult.
func isTask(res json.RawMessage) bool {
	raw, _ := jsonrpc.Member(res, "resultType")
	kind, _ := jsonrpc.Text(raw)
	return kind == "task"
}

// follower is one server task the gateway follows: its server, the
// process (run) that made it, its id there, and the peer to ask with.
type follower struct {
	tr  *Runner
	up  *supervisor.Upstream
	run uint64
	id  string
	p   supervisor.Peer
}

func (f *follower) params() json.RawMessage {
	return []byte(`{"taskId":` + string(jsonrpc.Quote(f.id)) + `}`)
}

// poll sends tasks/get every interval the last answer asks for (member
// key) until the status is no longer working; res is the first answer,
// if the server sent one already (a modern task's creation is a Task).
// Ended early, it cancels the server's task.
func (f *follower) poll(ctx context.Context, res json.RawMessage, key string) (json.RawMessage, string, error) {
	wait := time.NewTimer(0)
	defer wait.Stop()
	if res != nil {
		wait.Reset(PollEvery(res, key))
	}
	for {
		if status, _ := jsonrpc.Text(jsonrpc.Value(res, "status")); res != nil && status != tasks.Working {
			return res, status, nil
		}
		select {
		case <-ctx.Done():
			return nil, "", f.abandon(ctx, ctx.Err())
		case <-wait.C:
		}
		rep, err := f.up.CallRun(ctx, f.run, "tasks/get", f.params(), f.p)
		if err != nil {
			return nil, "", f.abandon(ctx, err)
		}
		res = rep.Result
		wait.Reset(PollEvery(res, key))
	}
}

// abandon cancels the server's task (tasks/cancel, within relayTimeout,
// its answer ignored: a task already ended answers -32602) and returns
// the error to fail the call with: the cause ctx ended with, or err.
func (f *follower) abandon(ctx context.Context, err error) error {
	cctx, cancel := context.WithTimeout(f.tr.base, RelayTimeout)
	defer cancel()
	_, _ = f.up.CallRun(cctx, f.run, "tasks/cancel", f.params(), f.p)
	if ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		return rpcErr
	case errors.Is(err, supervisor.ErrRunEnded):
		return &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: fmt.Sprintf(
			"follow task: the process of server %q that ran it has ended (crash, restart or removal)", f.up.Name())}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: fmt.Sprintf("follow task of server %q: %v", f.up.Name(), err)}
}

// modern follows a modern server's task (created: its CreateTaskResult)
// to its end: the DetailedTask's result (resultType removed: the caller
// is legacy) or error.
func (f *follower) modern(ctx context.Context, created json.RawMessage) (json.RawMessage, error) {
	res, status, err := f.poll(ctx, created, "pollIntervalMs")
	if err != nil {
		return nil, err
	}
	switch status {
	case tasks.Completed:
		if out, ok := jsonrpc.Member(res, "result"); ok && len(out) > 0 && out[0] == '{' {
			return jsonrpc.Without(out, "resultType"), nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "follow task: the server's completed task has no result object"}
	case tasks.Failed:
		if e, ok := jsonrpc.Member(res, "error"); ok {
			return nil, jsonrpc.DecodeError(e)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "follow task: the server's task failed without an error"}
	case tasks.InputRequired:
		return nil, f.abandon(ctx, errFollowInput)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("follow task: the server's task ended %s", orNull(jsonrpc.Value(res, "status")))}
}

// legacy follows a legacy server's task: tasks/get while it works, then
// tasks/result (which waits for the end and carries the task's
// server-to-client requests), its related-task _meta removed.
func (f *follower) legacy(ctx context.Context) (json.RawMessage, error) {
	if _, _, err := f.poll(ctx, nil, "pollInterval"); err != nil {
		return nil, err
	}
	rep, err := f.up.CallRun(ctx, f.run, "tasks/result", f.params(), f.p)
	res := rep.Result
	var rpcErr *jsonrpc.Error
	if err != nil && errors.As(err, &rpcErr) && ctx.Err() == nil {
		return nil, rpcErr // the task's own outcome
	}
	if err != nil {
		return nil, f.abandon(ctx, err)
	}
	return withoutRelatedTask(res), nil
}

// withoutRelatedTask removes _meta's related-task (it names the server's
// task id) from a result; a _meta left empty stays, as {}.
func withoutRelatedTask(res json.RawMessage) json.RawMessage {
	return withoutNested(res, "_meta", tasks.MetaRelatedTask)
}

// TasksExtPeer is a peer whose capabilities declare the tasks extension:
// a gateway-made task's call to a modern server (the gateway follows the
// task the server may make), and the follower's tasks/get and
// tasks/cancel (a server answers them only to a caller with the
// extension).
type TasksExtPeer struct{ supervisor.Peer }

func (e TasksExtPeer) Client() supervisor.ClientInfo {
	c := e.Peer.Client()
	c.Capabilities = withTasksExt(c.Capabilities)
	return c
}

// withTasksExt is caps with extensions["io.modelcontextprotocol/tasks"]
// set to {}.
func withTasksExt(caps json.RawMessage) json.RawMessage {
	if len(caps) == 0 || caps[0] != '{' {
		caps = []byte("{}")
	}
	ext, ok := jsonrpc.Member(caps, "extensions")
	if !ok || len(ext) == 0 || ext[0] != '{' {
		ext = []byte("{}")
	}
	ext, err := jsonrpc.Replace(ext, tasks.Extension, []byte("{}"))
	if err != nil {
		return caps
	}
	if out, err := jsonrpc.Replace(caps, "extensions", ext); err == nil {
		return out
	}
	return caps
}

// WithoutTasksExt is caps without extensions["io.modelcontextprotocol/
// tasks"]: what a legacy session declares to a modern server, whose task
// the legacy client could not use (see peer.Client).
func WithoutTasksExt(caps json.RawMessage) json.RawMessage {
	return withoutNested(caps, "extensions", tasks.Extension)
}

// TaskParams reports whether tools/call params ask for a task: a "task"
// member that is an object (TaskMetadata, MCP 2025-11-25).
func TaskParams(params json.RawMessage) bool {
	v, ok := jsonrpc.Member(params, "task")
	return ok && len(v) > 0 && v[0] == '{'
}

// The bounds of the interval between two polls of a relayed task.
const (
	MinPoll = 100 * time.Millisecond
	MaxPoll = 10 * time.Second
)

// PollEvery is the poll interval of a tasks/get answer (member key, ms:
// pollIntervalMs in the extension, pollInterval in 2025-11-25), within
// [MinPoll, MaxPoll]; tasks.PollInterval without one.
func PollEvery(res json.RawMessage, key string) time.Duration {
	var ms *float64
	if raw, ok := jsonrpc.Member(res, key); !ok || json.Unmarshal(raw, &ms) != nil || ms == nil {
		return tasks.PollInterval * time.Millisecond
	}
	return min(max(time.Duration(*ms*float64(time.Millisecond)), MinPoll), MaxPoll)
}

func orNull(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}
