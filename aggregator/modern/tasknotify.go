package modern

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file tells a gateway-made task's creator, and only it, that the
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
