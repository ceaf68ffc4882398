package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Conn is the JSON-RPC connection to one run of a server: what its
// messages mean, whichever transport carries them. It assigns its own
// request ids, so ids from different clients never collide upstream; it
// keeps the calls pending until their answers, swaps a client's
// progressToken for its own and back, stamps request _meta for a modern
// server (meta.go), hands what the server sends to the calls and clients
// it is for (dispatch.go), and keeps the gateway's own subscriptions on a
// modern server (listen.go). Its methods are safe for concurrent use.
type Conn struct {
	name      string
	log       *logfile.Log
	transport Transport // set once, before the first message
	nextID    atomic.Int64

	// calls is the pending-call table and the connection's death
	// (pending.go); listens the gateway's own subscriptions on a modern
	// server (listen.go); relay answers the server's requests to the
	// client side (serverrequest.go); tel is where each request's span
	// and duration go (telemetry.go).
	calls   *callTable
	listens *listenSet
	relay   *relay
	tel     telemetryHooks

	// onListChanged, onResourceUpdated and onTaskStatus are the Hooks'.
	onListChanged     func(methods ...string)
	onResourceUpdated func(uri string, params json.RawMessage)
	onTaskStatus      func(method string, params json.RawMessage)

	// modern is set once the server is known to speak 2026-07-28 or later:
	// from then on every request carries request _meta (modern.go).
	modern atomic.Pointer[modernConn]
}

// Transport carries one connection's messages to its server and back:
// the seam between what the messages mean (Conn) and how they travel.
// There are two: stdio (package supervisor/stdio), a line per message on
// the child's stdin and stdout (MCP basic/transports "stdio"), and HTTP
// (package supervisor/httpup): Streamable HTTP, or the older HTTP+SSE
// where a server offers only that (SPEC §5.6, §7.9).
//
//   - Out: Conn calls Request with each request it sends (its id, its
//     method, its params as sent and the encoded message), Send with
//     anything else (a notification, or its answer to the server's
//     request), and Cancel when it stops waiting for request id (notice
//     is the notifications/cancelled for it), from any goroutine. Each
//     returns once the message is handed over, within a bounded time, or
//     fails fast saying why; a request whose Request fails fails with
//     that error, and nothing waits for its answer. A transport that
//     learns later that a request cannot be answered (HTTP: an error
//     status, a stream that ended) fails that call through
//     Conn.Unanswered.
//   - In: every message the server sends, whatever carried it, goes to
//     the one entry point Conn.Dispatch, in the order it arrived on its
//     stream (a call's notifications before its response), with the id
//     of the request whose answer carried it (from), or 0 where the
//     transport cannot tell (stdio, a GET stream). An answer that arrived
//     for request id but cannot be handed over (too long, undecodable)
//     fails that call through Conn.Reject.
//   - Death: whoever learns that the transport is dead calls Conn.Fail
//     with why, which fails every pending call at once (SPEC §7.2, §7.9):
//     the run's owner in package supervisor.
//   - A transport may also carry a request on the caller's goroutine
//     (Inliner), and name its network.transport for spans (a Network()
//     string method; "pipe" without one).
//
// What a transport reads of the server is read under the daemon's memory
// budget (internal/budget): stdio's lines, and an HTTP transport's bodies
// and SSE events.
type Transport interface {
	Request(id int64, method string, params json.RawMessage, msg []byte) error
	Send(msg []byte) error
	Cancel(id int64, notice []byte)
}

// Hooks are what a connection tells its owner, each called on dispatch's
// goroutine, and what it reports to (nil fields: nothing).
//
//   - OnListChanged gets the methods of a server's
//     notifications/{tools,prompts,resources}/list_changed (for a modern
//     server, only one tagged with the gateway's list subscription), or
//     of several at once (ListsChanged).
//   - OnResourceUpdated gets a notifications/resources/updated, for the
//     subscribed uri it belongs to.
//   - OnTaskStatus gets a task status notification (SPEC §4.7).
//   - Tracer makes the client spans of traced calls; Metrics gets each
//     request's duration (SPEC §11, telemetry.go).
type Hooks struct {
	OnListChanged     func(methods ...string)
	OnResourceUpdated func(uri string, params json.RawMessage)
	OnTaskStatus      func(method string, params json.RawMessage)
	Tracer            *telemetry.Tracer
	Metrics           *telemetry.Metrics
}

// NewConn makes the connection to one run of server name, which logs to
// log; SetTransport gives it its transport before the first message.
func NewConn(name string, log *logfile.Log, h Hooks) *Conn {
	c := &Conn{
		name:              name,
		log:               log,
		calls:             newCallTable(name, log),
		listens:           &listenSet{name: name, log: log, byID: map[int64]*Subscription{}},
		tel:               telemetryHooks{name: name, tracer: h.Tracer, metrics: h.Metrics},
		onListChanged:     h.OnListChanged,
		onResourceUpdated: h.OnResourceUpdated,
		onTaskStatus:      h.OnTaskStatus,
	}
	c.relay = &relay{calls: c.calls, send: func(msg []byte) error { return c.transport.Send(msg) }}
	return c
}

