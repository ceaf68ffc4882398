package httpup

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// postTimeout bounds a POST that carries no request (a notification, or
// the answer to a server's request, which the server acknowledges with
// 202), as package stdio bounds a write to a child's stdin.
const postTimeout = 10 * time.Second

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
	conn  *rpc.Conn
	net   *remote // the requests to url (client.go)
	shown string  // url for messages (ShownURL)
	name  string  // the server's
	log   *logfile.Log

	ctx  context.Context // ends with close: every request in flight ends
	stop context.CancelFunc
	wg   sync.WaitGroup // exchanges, the GET stream, the HTTP+SSE stream

	// mu guards closed and calls, and the session's state (session.go).
	mu     sync.Mutex
	closed bool
	calls  map[int64]context.CancelFunc // exchanges in flight: cancel ends one
	sess   *session                     // a legacy server's session and GET stream (session.go)
	tools  toolHeaders                  // a modern server's tools' x-mcp-header parameters (headers.go)

	old atomic.Pointer[sseTransport] // set once, by the HTTP+SSE fallback (legacysse.go)
}

// New makes the HTTP transport to cfg.URL the transport of c.
func New(c *rpc.Conn, cfg Config) *Transport {
	t := &Transport{conn: c, net: newRemote(cfg), shown: ShownURL(cfg.URL), name: cfg.Name, log: cfg.Log,
		calls: map[int64]context.CancelFunc{}, tools: toolHeaders{params: map[string][]mcpheader.Param{}}}
	t.sess = &session{t: t}
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
// a request (renew).
func (t *Transport) Send(msg []byte) error {
	if o := t.old.Load(); o != nil {
		return o.post(msg)
	}
	return t.post(msg, true)
}

// post is send, renewing an expired session first if renew says so; the
// acknowledgment of notifications/initialized opens the GET stream.
func (t *Transport) post(msg []byte, renew bool) error {
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return errClosed
	}
	ctx, cancel := context.WithTimeout(t.ctx, postTimeout)
	defer cancel()
	method := methodOf(msg)
	resp, session, err := t.do(ctx, method, nil, msg)
	if err == nil && resp.StatusCode == http.StatusNotFound && session != "" && renew {
		drain(resp)
		if err = t.sess.renew(ctx, session); err == nil {
			resp, _, err = t.do(ctx, method, nil, msg)
		}
	}
	if err != nil {
		return t.net.failed(err)
	}
	defer drain(resp)
	if resp.StatusCode/100 != 2 {
		body, _ := t.net.reader(ctx, resp, cancel).readAll(resp.ContentLength)
		return newStatusError("POST "+t.shown, resp, body, t.log, false)
	}
	if method == "notifications/initialized" {
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
	req, err := t.net.newRequest(ctx, http.MethodPost, msg)
	if err != nil {
		return nil, "", err
	}
	req.Header["Content-Type"], req.Header["Accept"] = hdrJSON, hdrAccept
	session := t.stamp(req.Header, method, params)
	resp, err := t.net.roundTrip(req)
	if err != nil {
		return nil, session, describe("POST "+t.shown, err)
	}
	return resp, session, nil
}

// Header values every request shares (the transport only reads them).
var (
	hdrJSON   = []string{"application/json"}
	hdrAccept = []string{"application/json, text/event-stream"}
	hdrSSE    = []string{"text/event-stream"}
)

// get sends a GET for an SSE stream (the session's, or a resumed answer
// after lastID), with the session's headers; it returns the session it
// was sent in.
func (t *Transport) get(ctx context.Context, lastID string) (*http.Response, string, error) {
	req, err := t.net.newRequest(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header["Accept"] = hdrSSE
	session := t.stamp(req.Header, "", nil)
	if lastID != "" {
		req.Header["Last-Event-Id"] = []string{lastID}
	}
	resp, err := t.net.roundTrip(req)
	if err != nil {
		return nil, session, describe("GET "+t.shown, err)
	}
	return resp, session, nil
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
	return t.sess.stamp(h, method)
}

func isID(raw json.RawMessage, id int64) bool {
	n, ok := jsonrpc.ParseIntID(raw)
	return ok && n == id
}

// message is the JSON-RPC message an SSE event carries: one of the default
// type ("message"), whose data decodes; any other is skipped, and one
// that does not decode is logged.
func (t *Transport) message(ev sseEvent) (*jsonrpc.Message, bool) {
	if ev.name != "" && ev.name != "message" {
		return nil, false
	}
	msg, err := jsonrpc.DecodeOwned(ev.data) // each event's data is a buffer of its own
	if err != nil {
		t.log.Output(t.name, "[http event, not JSON-RPC; skipped] "+truncate(t.log.Mask(string(ev.data)), 512))
		return nil, false
	}
	return msg, true
}

// probeTimeout bounds the ping that asks whether a server whose answer
// broke off is still there.
const probeTimeout = 10 * time.Second

// probing marks the context of a probe's ping.
type probing struct{}

// probe pings the server within ctx, the broken request's, and at most
// probeTimeout; its request, like any, loses the server if it cannot
// reach it. Under ctx, an inline call (whose probe runs on the caller's
// goroutine) still ends at its deadline. Without the mark, a server
// whose every answer broke off got a ping for each ping's answer, each
// nested in the last on one goroutine, without end: thousands a second
// (FuzzHTTPAnswer found it; TestBrokenAnswerProbesOnce).
func (t *Transport) probe(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, probing{}, true), probeTimeout)
	defer cancel()
	_, _ = t.conn.Call(ctx, "ping", nil, nil)
}
