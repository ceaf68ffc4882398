package rpc

import (
	"encoding/json"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
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

// listenSet is a connection's live Subscriptions by request id, and what
// the server says of them: acknowledged, ended, and the notifications
// tagged with one (dispatch.go hands them here).
type listenSet struct {
	name string
	log  *logfile.Log

	mu   sync.Mutex
	byID map[int64]*Subscription
}

func (l *listenSet) add(sub *Subscription) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.byID[sub.id] = sub
}

// drop forgets Subscription id; it reports whether it was live.
func (l *listenSet) drop(id int64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.byID[id]
	delete(l.byID, id)
	return ok
}

// get returns the live Subscription with id, or nil.
func (l *listenSet) get(id int64) *Subscription {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byID[id]
}

// end records that the server ended a subscription, and logs it: for the
// list one, list changes are not followed for the rest of the run; a
// resource's updates stop until the server restarts.
func (l *listenSet) end(sub *Subscription, why string) {
	sub.endOnce.Do(func() {
		close(sub.ended)
		l.drop(sub.id)
		what := "its list changes are not followed until it restarts"
		if sub.uri != "" {
			what = "updates of " + l.log.Clip(sub.uri, 256) + " do not reach its subscribers until it restarts"
		}
		l.log.Line(l.name, "[gateway] the server ended the gateway's subscriptions/listen ("+l.log.Clip(why, 512)+"); "+what)
	})
}

// taggedWith returns the gateway's Subscription a notification's params
// are tagged with, or nil.
func (l *listenSet) taggedWith(params json.RawMessage) *Subscription {
	meta := jsonrpc.Value(params, "_meta")
	id, ok := jsonrpc.ParseIntID(jsonrpc.Value(meta, metaSubscriptionID))
	if !ok {
		return nil
	}
	return l.get(id)
}

// onMain tells whether a notification's params are tagged with the
// gateway's list subscription.
func (l *listenSet) onMain(params json.RawMessage) bool {
	sub := l.taggedWith(params)
	return sub != nil && sub.uri == ""
}

// note handles a server's acknowledgment of a subscription, and its
// notifications/cancelled naming one (the server tore it down; MCP
// 2026-07-28 basic/patterns/cancellation).
func (l *listenSet) note(msg *jsonrpc.Message) {
	if msg.Method == "notifications/subscriptions/acknowledged" {
		if sub := l.taggedWith(msg.Params); sub != nil {
			sub.ackOnce.Do(func() {
				sub.agreed = jsonrpc.Value(msg.Params, "notifications")
				close(sub.acked)
			})
		}
		return
	}
	if id, ok := jsonrpc.ParseIntID(jsonrpc.Value(msg.Params, "requestId")); ok {
		if sub := l.get(id); sub != nil {
			l.end(sub, "the server cancelled it")
		}
	}
}

// answered handles a response to a subscription, if id is one: the
// server ended it, gracefully (a result) or not (an error, e.g. -32601).
func (l *listenSet) answered(id int64, msg *jsonrpc.Message) {
	sub := l.get(id)
	if sub == nil {
		return
	}
	if len(msg.Error) > 0 {
		l.end(sub, jsonrpc.DecodeError(msg.Error).Error())
		return
	}
	l.end(sub, "the server closed it")
}

// resourceUpdated hands a notifications/resources/updated to hook with
// the URI it is for: a modern server's names its Subscription (one
// tagged with none is not the gateway's, MCP 2026-07-28 stdio, and is
// dropped); a legacy server's names its uri.
func (l *listenSet) resourceUpdated(params json.RawMessage, modern bool, hook func(uri string, params json.RawMessage)) {
	if hook == nil {
		return
	}
	if modern {
		if sub := l.taggedWith(params); sub != nil && sub.uri != "" {
			hook(sub.uri, params)
		}
		return
	}
	if uri, ok := jsonrpc.Text(jsonrpc.Value(params, "uri")); ok {
		hook(uri, params)
	}
}
