package modern

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file serves subscriptions/listen (MCP 2026-07-28
// basic/patterns/subscriptions, SPEC §3.10, §4.5, §4.8): what a listen
// request asks for (its notifications filter: the lists, the taskIds of
// the caller's own tasks, the resourceSubscriptions), the acknowledgment
// of what the gateway agreed to, and the stream (listeners.go) written
// until the client or the gateway ends it.

// serve serves subscriptions/listen until the client closes the stream
// or the gateway ends it (EndStreams, at shutdown), which it does
// gracefully: with the listen request's response (Graceful Closure). The
// upstream subscriptions of its resourceSubscriptions are made before the
// acknowledgment, which names the URIs the gateway could subscribe to,
// and they end with the stream.
func (ls *listeners) serve(w http.ResponseWriter, r *http.Request, req *modernReq) {
	filter, _ := jsonrpc.Member(req.Params, "notifications")
	taskIDs, taskAck, err := ls.listenTasks(r, req, filter)
	if err != nil {
		wire.WriteParts(w, modernErrorStatus(err), wire.ErrorParts(req.ID, err))
		return
	}
	l := &listener{id: req.ID, taskIDs: taskIDs, queue: make(chan [][]byte, listenQueue), stopped: make(chan struct{})}
	offered := ls.reg.Capabilities()
	var agreed []string
	for k := range registry.ListKinds {
		want, _ := jsonrpc.Member(filter, k.Filter())
		if l.lists[k] = string(want) == "true" && offered.Lists(k); l.lists[k] {
			agreed = append(agreed, `"`+k.Filter()+`":true`)
		}
	}
	out := wire.NewStream(w, true)
	defer out.Done()
	ls.add(l)
	defer func() {
		ls.remove(l)
		ls.subs.DropAll(l) // registry.Subscriptions
	}()
	if uris := ls.subscribeListed(r.Context(), l, filter); uris != "" {
		agreed = append(agreed, uris)
	}
	if taskAck != "" {
		agreed = append(agreed, taskAck[1:])
	}
	w.Header().Set("X-Accel-Buffering", "no")
	if out.Event(jsonrpc.Notification("notifications/subscriptions/acknowledged", subscriptionMeta(l.id, `,"notifications":{`+strings.Join(agreed, ",")+`}`))) != nil {
		return
	}
	ls.notifyEnded(l) // listeners.go
	// Relayed tasks are polled while the stream lasts (taskpoll.go).
	defer ls.pollRelayed(l, req.caps)()
	out.KeepAlive(wire.KeepAliveEvery)
	for {
		select {
		case msg := <-l.queue:
			err := out.Event(msg...)
			l.dequeued(msg)
			if err != nil {
				return
			}
		case <-l.stopped:
			out.Finish(wire.ResultParts(l.id, []byte(`{"resultType":"complete","_meta":{"`+metaSubscription+`":`+string(l.id)+`}}`))...)
			return
		case <-r.Context().Done():
			return
		}
	}
}

// listenTasks reads a subscriptions/listen's notifications.taskIds: the
// ones agreed (the caller's own tasks) and their acknowledgement
// member (`,"taskIds":[…]`, or "" when none were asked for). A caller
// that asks without declaring the extension gets -32021.
func (ls *listeners) listenTasks(r *http.Request, req *modernReq, filter json.RawMessage) (map[string]bool, string, error) {
	raw, ok := jsonrpc.Member(filter, "taskIds")
	if !ok {
		return nil, "", nil
	}
	if !wantsTasks(req.caps) {
		return nil, "", &jsonrpc.Error{Code: codeMissingCapability, Message: "Missing required client capability: notifications.taskIds needs the " + extTasks + " extension",
			Data: json.RawMessage(`{"requiredCapabilities":{"extensions":{"` + extTasks + `":{}}}}`)}
	}
	var asked []string
	_ = json.Unmarshal(raw, &asked)
	agreed := map[string]bool{}
	ack := []byte(`,"taskIds":[`)
	owner := tokenOwner(r)
	for _, id := range asked {
		if _, err := ls.table.Get(id, owner); err == nil && !agreed[id] {
			if len(agreed) > 0 {
				ack = append(ack, ',')
			}
			agreed[id] = true
			ack = append(ack, jsonrpc.Quote(id)...)
		}
	}
	return agreed, string(append(ack, ']')), nil
}

// subscribeListed subscribes a listen stream to the URIs of its filter's
// resourceSubscriptions, each routed as resources/read is, and returns
// the acknowledgment's member naming those it could subscribe to ("" when
// it asked for none, or got none). A URI no server owns, or whose server
// refuses, is left out, as MCP's acknowledgment leaves out what a server
// does not honor.
func (ls *listeners) subscribeListed(ctx context.Context, l *listener, filter json.RawMessage) string {
	raw, _ := jsonrpc.Member(filter, "resourceSubscriptions")
	var uris []string
	if len(raw) == 0 || json.Unmarshal(raw, &uris) != nil || len(uris) == 0 {
		return ""
	}
	var agreed []string
	seen := map[string]bool{}
	for _, uri := range uris {
		if seen[uri] {
			continue
		}
		seen[uri] = true
		u := ls.reg.Owner(uri, ls.uris)
		if u == nil {
			continue
		}
		if err := ls.subs.Add(ctx, u, uri, l); err != nil {
			ls.log.Info("subscriptions/listen: resource subscription refused", "server", u.Name(), "uri", uri, "error", err.Error())
			continue
		}
		agreed = append(agreed, string(jsonrpc.Quote(uri)))
	}
	if len(agreed) == 0 {
		return ""
	}
	return `"resourceSubscriptions":[` + strings.Join(agreed, ",") + `]`
}
