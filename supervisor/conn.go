package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// conn is the JSON-RPC connection to one run of a server: what its
// messages mean, whichever transport carries them. It assigns its own
// request ids, so ids from different clients never collide upstream; it
// keeps the calls pending until their answers, swaps a client's
// progressToken for its own and back, stamps request _meta for a modern
// server (modern.go), hands what the server sends to the calls and
// clients it is for (dispatch.go), and keeps the gateway's own
// subscription on a modern server (listen.go).
type conn struct {
	name      string
	log       *logfile.Log
	transport transport // set once, before the first message
	// tracer makes the client spans of traced calls, nil when tracing is
	// off; metrics gets each request's duration (telemetry.go).
	tracer  trace.Tracer
	metrics *telemetry.Metrics

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]*pendingCall
	err     error         // set once the connection is dead
	dead    chan struct{} // closed with err

	// onToolsChanged is called (on dispatch's goroutine) when the server sends
	// notifications/tools/list_changed (modern: tagged with sub's id).
	onToolsChanged func()
	// onTaskStatus is called (on dispatch's goroutine) with a task status
	// notification (Options.OnTaskStatus); nil: dropped.
	onTaskStatus func(method string, params json.RawMessage)

	// modern is set once the server is known to speak 2026-07-28 or later:
	// from then on every request carries request _meta (modern.go).
	modern atomic.Pointer[modernConn]
	// sub is the gateway's own subscriptions/listen on a modern server
	// (listen.go); nil if none.
	sub atomic.Pointer[subscription]

	handlers sync.WaitGroup // relayed server-to-client requests in flight
}

// transport carries one connection's messages to its server and back:
// the seam between what the messages mean (conn) and how they travel.
// The one today is stdio (stdio.go): a line per message on the child's
// stdin and stdout (MCP basic/transports "stdio").
//
//   - Out: conn calls send with one encoded JSON-RPC message (a request,
//     a notification, or its answer to the server's request), from any
//     goroutine. send returns once the message is handed over, within a
//     bounded time, or fails fast saying why; a request whose send fails
//     fails with that error, and nothing waits for its answer.
//   - In: every message the server sends, whatever carried it, goes to
//     the one entry point conn.dispatch, in the order it arrived on its
//     stream (a call's notifications before its response). An answer that
//     arrived for request id but cannot be handed over (too long,
//     undecodable) fails that call through conn.reject.
//   - Death: whoever learns that the transport is dead calls conn.fail
//     with why, which fails every pending call at once (SPEC §7.2). For
//     stdio that is serveRun, at the end of stdout, with the exit.
//
// A Streamable HTTP transport (SPEC §5.6, §7.9) takes the same seam:
// send POSTs the message (with the session id, once initialize has
// answered with one) and fails fast on a refused connection or an error
// status; each message of every response body, whether one JSON message
// or an SSE stream, and of the GET stream goes to dispatch; a stream that
// ends before its request's answer rejects that request; losing the
// server calls fail. What it reads of the server is read under the
// daemon's memory budget, as stdio does: Options.Budget.Alloc(ctx,
// budget.Servers, n, n) before reading n bytes of a body or an event
// (internal/budget).
//
// A caveat: dispatch is not told which request's stream carried a
// message. stdio cannot tell, so a server's own requests and log messages
// are relayed only when one client's calls are in flight (soleCaller). An
// HTTP transport knows the stream, and could route by it; that would be
// a parameter of dispatch to add then, not a change to send.
type transport interface {
	send(msg []byte) error
}

func newConn(name string, log *logfile.Log) *conn {
	return &conn{
		name:    name,
		log:     log,
		pending: map[int64]*pendingCall{},
		dead:    make(chan struct{}),
	}
}

// fail marks the connection dead and fails every pending call with err.
func (c *conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pending := c.pending
	c.pending = map[int64]*pendingCall{}
	close(c.dead)
	c.mu.Unlock()
	for _, pc := range pending {
		pc.reply <- reply{err: err}
	}
}

// call is roundTrip for a request whose peer does not detach (nil, or not
// a Detacher): the gateway's own requests, and an MRTR round's retry.
func (c *conn) call(ctx context.Context, method string, params json.RawMessage, peer Peer) (json.RawMessage, error) {
	res, _, err := c.roundTrip(ctx, method, params, peer)
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
func (c *conn) roundTrip(ctx context.Context, method string, params json.RawMessage, peer Peer) (res json.RawMessage, w *detachedWait, err error) {
	// Read before the request goes out: the server may ask, and so
	// detach, before this goroutine runs again after the write.
	detach, gone := detachOf(peer)
	detach = startedAttached(detach)
	id := c.nextID.Add(1)
	pc := &pendingCall{reply: make(chan reply, 1), peer: peer, ctx: ctx, method: method, start: time.Now()}
	params, err = c.stamp(pc, id, params)
	if err == nil {
		params, err = c.traced(ctx, pc, method, id, params) // telemetry.go
	}
	if err != nil {
		return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid params: %v", err)}
	}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		c.finished(pc, method, err)
		return nil, nil, err
	}
	c.pending[id] = pc
	c.mu.Unlock()

	if err := c.transport.send(jsonrpc.Request(jsonrpc.IntID(id), method, params)); err != nil {
		c.forget(id)
		c.endNotes(pc)
		c.finished(pc, method, err)
		return nil, nil, err
	}
	return c.await(ctx, id, pc, detach, gone)
}

// await waits for the reply to call id: the server's, or ctx's end or
// gone closing (the server then gets notifications/cancelled). When
// detach closes first, it returns w at once, and the call stays pending:
// its wait is this one's, without detach or gone (detach.go).
func (c *conn) await(ctx context.Context, id int64, pc *pendingCall, detach, gone <-chan struct{}) (res json.RawMessage, w *detachedWait, err error) {
	var r reply
	select {
	case r = <-pc.reply:
	case <-ctx.Done():
		c.cancelCall(id)
		r.err = ctx.Err()
	case <-gone:
		c.cancelCall(id)
		r.err = context.Canceled
	case <-detach:
		return nil, &detachedWait{c: c, id: id, pc: pc}, nil
	}
	c.endNotes(pc)
	c.finished(pc, pc.method, r.err)
	return r.result, nil, r.err
}

// cancelCall drops call id and, if it was still pending, tells the server
// (notifications/cancelled).
func (c *conn) cancelCall(id int64) {
	if c.forget(id) {
		cancel, _ := json.Marshal(map[string]any{"requestId": id, "reason": "the client cancelled the request"})
		_ = c.transport.send(jsonrpc.Notification("notifications/cancelled", cancel))
	}
}

// stamp returns the params of request id as the server is to see them:
// with request _meta for a modern server, and with the gateway's own
// progressToken (the client's is kept in pc) when the call has a client.
func (c *conn) stamp(pc *pendingCall, id int64, params json.RawMessage) (json.RawMessage, error) {
	if m := c.modern.Load(); m != nil {
		var err error
		if params, pc.logs, err = m.stamp(params, pc.peer); err != nil {
			return nil, err
		}
	}
	if pc.peer != nil && len(params) > 0 {
		var err error
		if params, pc.token, err = swapProgressToken(params, jsonrpc.IntID(id)); err != nil {
			return nil, err
		}
	}
	return params, nil
}

func (c *conn) notify(method string, params json.RawMessage) error {
	return c.transport.send(jsonrpc.Notification(method, params))
}

func (c *conn) inFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%d bytes)", len(s))
}

// failure returns why the connection died (nil while it lives).
func (c *conn) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
