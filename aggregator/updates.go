package aggregator

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
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

// Updated queues a resource update on the listen stream, tagged with its
// subscription id.
func (l *listener) Updated(params json.RawMessage) {
	l.enqueue(registry.TaggedUpdate(params, l.id))
}
