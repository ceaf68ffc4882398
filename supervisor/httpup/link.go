package httpup

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// postTimeout bounds a POST that carries no request (a notification, or
// the answer to a server's request, which the server acknowledges with
// 202), as package stdio bounds a write to a child's stdin.
const postTimeout = 10 * time.Second

// link is what the parts of one Transport share, and the requests they
// all make: the connection messages go to, the url (remote), the
// transport's lifetime (ctx, its goroutines in wg, closed) and mu, which
// guards closed and the state of the parts above it (the Transport's
// calls, the session's state). The session (session.go) and the older
// HTTP+SSE (legacysse.go) hold a link, not the Transport.
type link struct {
	conn  *rpc.Conn
	net   *remote // the requests to url (client.go)
	shown string  // url for messages (ShownURL)
	name  string  // the server's
	log   *logfile.Log

	ctx  context.Context // ends with close: every request in flight ends
	stop context.CancelFunc
	wg   sync.WaitGroup // exchanges, the GET stream, the HTTP+SSE stream

	mu     sync.Mutex
	closed bool
}

// protocol is what sets a request's protocol headers and makes a new
// session after a 404 for the old one: the Transport, in either era, or
// a legacy server's session.
type protocol interface {
	// stamp sets the headers of a request of method and returns the
	// session it names ("" for none).
	stamp(h http.Header, method string, params json.RawMessage) string
	// renew makes a new session after the server answered 404 to a
	// request in session expired.
	renew(ctx context.Context, expired string) error
}

// Header values every request shares (the transport only reads them).
var (
	hdrJSON   = []string{"application/json"}
	hdrAccept = []string{"application/json, text/event-stream"}
	hdrSSE    = []string{"text/event-stream"}
)

// do POSTs msg with p's headers of its method and params, and returns
// the answer and the session it was sent in.
func (l *link) do(ctx context.Context, p protocol, method string, params json.RawMessage, msg []byte) (*http.Response, string, error) {
	req, err := l.net.newRequest(ctx, http.MethodPost, msg)
	if err != nil {
		return nil, "", err
	}
	req.Header["Content-Type"], req.Header["Accept"] = hdrJSON, hdrAccept
	session := p.stamp(req.Header, method, params)
	resp, err := l.net.roundTrip(req)
	if err != nil {
		return nil, session, describe("POST "+l.shown, err)
	}
	return resp, session, nil
}

// ack POSTs msg, which carries no request, and reads the server's
// acknowledgment within postTimeout; a 404 for the session is answered
// by a new session and msg once more if renew says so (not while the
// new session is being made: its own notifications/initialized).
func (l *link) ack(p protocol, msg []byte, renew bool) error {
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return errClosed
	}
	ctx, cancel := context.WithTimeout(l.ctx, postTimeout)
	defer cancel()
	method := methodOf(msg)
	resp, session, err := l.do(ctx, p, method, nil, msg)
	if err == nil && resp.StatusCode == http.StatusNotFound && session != "" && renew {
		drain(resp)
		if err = p.renew(ctx, session); err == nil {
			resp, _, err = l.do(ctx, p, method, nil, msg)
		}
	}
	if err != nil {
		return l.net.failed(err)
	}
	defer drain(resp)
	if resp.StatusCode/100 != 2 {
		body, _ := l.net.reader(ctx, resp, cancel).readAll(resp.ContentLength)
		return newStatusError("POST "+l.shown, resp, body, l.log, false)
	}
	return nil
}

// get sends a GET for an SSE stream (the session's, or a resumed answer
// after lastID), with p's headers; it returns the session it was sent
// in.
func (l *link) get(ctx context.Context, p protocol, lastID string) (*http.Response, string, error) {
	req, err := l.net.newRequest(ctx, http.MethodGet, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header["Accept"] = hdrSSE
	session := p.stamp(req.Header, "", nil)
	if lastID != "" {
		req.Header["Last-Event-Id"] = []string{lastID}
	}
	resp, err := l.net.roundTrip(req)
	if err != nil {
		return nil, session, describe("GET "+l.shown, err)
	}
	return resp, session, nil
}

// message is the JSON-RPC message an SSE event carries: one of the default
// type ("message"), whose data decodes; any other is skipped, and one
// that does not decode is logged.
func (l *link) message(ev sseEvent) (*jsonrpc.Message, bool) {
	if ev.name != "" && ev.name != "message" {
		return nil, false
	}
	msg, err := jsonrpc.DecodeOwned(ev.data) // each event's data is a buffer of its own
	if err != nil {
		l.log.Output(l.name, "[http event, not JSON-RPC; skipped] "+truncate(l.log.Mask(string(ev.data)), 512))
		return nil, false
	}
	return msg, true
}

func isID(raw json.RawMessage, id int64) bool {
	n, ok := jsonrpc.ParseIntID(raw)
	return ok && n == id
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
func (l *link) probe(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, probing{}, true), probeTimeout)
	defer cancel()
	_, _ = l.conn.Call(ctx, "ping", nil, nil)
}
