package httpup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// endpointWait bounds the wait for an HTTP+SSE server's endpoint event.
const endpointWait = 10 * time.Second

// sseTransport is the older HTTP+SSE transport (MCP 2024-11-05
// basic/transports "HTTP with SSE", deprecated since 2025-03-26), for a
// server that offers only that: one GET stream, opened first, whose
// first event (endpoint) names the URL every message is then POSTed to;
// everything the server sends, answers included, comes on that stream.
// It ties no message to a call (dispatch's from is 0), and the stream is
// the session: when it ends, the server is lost, and the next call
// connects anew (SPEC §7.9).
type sseTransport struct {
	l        *link
	endpoint string // where messages are POSTed
	shown    string // endpoint for messages
}

// fallback tries, for the link's server, the HTTP+SSE transport after the server refused
// initialize's POST with 400, 404 or 405 (MCP 2025-11-25 basic/transports
// "Backwards Compatibility"; 2026-07-28 streamable-http "HTTP+SSE
// Transport"): a GET to url that opens an SSE stream whose first event is
// endpoint. If it does, the transport is HTTP+SSE from now on and sent,
// the initialize, goes again that way (old holds it); else it says why
// not. The GET has p's headers.
func fallback(l *link, p protocol, old *atomic.Pointer[sseTransport], sent []byte) error {
	ctx, stop := context.WithCancel(l.ctx)
	resp, _, err := l.get(ctx, p, "")
	if err != nil {
		stop()
		return err
	}
	body := l.net.reader(ctx, resp, stop)
	if resp.StatusCode != http.StatusOK || contentType(resp) != "text/event-stream" {
		data, _ := body.readAll(resp.ContentLength)
		resp.Body.Close()
		stop()
		return newStatusError("GET "+l.shown, resp, data, l.log, resp.StatusCode == http.StatusOK)
	}
	o, s, err := readEndpoint(l, body, stop)
	if err != nil {
		resp.Body.Close()
		stop()
		return err
	}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		resp.Body.Close()
		stop()
		return errClosed
	}
	old.Store(o)
	l.wg.Add(1)
	l.mu.Unlock()
	l.log.Line(l.name, "[gateway] the server speaks the older HTTP+SSE transport (MCP 2024-11-05); messages go to "+o.shown)
	go func() {
		defer l.wg.Done()
		defer stop()
		defer resp.Body.Close()
		o.read(ctx, s)
	}()
	return o.post(sent)
}

// readEndpoint reads the stream's first event, which must be endpoint: a URL,
// relative to url, of url's origin (the configured headers go there).
func readEndpoint(l *link, body *bodyReader, stop context.CancelFunc) (*sseTransport, *sseReader, error) {
	s := newSSEReader(body)
	timer := time.AfterFunc(endpointWait, stop)
	ev, err := s.next()
	timer.Stop()
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: no endpoint event within %s: %w", l.shown, endpointWait, err)
	}
	if ev.name != "endpoint" {
		return nil, nil, fmt.Errorf("GET %s: the stream's first event is %q, not endpoint", l.shown, ev.name)
	}
	base, err := url.Parse(l.net.url)
	if err != nil {
		return nil, nil, err
	}
	ref, err := url.Parse(string(bytes.TrimSpace(ev.data)))
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: the endpoint event's URL is not valid: %w", l.shown, err)
	}
	u := base.ResolveReference(ref)
	if origin(u) != origin(base) {
		return nil, nil, fmt.Errorf("GET %s: the endpoint event names another origin (%s); the gateway sends its headers only to url's", l.shown, origin(u))
	}
	return &sseTransport{l: l, endpoint: u.String(), shown: ShownURL(u.String())}, s, nil
}

// read hands every message of the stream to dispatch until it ends,
// which loses the server unless the transport closed.
func (o *sseTransport) read(ctx context.Context, s *sseReader) {
	l := o.l
	for {
		ev, err := s.next()
		if err != nil {
			var stall *stallError
			var limit *jsonrpc.Error
			if ctx.Err() == nil || errors.As(err, &stall) || errors.As(err, &limit) {
				l.net.lost(&reachError{op: "GET " + l.shown, cause: "the server's HTTP+SSE stream ended: " + err.Error(), err: err})
			}
			return
		}
		if msg, ok := l.message(ev); ok {
			l.conn.Dispatch(msg, 0)
		}
	}
}

// post POSTs one message to the endpoint; its answer, if any, comes on
// the stream.
func (o *sseTransport) post(msg []byte) error {
	l := o.l
	ctx, cancel := context.WithTimeout(l.ctx, postTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(msg))
	if err != nil {
		return err
	}
	l.net.baseHeaders(req.Header)
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.net.roundTrip(req)
	if err != nil {
		return l.net.failed(describe("POST "+o.shown, err))
	}
	defer drain(resp)
	if resp.StatusCode/100 != 2 {
		data, _ := l.net.reader(ctx, resp, cancel).readAll(resp.ContentLength)
		return newStatusError("POST "+o.shown, resp, data, l.log, false)
	}
	return nil
}
