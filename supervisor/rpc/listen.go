package rpc

import (
	"encoding/json"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Subscription is one of the gateway's own subscriptions/listen on one run
// of a modern server (MCP 2026-07-28 basic/patterns/subscriptions): a
// request the server never answers while the Subscription lives. Its
// notifications carry its request id in _meta
// io.modelcontextprotocol/subscriptionId. The gateway holds one for the
// list changes the server declares (uri ""), opened by the handshake, and
// one per subscribed resource URI (subscribe.go). Each lives at most as
// long as the run: a restarted server gets new ones.
type Subscription struct {
	id  int64
	uri string // the resource it watches; "" for the list changes

	ackOnce sync.Once
	acked   chan struct{}   // closed by notifications/subscriptions/acknowledged
	agreed  json.RawMessage // the acknowledgment's notifications filter, set before acked closes

	endOnce sync.Once
	ended   chan struct{} // closed when the server ends it
}

// ID is the subscription's request id; URI the resource it watches ("":
// the list changes).
func (s *Subscription) ID() int64   { return s.id }
func (s *Subscription) URI() string { return s.uri }

// Acked is closed once the server acknowledged the subscription; Agreed
// is then the acknowledgment's notifications filter, raw. Ended is closed
// once the server ended it.
func (s *Subscription) Acked() <-chan struct{}  { return s.acked }
func (s *Subscription) Agreed() json.RawMessage { return s.agreed }
func (s *Subscription) Ended() <-chan struct{}  { return s.ended }

// listen sends subscriptions/listen with params (request _meta added) and
// keeps the subscription, for resource uri ("": the list changes, the
// connection's main one). It does not wait for the acknowledgment.
func (c *Conn) Listen(params, uri string) (*Subscription, error) {
	stamped, _, err := c.modern.Load().stamp(json.RawMessage(params), nil)
	if err != nil {
		return nil, err
	}
	sub := &Subscription{id: c.nextID.Add(1), uri: uri, acked: make(chan struct{}), ended: make(chan struct{})}
	c.mu.Lock()
	c.listens[sub.id] = sub
	c.mu.Unlock()
	if uri == "" {
		c.sub.Store(sub)
	}
	if err := c.transport.Request(sub.id, "subscriptions/listen", stamped, jsonrpc.Request(jsonrpc.IntID(sub.id), "subscriptions/listen", stamped)); err != nil {
		c.dropListen(sub.id)
		return nil, err
	}
	return sub, nil
}

// cancelListen ends one of the gateway's subscriptions itself (MCP
// 2026-07-28: on stdio, notifications/cancelled referencing the listen;
// over HTTP, closing its stream: transport.cancel).
func (c *Conn) CancelListen(sub *Subscription) {
	if c.dropListen(sub.id) {
		c.transport.Cancel(sub.id, jsonrpc.Notification("notifications/cancelled",
			[]byte(`{"requestId":`+string(jsonrpc.IntID(sub.id))+`,"reason":"the gateway's last client of this resource unsubscribed"}`)))
	}
}

// dropListen forgets Subscription id; it reports whether it was live.
func (c *Conn) dropListen(id int64) bool { return drop(c, c.listens, id) }

// listenByID returns the live Subscription with id, or nil.
func (c *Conn) ListenByID(id int64) *Subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listens[id]
}

// endSubscription records that the server ended a subscription, and logs
// it: for the list one, list changes are not followed for the rest of the
// run; a resource's updates stop until the server restarts.
func (c *Conn) endSubscription(sub *Subscription, why string) {
	sub.endOnce.Do(func() {
		close(sub.ended)
		c.dropListen(sub.id)
		what := "its list changes are not followed until it restarts"
		if sub.uri != "" {
			what = "updates of " + truncate(sub.uri, 256) + " do not reach its subscribers until it restarts"
		}
		c.log.Line(c.name, "[gateway] the server ended the gateway's subscriptions/listen ("+truncate(c.log.Mask(why), 512)+"); "+what)
	})
}

// taggedWith returns the gateway's Subscription a notification's params
// are tagged with, or nil.
func (c *Conn) taggedWith(params json.RawMessage) *Subscription {
	meta := mustGet(params, "_meta")
	id, ok := jsonrpc.ParseIntID(mustGet(meta, metaSubscriptionID))
	if !ok {
		return nil
	}
	return c.ListenByID(id)
}

// onSubscription tells whether a notification's params are tagged with
// the gateway's list subscription.
func (c *Conn) onSubscription(params json.RawMessage) bool {
	sub := c.taggedWith(params)
	return sub != nil && sub.uri == ""
}

// subscriptionNote handles a server's acknowledgment of a subscription,
// and its notifications/cancelled naming one (the server tore it down;
// MCP 2026-07-28 basic/patterns/cancellation).
func (c *Conn) subscriptionNote(msg *jsonrpc.Message) {
	if msg.Method == "notifications/subscriptions/acknowledged" {
		if sub := c.taggedWith(msg.Params); sub != nil {
			sub.ackOnce.Do(func() {
				sub.agreed = mustGet(msg.Params, "notifications")
				close(sub.acked)
			})
		}
		return
	}
	if id, ok := jsonrpc.ParseIntID(mustGet(msg.Params, "requestId")); ok {
		if sub := c.ListenByID(id); sub != nil {
			c.endSubscription(sub, "the server cancelled it")
		}
	}
}

// subscriptionEnded handles a response to a subscription: the server
// ended it, gracefully (a result) or not (an error, e.g. -32601).
func (c *Conn) subscriptionEnded(id int64, msg *jsonrpc.Message) {
	sub := c.ListenByID(id)
	if sub == nil {
		return
	}
	if len(msg.Error) > 0 {
		c.endSubscription(sub, jsonrpc.DecodeError(msg.Error).Error())
		return
	}
	c.endSubscription(sub, "the server closed it")
}

// resourceUpdated hands a notifications/resources/updated to
// onResourceUpdated with the URI it is for: a modern server's names its
// Subscription (one tagged with none is not the gateway's, MCP 2026-07-28
// stdio, and is dropped); a legacy server's names its uri.
func (c *Conn) resourceUpdated(params json.RawMessage) {
	if c.onResourceUpdated == nil {
		return
	}
	if c.modern.Load() != nil {
		if sub := c.taggedWith(params); sub != nil && sub.uri != "" {
			c.onResourceUpdated(sub.uri, params)
		}
		return
	}
	if uri, ok := jsonrpc.Text(mustGet(params, "uri")); ok {
		c.onResourceUpdated(uri, params)
	}
}

func mustGet(obj json.RawMessage, key string) json.RawMessage {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	v, _ := jsonrpc.Member(obj, key)
	return v
}
