package modern

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/taskrun"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is the open subscriptions/listen streams (SPEC §4.5): each
// one's queue, bounded by count and bytes, and the set of them, which
// the gateway's news reaches: list changes and tasks (here), relayed
// tasks (taskpoll.go) and resource updates (Updated). The listen request
// that opens a stream is served in listen.go.

// listener is one subscriptions/listen stream (MCP 2026-07-28
// basic/patterns/subscriptions, SPEC §3.10, §4.5, §4.8): acknowledged at
// once, then, tagged with the subscription id (the listen request's
// JSON-RPC id), notifications/{tools,prompts,resources}/list_changed
// whenever that merged list changes and the client asked for it, and
// notifications/resources/updated for the URIs of its
// resourceSubscriptions (registry.Subscriptions). It is written by its own
// handler from a queue, like a GET stream.
type listener struct {
	id json.RawMessage
	// lists are the list changes the client asked for, by registry.ListKind.
	lists [registry.ListKinds]bool
	// taskIDs are the caller's tasks whose notifications/tasks it
	// carries: gateway-made (notifyTask) or relayed (taskpoll.go).
	taskIDs map[string]bool
	// queue holds messages as parts, so that a task's DetailedTask (with
	// its result, up to the kept-results limit) is shared by every stream
	// that names it instead of copied into each; queued counts the bytes
	// waiting, bounded by listenQueueBytes.
	queue  chan [][]byte
	queued atomic.Int64

	once    sync.Once
	stopped chan struct{} // closed by stop: the gateway ends the subscription
}

func (l *listener) stop() { l.once.Do(func() { close(l.stopped) }) }

// listeners is the set of open subscriptions/listen streams: the listen
// requests it serves (listen.go), what the gateway tells them of list
// changes and of tasks (here) and of relayed tasks it polls for them
// (taskpoll.go).
type listeners struct {
	log    *slog.Logger
	reg    *registry.Registry      // what a stream may ask for (listen.go)
	subs   *registry.Subscriptions // its resourceSubscriptions upstream
	uris   *registry.Memory        // the modern callers' URI memory (Front's)
	table  *tasks.Table            // the tasks a stream may name
	runner *taskrun.Runner         // asks a relayed task's server (taskpoll.go)
	base   context.Context         // the polls' parent: shutdown ends them

	mu  sync.Mutex
	set map[*listener]struct{}
}

// add opens l to news; remove closes it.
func (ls *listeners) add(l *listener) {
	ls.mu.Lock()
	ls.set[l] = struct{}{}
	ls.mu.Unlock()
}

func (ls *listeners) remove(l *listener) {
	ls.mu.Lock()
	delete(ls.set, l)
	ls.mu.Unlock()
}

// listenQueue is how many messages wait for a listen stream's client,
// as for a legacy session's GET stream.
const listenQueue = 64

// listenQueueBytes bounds the bytes of the messages waiting on one
// subscriptions/listen stream (a client that does not read, or many
// streams naming tasks with large results, found by an adversarial
// review to take gigabytes): one more than fits is dropped, with a
// warning; tasks/get still answers it.
const listenQueueBytes = 16 << 20

// enqueue queues a message given as parts without blocking; it reports
// false when the queue is full, by count or by bytes, and the message was
// dropped.
func (l *listener) enqueue(parts ...[]byte) bool {
	n := int64(0)
	for _, p := range parts {
		n += int64(len(p))
	}
	if l.queued.Add(n) > listenQueueBytes && l.queued.Load() != n {
		l.queued.Add(-n)
		return false
	}
	select {
	case l.queue <- parts:
		return true
	default:
		l.queued.Add(-n)
		return false
	}
}

// dequeued returns a written message's bytes to the budget.
func (l *listener) dequeued(parts [][]byte) {
	n := int64(0)
	for _, p := range parts {
		n += int64(len(p))
	}
	l.queued.Add(-n)
}

