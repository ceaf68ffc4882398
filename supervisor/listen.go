package supervisor

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// listenAckWait bounds the wait for a modern server to acknowledge one of
// the gateway's subscriptions/listen. At a start, past it the start goes on
// (with a log line): list changes the server tags with the subscription
// still count, and a server that never acknowledges costs a start no more
// than this. A resource subscription not acknowledged in time fails.
const listenAckWait = 5 * time.Second

// subscription is one of the gateway's own subscriptions/listen on one run
// of a modern server (MCP 2026-07-28 basic/patterns/subscriptions): a
// request the server never answers while the subscription lives. Its
// notifications carry its request id in _meta
// io.modelcontextprotocol/subscriptionId. The gateway holds one for the
// list changes the server declares (uri ""), opened by the handshake, and
// one per subscribed resource URI (subscribe.go). Each lives at most as
// long as the run: a restarted server gets new ones.
type subscription struct {
	id  int64
	uri string // the resource it watches; "" for the list changes

	ackOnce sync.Once
	acked   chan struct{}   // closed by notifications/subscriptions/acknowledged
	agreed  json.RawMessage // the acknowledgment's notifications filter, set before acked closes

	endOnce sync.Once
	ended   chan struct{} // closed when the server ends it
}

// listenFilter is the listen params asking for the list changes caps
// declare; "" when it declares none.
func listenFilter(caps Capabilities) string {
	var kinds []string
	for _, k := range []struct {
		on   bool
		name string
	}{{caps.ToolsListChanged, "toolsListChanged"}, {caps.PromptsListChanged, "promptsListChanged"}, {caps.ResourcesListChanged, "resourcesListChanged"}} {
		if k.on {
			kinds = append(kinds, `"`+k.name+`":true`)
		}
	}
	if len(kinds) == 0 {
		return ""
	}
	return `{"notifications":{` + strings.Join(kinds, ",") + `}}`
}

// listen sends subscriptions/listen with params (request _meta added) and
// keeps the subscription, for resource uri ("": the list changes, the
// connection's main one). It does not wait for the acknowledgment.
func (c *conn) listen(params, uri string) (*subscription, error) {
	stamped, _, err := c.modern.Load().stamp(json.RawMessage(params), nil)
	if err != nil {
		return nil, err
	}
	sub := &subscription{id: c.nextID.Add(1), uri: uri, acked: make(chan struct{}), ended: make(chan struct{})}
	c.mu.Lock()
	c.listens[sub.id] = sub
	c.mu.Unlock()
	if uri == "" {
		c.sub.Store(sub)
	}
	if err := c.transport.request(sub.id, "subscriptions/listen", stamped, jsonrpc.Request(jsonrpc.IntID(sub.id), "subscriptions/listen", stamped)); err != nil {
		c.dropListen(sub.id)
		return nil, err
	}
	return sub, nil
}

// cancelListen ends one of the gateway's subscriptions itself (MCP
// 2026-07-28: on stdio, notifications/cancelled referencing the listen;
// over HTTP, closing its stream: transport.cancel).
func (c *conn) cancelListen(sub *subscription) {
	if c.dropListen(sub.id) {
		c.transport.cancel(sub.id, jsonrpc.Notification("notifications/cancelled",
			[]byte(`{"requestId":`+string(jsonrpc.IntID(sub.id))+`,"reason":"the gateway's last client of this resource unsubscribed"}`)))
	}
}

// dropListen forgets subscription id; it reports whether it was live.
func (c *conn) dropListen(id int64) bool { return drop(c, c.listens, id) }

// listenByID returns the live subscription with id, or nil.
func (c *conn) listenByID(id int64) *subscription {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.listens[id]
}

// endSubscription records that the server ended a subscription, and logs
// it: for the list one, list changes are not followed for the rest of the
// run; a resource's updates stop until the server restarts.
func (c *conn) endSubscription(sub *subscription, why string) {
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

// taggedWith returns the gateway's subscription a notification's params
// are tagged with, or nil.
func (c *conn) taggedWith(params json.RawMessage) *subscription {
	meta := mustGet(params, "_meta")
	id, ok := jsonrpc.ParseIntID(mustGet(meta, metaSubscriptionID))
	if !ok {
		return nil
	}
	return c.listenByID(id)
}

// onSubscription tells whether a notification's params are tagged with
// the gateway's list subscription.
func (c *conn) onSubscription(params json.RawMessage) bool {
	sub := c.taggedWith(params)
	return sub != nil && sub.uri == ""
}

// subscriptionNote handles a server's acknowledgment of a subscription,
// and its notifications/cancelled naming one (the server tore it down;
// MCP 2026-07-28 basic/patterns/cancellation).
func (c *conn) subscriptionNote(msg *jsonrpc.Message) {
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
		if sub := c.listenByID(id); sub != nil {
			c.endSubscription(sub, "the server cancelled it")
		}
	}
}

// subscriptionEnded handles a response to a subscription: the server
// ended it, gracefully (a result) or not (an error, e.g. -32601).
func (c *conn) subscriptionEnded(id int64, msg *jsonrpc.Message) {
	sub := c.listenByID(id)
	if sub == nil {
		return
	}
	if len(msg.Error) > 0 {
		c.endSubscription(sub, jsonrpc.DecodeError(msg.Error).Error())
		return
	}
	c.endSubscription(sub, "the server closed it")
}

// openListen opens the run's subscription for list changes (filter, from
// listenFilter) and waits (up to listenAckWait) for the server to
// acknowledge it, so that no change made after the lists that follow is
// missed. A server that refuses or does not acknowledge in time is logged
// and run without it; only the run's death or ctx fail the start.
func (u *Upstream) openListen(ctx context.Context, r *run, filter string) error {
	sub, err := r.conn.listen(filter, "")
	if err != nil {
		return err
	}
	t := time.NewTimer(listenAckWait)
	defer t.Stop()
	select {
	case <-sub.acked:
	case <-sub.ended:
	case <-t.C:
		u.opts.Logger.Warn("server did not acknowledge subscriptions/listen in time; going on", "server", u.name, "wait", listenAckWait)
	case <-r.conn.dead:
		return r.conn.failure()
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}
