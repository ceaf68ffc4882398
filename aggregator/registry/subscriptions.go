package registry

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file fans resource subscriptions out (SPEC §4.8): one upstream
// subscription per (server, URI), however many clients subscribe;
// notifications/resources/updated reaches exactly the clients subscribed
// to that URI; the upstream subscription ends when the last of them
// unsubscribes, ends its session or closes its listen stream. Clients
// subscribe in their era's way (a legacy session's resources/subscribe, a
// modern client's subscriptions/listen resourceSubscriptions), and the
// supervisor subscribes upstream in the server's (supervisor/subscribe.go).

// Subscriber is a client subscribed to resources: a legacy session (its
// GET stream carries the updates) or a subscriptions/listen stream.
type Subscriber interface {
	// Updated delivers a server's notifications/resources/updated, its
	// params as the server sent them; it must not block.
	Updated(params json.RawMessage)
}

// subKey is one upstream subscription: a server and a URI.
type subKey struct {
	up  *supervisor.Upstream
	uri string
}

// subEntry is one upstream subscription and its clients. op serialises
// the key's upstream subscribe and unsubscribe, so that they reach the
// server in the order the clients' changes made them; on says the
// upstream subscription is held (under op).
type subEntry struct {
	op sync.Mutex
	on bool
	// clients and refs (callers between taking the entry and releasing
	// it) are under Subscriptions.mu; an entry without either is removed.
	clients map[Subscriber]struct{}
	refs    int
}

// Subscriptions is the gateway's resource subscriptions; safe for
// concurrent use.
type Subscriptions struct {
	mu    sync.Mutex
	m     map[subKey]*subEntry
	bySub map[Subscriber]map[subKey]struct{}
}

func NewSubscriptions() *Subscriptions {
	return &Subscriptions{m: map[subKey]*subEntry{}, bySub: map[Subscriber]map[subKey]struct{}{}}
}

// unsubscribeWait bounds the upstream unsubscribes of one client that
// goes away (its session's DELETE or expiry, its listen stream's close).
const unsubscribeWait = 10 * time.Second

// take returns k's entry, made if need be, with the caller counted in
// refs; call with t.mu held.
func (t *Subscriptions) take(k subKey) *subEntry {
	e := t.m[k]
	if e == nil {
		e = &subEntry{clients: map[Subscriber]struct{}{}}
		t.m[k] = e
	}
	e.refs++
	return e
}

// release uncounts the caller and removes an entry nobody needs; call
// with t.mu held.
func (t *Subscriptions) release(k subKey, e *subEntry) {
	e.refs--
	if e.refs == 0 && len(e.clients) == 0 && !e.on {
		delete(t.m, k)
	}
}

// Add subscribes s to uri on up, subscribing the gateway upstream first
// if s is its first client. Subscribing again is nothing more. The
// server's refusal comes back as its error.
func (t *Subscriptions) Add(ctx context.Context, up *supervisor.Upstream, uri string, s Subscriber) error {
	k := subKey{up, uri}
	t.mu.Lock()
	e := t.take(k)
	_, already := e.clients[s]
	t.mu.Unlock()
	var err error
	if !already {
		e.op.Lock()
		if !e.on {
			err = k.up.Subscribe(ctx, k.uri)
			e.on = err == nil
		}
		e.op.Unlock()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		e.clients[s] = struct{}{}
		if t.bySub[s] == nil {
			t.bySub[s] = map[subKey]struct{}{}
		}
		t.bySub[s][k] = struct{}{}
	}
	t.release(k, e)
	return err
}

// remove unsubscribes s from k, and the gateway upstream if s was k's last
// client.
func (t *Subscriptions) remove(ctx context.Context, k subKey, s Subscriber) {
	t.mu.Lock()
	e := t.m[k]
	if e == nil {
		t.mu.Unlock()
		return
	}
	delete(e.clients, s)
	if keys := t.bySub[s]; keys != nil {
		delete(keys, k)
		if len(keys) == 0 {
			delete(t.bySub, s)
		}
	}
	e.refs++
	t.mu.Unlock()
	e.op.Lock()
	t.mu.Lock()
	last := len(e.clients) == 0
	t.mu.Unlock()
	if last && e.on {
		k.up.Unsubscribe(ctx, k.uri)
		e.on = false
	}
	e.op.Unlock()
	t.mu.Lock()
	t.release(k, e)
	t.mu.Unlock()
}

// RemoveURI unsubscribes s from uri on whichever server it is subscribed
// to it on (resources/unsubscribe names only the URI).
func (t *Subscriptions) RemoveURI(ctx context.Context, uri string, s Subscriber) {
	for _, k := range t.keysOf(s) {
		if k.uri == uri {
			t.remove(ctx, k, s)
		}
	}
}

// DropAll unsubscribes s from everything: its session ended, or its
// listen stream closed. The upstream unsubscribes it makes share
// unsubscribeWait.
func (t *Subscriptions) DropAll(s Subscriber) {
	keys := t.keysOf(s)
	if len(keys) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), unsubscribeWait)
	defer cancel()
	for _, k := range keys {
		t.remove(ctx, k, s)
	}
}

func (t *Subscriptions) keysOf(s Subscriber) []subKey {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := make([]subKey, 0, len(t.bySub[s]))
	for k := range t.bySub[s] {
		keys = append(keys, k)
	}
	return keys
}

// Deliver hands a server's notifications/resources/updated to the
// clients subscribed to uri on that server, or to a URI it is a
// sub-resource of (MCP: the updated URI "might be a sub-resource of the
// one that the client actually subscribed to").
func (t *Subscriptions) Deliver(server, uri string, params json.RawMessage) {
	t.mu.Lock()
	var to []Subscriber
	for k, e := range t.m {
		if k.up.Name() != server || !(k.uri == uri || isSubResource(uri, k.uri)) {
			continue
		}
		for s := range e.clients {
			to = append(to, s)
		}
	}
	t.mu.Unlock()
	for _, s := range to {
		s.Updated(params)
	}
}

// isSubResource reports whether uri is within sub: sub followed by a
// path, query or fragment.
func isSubResource(uri, sub string) bool {
	if len(uri) <= len(sub) || !strings.HasPrefix(uri, sub) {
		return false
	}
	return strings.HasSuffix(sub, "/") || strings.ContainsRune("/?#", rune(uri[len(sub)]))
}

// MetaSubscription is the _meta key of a modern client's subscription id
// (MCP 2026-07-28 basic/patterns/subscriptions).
const MetaSubscription = "io.modelcontextprotocol/subscriptionId"

// TaggedUpdate renders notifications/resources/updated with params as
// the server sent them but for _meta's subscription id, which becomes
// id's (a modern client's listen) or goes (a legacy session: a modern
// server's own id means nothing to the client). A _meta left empty goes
// too; one added comes first.
func TaggedUpdate(params json.RawMessage, id json.RawMessage) []byte {
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
		if f.Key != MetaSubscription {
			kept = append(kept, f)
		}
	}
	if id != nil {
		kept = append(kept, jsonrpc.Field{Key: MetaSubscription, Value: id})
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