// NextID is a request id of the connection's own, for a transport's
// own request (an HTTP server's new session).
func (c *Conn) NextID() int64 { return c.nextID.Add(1) }

// ListsChanged tells the owner that the lists of methods (each a
// notifications/…/list_changed) may have changed, as if the server had
// said so: a transport's word (a new HTTP session may list others).
func (c *Conn) ListsChanged(methods ...string) {
	if c.onListChanged != nil {
		c.onListChanged(methods...)
	}
}

// SetTransport sets the transport that carries c's messages; call it
// once, before the first message.
func (c *Conn) SetTransport(t Transport) { c.transport = t }

// Dead is closed once the connection is dead (Failure says why).
func (c *Conn) Dead() <-chan struct{} { return c.calls.dead }

// Go runs f on a goroutine of the connection's, counted with the relays
// of server-to-client requests, which WaitHandlers waits for.
func (c *Conn) Go(f func()) { c.relay.goCounted(f) }

// WaitHandlers waits for the goroutines the connection started (relayed
// server-to-client requests, Go's); call it once the connection is dead.
func (c *Conn) WaitHandlers() { c.relay.wg.Wait() }

// SetModern drives the connection as to a modern server from now on:
// every request carries request _meta for version, with self as the
// gateway's own clientInfo (SPEC §7.8).
func (c *Conn) SetModern(version string, self json.RawMessage) {
	c.modern.Store(&modernConn{version: version, self: self})
}

// ModernVersion is the version SetModern set; "" for a legacy server.
func (c *Conn) ModernVersion() string {
	if m := c.modern.Load(); m != nil {
		return m.version
	}
	return ""
}

// Fail marks the connection dead and fails every pending call with err;
// later calls do nothing.
func (c *Conn) Fail(err error) { c.calls.fail(err) }

// call is roundTrip for a request whose peer does not detach (nil, or not
// a Detacher): the gateway's own requests, and an MRTR round's retry.
func (c *Conn) Call(ctx context.Context, method string, params json.RawMessage, peer Peer) (json.RawMessage, error) {
	res, _, err := c.RoundTrip(ctx, method, params, peer)
	return res, err
}

// roundTrip sends a request and waits for its response, ctx, or the death
// of the connection. If params carry _meta.progressToken, the upstream
// sees the gateway's own token (this request's id) and progress
// notifications are relayed to peer with the client's token put back. If
// ctx ends first, notifications/cancelled goes upstream and a late
// response is dropped. Upstream JSON-RPC errors are returned as
// *jsonrpc.Error, unchanged. A peer that detaches gets w, the call's
// wait, instead (await).
func (c *Conn) RoundTrip(ctx context.Context, method string, params json.RawMessage, peer Peer) (res json.RawMessage, w *DetachedWait, err error) {
	// Read before the request goes out: the server may ask, and so
	// detach, before this goroutine runs again after the write.
	detach, gone := detachOf(peer)
	detach = startedAttached(detach)
	id := c.nextID.Add(1)
	pc := c.tel.newPendingCall()
	pc.answered, pc.peer, pc.ctx, pc.method, pc.start = make(chan struct{}), peer, ctx, method, time.Now()
	m := c.modern.Load()
	params, err = pc.stamp(m, id, params)
	if err == nil {
		params, err = c.tel.traced(ctx, pc, method, id, params, networkOf(c.transport), m.protocol()) // telemetry.go
	}
	if err != nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid params: %v", err)}
	}
	if err := c.calls.add(id, pc); err != nil {
		c.tel.finished(pc, method, err)
		return nil, nil, err
	}
	if err := c.hand(ctx, id, method, params, detach == nil && gone == nil); err != nil {
		c.calls.forget(id)
		c.calls.endNotes(pc)
		c.tel.finished(pc, method, err)
		return nil, nil, err
	}
	return c.await(ctx, id, pc, detach, gone)
}

// hand gives request id to the transport: on this goroutine, when the
// transport can carry a request so (an inliner) and nothing but ctx can
// end the call's wait (attached: its peer does not detach); else to be
// answered later.
func (c *Conn) hand(ctx context.Context, id int64, method string, params json.RawMessage, attached bool) error {
	if e, ok := c.transport.(Encoder); ok {
		return e.WriteRequest(id, method, params)
	}
	msg := jsonrpc.Request(jsonrpc.IntID(id), method, params)
	if in, ok := c.transport.(Inliner); ok && attached {
		return in.Inline(ctx, id, method, params, msg)
	}
	return c.transport.Request(id, method, params, msg)
}

