package httpup

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"

	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// Transport is the transport of one run of an HTTP server (SPEC
// §5.6, §7.9): MCP Streamable HTTP (2025-11-25 basic/transports, and
// 2026-07-28 basic/transports/streamable-http for a modern server), or,
// where the server offers only that, the older HTTP+SSE (legacysse.go).
//
//   - Every message is a POST to url with the configured headers (never
//     anything of the calling client's: its Authorization and the
//     gateway's token stay in the aggregator), Content-Type
//     application/json and Accept of both JSON and SSE.
//   - A request's POST (exchange) runs on the caller's goroutine when the
//     call cannot detach (Inline; see rpc.Inliner), else on a goroutine of its
//     own (request); its answer, one JSON message or an SSE stream, goes
//     to dispatch message by message with the request's id
//     (answer.go); one that ends without the response fails the call
//     (Conn.Unanswered). Anything else is POSTed at once and acknowledged
//     with 202 (send).
//   - A legacy server (session.go): initialize's answer gives the
//     Mcp-Session-Id and the protocol version, sent on every later
//     request; after notifications/initialized a GET stream carries what
//     the server sends unasked, reopened when it drops; a 404 for the
//     session is answered by a new session and the request once more;
//     DELETE ends the session at close. cancel POSTs
//     notifications/cancelled.
//   - A modern server (Conn.ModernVersion set): no session; every request
//     carries MCP-Protocol-Version, Mcp-Method, Mcp-Name and the
//     Mcp-Param-{Name} headers of its tool's x-mcp-header parameters
//     (toolHeaders, headers.go); cancel closes the request's stream, which is how
//     Streamable HTTP cancels (2026-07-28 basic/patterns/cancellation).
//   - Losing the server: a request that gets no HTTP answer (a
//     reachError: DNS, connect, TLS, a reset) calls lost, the run's,
//     which fails every pending call at once; an answer that breaks off
//     fails its call and pings the server, whose failure to answer is
//     then such a loss.
type Transport struct {
	link // conn, url, lifetime and mu (link.go); mu also guards calls and sess's state

	calls map[int64]context.CancelFunc // exchanges in flight: cancel ends one
	sess  *session                     // a legacy server's session and GET stream (session.go)
	tools toolHeaders                  // a modern server's tools' x-mcp-header parameters (headers.go)

	old atomic.Pointer[sseTransport] // set once, by the HTTP+SSE fallback (legacysse.go)
}

// New makes the HTTP transport to cfg.URL the transport of c.
func New(c *rpc.Conn, cfg Config) *Transport {
	t := &Transport{link: link{conn: c, net: newRemote(cfg), shown: ShownURL(cfg.URL), name: cfg.Name, log: cfg.Log},
		calls: map[int64]context.CancelFunc{}, tools: toolHeaders{params: map[string][]mcpheader.Param{}}}
	t.sess = &session{l: &t.link, old: &t.old}
	t.ctx, t.stop = context.WithCancel(context.Background())
	c.SetTransport(t)
	return t
}

// begin registers the exchange of request id; its context, made from
// parent, ends with cancel, t's close, or a stalled answer.
func (t *Transport) begin(parent context.Context, id int64) (context.Context, context.CancelFunc, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil, nil, errClosed
	}
	ctx, cancel := context.WithCancel(parent)
	t.calls[id] = cancel
	t.wg.Add(1)
	return ctx, cancel, nil
}

func (t *Transport) end(id int64, cancel context.CancelFunc) {
	t.mu.Lock()
	delete(t.calls, id)
	t.mu.Unlock()
	cancel()
	t.wg.Done()
}

// Network is the client spans' network.transport (package rpc).
func (t *Transport) Network() string { return "tcp" }

// Send POSTs a notification or an answer to the server's request, which
// the server acknowledges (202); a 404 for the session is answered as for
// a request (renew). The acknowledgment of notifications/initialized
// opens the GET stream.
func (t *Transport) Send(msg []byte) error {
	if o := t.old.Load(); o != nil {
		return o.post(msg)
	}
	if err := t.ack(t, msg, true); err != nil {
		return err
	}
	if methodOf(msg) == "notifications/initialized" {
		t.sess.openGET()
	}
	return nil
}

// Cancel stops waiting for request id: notifications/cancelled for a
// legacy server (whose stream's end is no cancellation), and the end of
// the request's answer, which for a modern server is the cancellation.
func (t *Transport) Cancel(id int64, notice []byte) {
	if o := t.old.Load(); o != nil {
		_ = o.post(notice)
		return
	}
	if t.conn.ModernVersion() == "" {
		_ = t.Send(notice)
	}
	t.mu.Lock()
	stop := t.calls[id]
	t.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Shown is the url as messages show it (ShownURL).
func (t *Transport) Shown() string { return t.shown }

// OldSSE tells whether the server is reached over the older HTTP+SSE
// (legacysse.go) rather than Streamable HTTP.
func (t *Transport) OldSSE() bool { return t.old.Load() != nil }

// Close ends the transport: no new request; every request in flight and
// the GET stream end; a legacy session is ended with DELETE (not when the
// server was lost: nothing would answer it). It returns once every
// goroutine of the transport has.
func (t *Transport) Close(lost bool) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.closed = true
	session := t.sess.id
	for _, cancel := range t.calls {
		cancel() // an inline exchange's context is not t.ctx's
	}
	t.mu.Unlock()
	t.stop()
	if session != "" && !lost && t.old.Load() == nil {
		t.sess.end(session)
	}
	t.wg.Wait()
	t.net.close()
}

// do POSTs msg with the headers of its method and params (stamp), and
// returns the answer and the session it was sent in.
func (t *Transport) do(ctx context.Context, method string, params json.RawMessage, msg []byte) (*http.Response, string, error) {
	return t.link.do(ctx, t, method, params, msg)
}

// get sends a GET for an SSE stream after lastID, with the headers of
// stamp, and returns the session it was sent in.
func (t *Transport) get(ctx context.Context, lastID string) (*http.Response, string, error) {
	return t.link.get(ctx, t, lastID)
}

// stamp sets the protocol headers of one POST and returns the session it
// names ("" for none): for a legacy server, Mcp-Session-Id and
// MCP-Protocol-Version once initialize has answered (MCP 2025-11-25
// basic/transports, "Session Management" and "Protocol Version Header");
// for a modern one, the request metadata headers (toolHeaders.stamp).
func (t *Transport) stamp(h http.Header, method string, params json.RawMessage) string {
	if v := t.conn.ModernVersion(); v != "" {
		h["Mcp-Protocol-Version"] = []string{v}
		t.tools.stamp(h, method, params)
		return ""
	}
	return t.sess.stamp(h, method, params)
}

// renew makes a new session after a 404 for expired (session.go).
func (t *Transport) renew(ctx context.Context, expired string) error {
	return t.sess.renew(ctx, expired)
}
