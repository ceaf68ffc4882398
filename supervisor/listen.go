package supervisor

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// listenAckWait bounds the wait for a modern server to acknowledge the
// gateway's subscriptions/listen during a start. Past it the start goes on
// (with a log line): tool list changes the server tags with the
// subscription still count, and a server that never acknowledges costs a
// start no more than this.
const listenAckWait = 5 * time.Second

// listenParams asks for tool list changes only: the gateway aggregates
// nothing else (SPEC §3.8).
const listenParams = `{"notifications":{"toolsListChanged":true}}`

// subscription is the gateway's own subscriptions/listen on one run of a
// modern server (MCP 2026-07-28 basic/patterns/subscriptions): a request
// the server never answers while the subscription lives. Its
// notifications carry its request id in _meta
// io.modelcontextprotocol/subscriptionId. It lives as long as the run: a
// restarted server gets a new one from its handshake.
type subscription struct {
	id int64

	ackOnce sync.Once
	acked   chan struct{} // closed by notifications/subscriptions/acknowledged

	endOnce sync.Once
	ended   chan struct{} // closed when the server ends it
}

// listen sends subscriptions/listen (with request _meta) and makes it the
// connection's subscription. It does not wait for the acknowledgment.
func (c *conn) listen() (*subscription, error) {
	m := c.modern.Load()
	params, _, err := m.stamp(json.RawMessage(listenParams), nil)
	if err != nil {
		return nil, err
	}
	sub := &subscription{id: c.nextID.Add(1), acked: make(chan struct{}), ended: make(chan struct{})}
	c.sub.Store(sub)
	if err := c.transport.request(sub.id, "subscriptions/listen", params, jsonrpc.Request(jsonrpc.IntID(sub.id), "subscriptions/listen", params)); err != nil {
		return nil, err
	}
	return sub, nil
}

// endSubscription records that the server ended the subscription, and
// logs it: tool list changes are not followed for the rest of the run.
func (c *conn) endSubscription(sub *subscription, why string) {
	sub.endOnce.Do(func() {
		close(sub.ended)
		c.log.Line(c.name, "[gateway] the server ended the gateway's subscriptions/listen ("+truncate(c.log.Mask(why), 512)+
			"); its tool list changes are not followed until it restarts")
	})
}

// onSubscription tells whether a notification's params are tagged with
// the gateway's subscription.
func (c *conn) onSubscription(params json.RawMessage) bool {
	sub := c.sub.Load()
	if sub == nil {
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	id, ok := jsonrpc.ParseIntID(p.Meta[metaSubscriptionID])
	return ok && id == sub.id
}

// subscriptionNote handles the server's acknowledgment of the
// subscription, and its notifications/cancelled naming it (the server tore
// it down; MCP 2026-07-28 basic/patterns/cancellation).
func (c *conn) subscriptionNote(msg *jsonrpc.Message) {
	sub := c.sub.Load()
	if sub == nil {
		return
	}
	if msg.Method == "notifications/subscriptions/acknowledged" {
		if c.onSubscription(msg.Params) {
			sub.ackOnce.Do(func() { close(sub.acked) })
		}
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(msg.Params, &p) == nil {
		if id, ok := jsonrpc.ParseIntID(p.RequestID); ok && id == sub.id {
			c.endSubscription(sub, "the server cancelled it")
		}
	}
}

// subscriptionEnded handles a response to the subscription: the server
// ended it, gracefully (a result) or not (an error, e.g. -32601).
func (c *conn) subscriptionEnded(id int64, msg *jsonrpc.Message) {
	sub := c.sub.Load()
	if sub == nil || sub.id != id {
		return
	}
	if len(msg.Error) > 0 {
		c.endSubscription(sub, jsonrpc.DecodeError(msg.Error).Error())
		return
	}
	c.endSubscription(sub, "the server closed it")
}

// openListen opens the run's subscription for tool list changes and waits
// (up to listenAckWait) for the server to acknowledge it, so that no change
// made after the tools/list that follows is missed. A server that refuses
// or does not acknowledge in time is logged and run without it; only the
// run's death or ctx fail the start.
func (u *Upstream) openListen(ctx context.Context, r *run) error {
	sub, err := r.conn.listen()
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