// An Encoder is a transport that encodes a request itself and sends it
// as Request would send the encoded message (stdio: into a line buffer
// it keeps between requests, and a large request in pieces with no copy
// of its params), so that a call costs no message of its own. hand
// prefers it to Request; it is not an Inliner.
type Encoder interface {
	WriteRequest(id int64, method string, params json.RawMessage) error
}

// An inliner is a transport that can carry a request on the caller's
// goroutine (HTTP: the POST and its answer), saving a goroutine and a
// hand-over per call. inline returns once the answer has gone to dispatch
// (or failed the call through conn.reject), or once ctx ended, which the
// caller's await then handles as for any transport; ctx ending also ends
// the request. It is used only for a call that cannot detach, whose wait
// nothing else can end.
type Inliner interface {
	Inline(ctx context.Context, id int64, method string, params json.RawMessage, msg []byte) error
}

// networkOf is network.transport for a connection's transport: "pipe"
// for stdio; a transport that says otherwise has a network method.
func networkOf(t Transport) string {
	if n, ok := t.(interface{ Network() string }); ok {
		return n.Network()
	}
	return "pipe"
}

// await waits for the reply to call id: the server's, or ctx's end or
// gone closing (the server then gets notifications/cancelled). When
// detach closes first, it returns w at once, and the call stays pending:
// its wait is this one's, without detach or gone (detach.go).
func (c *Conn) await(ctx context.Context, id int64, pc *pendingCall, detach, gone <-chan struct{}) (res json.RawMessage, w *DetachedWait, err error) {
	var r reply
	select {
	case <-pc.answered:
		r = pc.reply
	case <-ctx.Done():
		c.cancelCall(id)
		r.err = ctx.Err()
	case <-gone:
		c.cancelCall(id)
		r.err = context.Canceled
	case <-detach:
		return nil, &DetachedWait{c: c, id: id, pc: pc}, nil
	}
	c.calls.endNotes(pc)
	c.tel.finished(pc, pc.method, r.err)
	return r.result, nil, r.err
}

// DetachedWait is Conn.RoundTrip's side of a detached call: what its
// wait needs to go on.
type DetachedWait struct {
	c  *Conn
	id int64
	pc *pendingCall
}

// Wait waits for the detached call's reply, ctx's end or the death of
// the connection, as RoundTrip would have; call it once.
func (w *DetachedWait) Wait(ctx context.Context) (json.RawMessage, error) {
	res, _, err := w.c.await(ctx, w.id, w.pc, nil, nil)
	return res, err
}

// cancelCall drops call id and, if it was still pending, tells the server
// (notifications/cancelled, or as the transport cancels).
func (c *Conn) cancelCall(id int64) {
	if c.calls.forget(id) {
		cancel, _ := json.Marshal(map[string]any{"requestId": id, "reason": "the client cancelled the request"})
		c.transport.Cancel(id, jsonrpc.Notification("notifications/cancelled", cancel))
	}
}

// Notify sends a notification to the server.
func (c *Conn) Notify(method string, params json.RawMessage) error {
	return c.transport.Send(jsonrpc.Notification(method, params))
}

// InFlight counts the pending requests; ClientCalls only those made for
// a client.
func (c *Conn) InFlight() int    { return c.calls.count(false) }
func (c *Conn) ClientCalls() int { return c.calls.count(true) }

// Failure returns why the connection died (nil while it lives).
func (c *Conn) Failure() error { return c.calls.failure() }

// Listen sends subscriptions/listen with params (request _meta added) and
// keeps the subscription, for resource uri ("": the list changes, the
// connection's main one). It does not wait for the acknowledgment.
func (c *Conn) Listen(params, uri string) (*Subscription, error) {
	stamped, _, err := c.modern.Load().stamp(json.RawMessage(params), nil)
	if err != nil {
		return nil, err
	}
	sub := &Subscription{id: c.nextID.Add(1), uri: uri, acked: make(chan struct{}), ended: make(chan struct{})}
	c.listens.add(sub)
	if err := c.transport.Request(sub.id, "subscriptions/listen", stamped, jsonrpc.Request(jsonrpc.IntID(sub.id), "subscriptions/listen", stamped)); err != nil {
		c.listens.drop(sub.id)
		return nil, err
	}
	return sub, nil
}

// CancelListen ends one of the gateway's subscriptions itself (MCP
// 2026-07-28: on stdio, notifications/cancelled referencing the listen;
// over HTTP, closing its stream: Transport.Cancel).
func (c *Conn) CancelListen(sub *Subscription) {
	if c.listens.drop(sub.id) {
		c.transport.Cancel(sub.id, jsonrpc.Notification("notifications/cancelled",
			[]byte(`{"requestId":`+string(jsonrpc.IntID(sub.id))+`,"reason":"the gateway's last client of this resource unsubscribed"}`)))
	}
}

// ListenByID returns the live Subscription with id, or nil.
func (c *Conn) ListenByID(id int64) *Subscription { return c.listens.get(id) }
