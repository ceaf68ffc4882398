package aggregator

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file delivers a server's notifications/resources/updated to the
// clients the registry's subscriptions name (registry.Subscriptions, SPEC
// §4.8), each in its era's way: a legacy session on its GET stream, a
// modern client's subscriptions/listen stream tagged with its id.

// ResourceUpdated relays a server's notifications/resources/updated for
// the subscribed uri to the clients subscribed to it (SPEC §4.8). The
// daemon calls it from supervisor.Options.OnResourceUpdated; it does not
// block.
func (g *Gateway) ResourceUpdated(server, uri string, params json.RawMessage) {
	g.h.subs.Deliver(server, uri, params)
}

// taggedUpdate renders notifications/resources/updated with params as
// the server sent them but for _meta's subscription id, which becomes
// id's (a modern client's listen) or goes (a legacy session: a modern
// server's own id means nothing to the client). A _meta left empty goes
// too; one added comes first.
func taggedUpdate(params json.RawMessage, id json.RawMessage) []byte {
	fields, _ := jsonrpc.Fields(params) // nil: params were not an object
	metaAt := -1
	var meta []jsonrpc.Field
	for i, f := range fields {
		if f.Key == "_meta" {
			metaAt = i
			meta, _ = jsonrpc.Fields(f.Value)
		}
	}
	kept := meta[:0:0]
	for _, f := range meta {
		if f.Key != metaSubscription {
			kept = append(kept, f)
		}
	}
	if id != nil {
		kept = append(kept, jsonrpc.Field{Key: metaSubscription, Value: id})
	}
	switch {
	case metaAt >= 0 && len(kept) > 0:
		fields[metaAt].Value = jsonrpc.Encode(kept)
	case metaAt >= 0:
		fields = append(fields[:metaAt:metaAt], fields[metaAt+1:]...)
	case len(kept) > 0:
		fields = append([]jsonrpc.Field{{Key: "_meta", Value: jsonrpc.Encode(kept)}}, fields...)
	}
	return jsonrpc.Notification("notifications/resources/updated", jsonrpc.Encode(fields))
}

// Updated queues a resource update on the session's GET stream; a session
// without one misses it, as the transport allows.
func (s *session) Updated(params json.RawMessage) {
	s.mu.Lock()
	g := s.get
	s.mu.Unlock()
	if g != nil {
		g.send(taggedUpdate(params, nil))
	}
}

// Updated queues a resource update on the listen stream, tagged with its
// subscription id.
func (l *listener) Updated(params json.RawMessage) {
	l.enqueue(taggedUpdate(params, l.id))
}