// subscriptionMeta renders {"_meta":{"io.modelcontextprotocol/subscriptionId":id}} plus extra members.
func subscriptionMeta(id []byte, extra string) []byte {
	b := []byte(`{"_meta":{"` + metaSubscription + `":`)
	b = append(append(b, id...), '}')
	b = append(b, extra...)
	return append(b, '}')
}

// notifyLists sends kind's list_changed to every listener that asked
// for it (SPEC §4.5).
func (ls *listeners) notifyLists(kind registry.ListKind) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for l := range ls.set {
		if !l.lists[kind] {
			continue
		}
		if !l.enqueue(jsonrpc.Notification(kind.Method(), subscriptionMeta(l.id, ""))) {
			ls.log.Warn("subscriptions/listen stream full; notification dropped")
		}
	}
}

// stopAll ends every subscription gracefully.
func (ls *listeners) stopAll() {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for l := range ls.set {
		l.stop()
	}
}

// Updated queues a resource update on the listen stream, tagged with its
// subscription id.
func (l *listener) Updated(params json.RawMessage) {
	l.enqueue(registry.TaggedUpdate(params, l.id))
}

// A gateway-made task's news: the gateway tells a gateway-made task's creator, and only it, that the
// task changed (SPEC §4.7); the gateway's task runner reaches it through
// Options.TaskChanged, which sends a legacy session's own news there
// (package aggregator):
//
//   - a legacy session gets notifications/tasks/status (params: the Task)
//     on its GET stream when the task ends (MCP 2025-11-25: optional);
//   - a modern caller gets notifications/tasks (params: the DetailedTask,
//     tagged with the subscription id) on each subscriptions/listen stream
//     whose notifications.taskIds named the task, when it ends, is
//     cancelled or needs input (io.modelcontextprotocol/tasks, "Task
//     Status Notifications"); a task already ended when the subscription
//     starts is sent at once. The acknowledgement lists the ids agreed:
//     the caller's own tasks; other ids are left out. For a relayed task
//     (a modern server's own) the gateway polls the server while such a
//     stream listens (taskpoll.go);
//   - a server's own notifications/tasks/status for a relayed task goes to
//     the legacy session that created it, with the gateway's task id
//     (aggregator's Gateway.TaskStatus).

// notifyTask queues a modern caller's task t on each stream that named it.
func (ls *listeners) notifyTask(t *tasks.Task) {
	params := t.RenderModern("", true)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	for l := range ls.set {
		if l.taskIDs[t.ID] {
			ls.queueTask(l, params)
		}
	}
}

// queueTask queues notifications/tasks with a DetailedTask (params, an
// object) on l: the message's parts share params' bytes, so that the
// streams naming one task hold one copy of its result between them.
func (ls *listeners) queueTask(l *listener, params json.RawMessage) {
	head := jsonrpc.Notification("notifications/tasks", subscriptionMeta(l.id, ""))
	head = head[:len(head)-2]            // {"jsonrpc":…,"params":{"_meta":{…}
	body := jsonrpc.TrimLeft(params)[1:] // the members, then the closing brace
	if t := jsonrpc.TrimLeft(body); len(t) > 0 && t[0] != '}' {
		head = append(head, ',')
	}
	if !l.enqueue(head, body, []byte("}")) {
		ls.log.Warn("subscriptions/listen stream full; notifications/tasks dropped (tasks/get still answers)")
	}
}

// notifyEnded queues, on a new subscription, the tasks it agreed on that
// have already ended: their last change came before it.
func (ls *listeners) notifyEnded(l *listener) {
	for id := range l.taskIDs {
		t := ls.table.Lookup(id)
		if t == nil || t.Kind == tasks.KindRelayed {
			continue // a relayed task's changes are polled (taskpoll.go)
		}
		select {
		case <-t.Done:
			ls.queueTask(l, t.EndedModern())
		default:
		}
	}
}
