package modern

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/taskrun"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file tells a modern caller that a relayed task (a modern server's
// own task, taskmodern.go) changed, on each of the caller's
// subscriptions/listen streams whose notifications.taskIds named it
// (io.modelcontextprotocol/tasks, "Task Status Notifications"; SPEC §4.7).
//
// The gateway polls; it does not ask the server to push. While such a
// stream is open, the stream's own poller sends tasks/get for each of its
// relayed tasks to the server process that owns the task (relayTaskGet),
// every pollIntervalMs the server's last answer asked for (clamped to
// [taskrun.MinPoll, taskrun.MaxPoll]), and queues notifications/tasks whose params are
// that answer, with the gateway's task id and without resultType:
// the extension says each notification carries the DetailedTask
// "identical to what tasks/get would have returned at that moment". It
// does so when the status differs from the last one seen, the first being
// working (as the task was created): a task already ended or waiting for
// input is sent at once, as gateway-made ones are (listeners.go). A task
// that ends, is dropped (ttl) or is lost with its process is polled no
// more; nothing is polled while nobody listens.
//
// Why not the server's own notifications/tasks: the extension makes them
// a MAY, and a server acknowledges only the ids it agrees to, so a
// gateway relying on them would still need this poll; and asking for them
// would take a subscriptions/listen per creator on the server's one stdio
// stream, beside the supervisor's own (supervisor/listen.go), which asks
// for tool list changes only. The gateway never asks, so a server's
// notifications/tasks do not come (Gateway.TaskStatus drops any that do
// for a modern caller's task).

// relayedPoll is one relayed task a listen stream follows.
type relayedPoll struct {
	t    *tasks.Task
	last string // the status last seen
}

// pollRelayed starts polling the relayed tasks l agreed on, asking with
// the listening caller's capabilities caps. The returned stop ends the
// poll and waits for it; the listen handler calls it as it returns.
func (ls *listeners) pollRelayed(l *listener, caps json.RawMessage) (stop func()) {
	var polls []*relayedPoll
	for id := range l.taskIDs {
		if t := ls.table.Lookup(id); t != nil && t.Kind == tasks.KindRelayed {
			polls = append(polls, &relayedPoll{t: t, last: tasks.Working})
		}
	}
	if len(polls) == 0 {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ls.base)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ls.pollLoop(ctx, l, polls, &modernBase{info: supervisor.ClientInfo{Capabilities: caps, Modern: true}})
	}()
	return func() {
		cancel()
		<-done
	}
}

// pollLoop polls until ctx ends or no task is left to follow.
func (ls *listeners) pollLoop(ctx context.Context, l *listener, polls []*relayedPoll, p supervisor.Peer) {
	wait := time.NewTimer(0)
	defer wait.Stop()
	for len(polls) > 0 {
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		next := taskrun.MaxPoll
		kept := polls[:0]
		for _, rp := range polls {
			if every, again := ls.pollOnce(ctx, l, rp, p); again {
				kept = append(kept, rp)
				next = min(next, every)
			}
		}
		polls = kept
		wait.Reset(next)
	}
}

// pollOnce asks rp's server for its task and queues notifications/tasks
// on l if the status changed. It returns when to ask again, and whether to.
func (ls *listeners) pollOnce(ctx context.Context, l *listener, rp *relayedPoll, p supervisor.Peer) (time.Duration, bool) {
	if _, err := ls.table.Get(rp.t.ID, rp.t.Owner); err != nil {
		return 0, false // dropped: expired, or lost by an earlier ask
	}
	res, err := ls.runner.RelayTaskGet(ctx, rp.t, p)
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeInvalidParams {
		return 0, false // lost with its process, or unknown to its server
	}
	status, _ := jsonrpc.Text(jsonrpc.Value(res, "status"))
	if err != nil || status == "" {
		return tasks.PollInterval * time.Millisecond, ctx.Err() == nil
	}
	if status != rp.last {
		rp.last = status
		ls.queueTask(l, jsonrpc.Without(res, "resultType"))
	}
	switch status {
	case tasks.Completed, tasks.Failed, tasks.Cancelled:
		return 0, false
	}
	return taskrun.PollEvery(res, "pollIntervalMs"), true
}
