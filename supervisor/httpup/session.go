package httpup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// session is a legacy HTTP server's session (MCP 2025-11-25
// basic/transports, "Session Management") on its Transport: what
// initialize's answer says (initialized), its headers on every request
// (stamp), a new session when the server ends one (renew), the GET
// stream (openGET, listenGET) and DELETE at close (end). Its state is
// guarded by the link's mu, which also says whether it closed.
type session struct {
	l   *link
	old *atomic.Pointer[sseTransport] // the Transport's: set when the HTTP+SSE fallback took over

	id      string // Mcp-Session-Id; "" for none
	version string // the negotiated version, once initialize answered
	// idHdr and versionHdr are id and version as header values, shared
	// by every request (nil: none).
	idHdr, versionHdr []string
	initMsg           []byte             // the initialize request, for a new session
	renewal           *renewal           // a new session being made
	getStop           context.CancelFunc // the GET stream's; nil when none runs
	getGone           bool               // the server answered GET with 405
}

// The waits of a legacy HTTP server's session.
const (
	// renewTimeout bounds making a new session after a 404.
	renewTimeout = 30 * time.Second
	// deleteTimeout bounds the DELETE that ends a session at close.
	deleteTimeout = 2 * time.Second
	// getRetryMax is the longest wait before the GET stream is reopened
	// after it ended; the waits double from getRetryMin. A server's own
	// retry field is the wait instead, but not under getRetryFloor.
	getRetryMin, getRetryMax = time.Second, 30 * time.Second
	getRetryFloor            = 100 * time.Millisecond
	// getStable is how long a GET stream must have lasted for its end to
	// be reopened at once, the back-off forgotten.
	getStable = time.Minute
	// getRefusals is how many answers in a row that are no SSE stream
	// (an error status other than 404 and 405) make the gateway stop asking
	// for the GET stream, as 405 does.
	getRefusals = 5
)

// initialized records what initialize's answer says of the session: the
// Mcp-Session-Id (visible ASCII, "Session Management" 1) and the
// negotiated protocol version, sent on every later request; sent, the
// initialize, is kept for a new session.
func (s *session) initialized(resp *http.Response, msg *jsonrpc.Message, sent []byte) error {
	l := s.l
	session := resp.Header.Get("Mcp-Session-Id")
	for _, c := range []byte(session) {
		if c < 0x21 || c > 0x7e {
			return fmt.Errorf("POST %s: the server's Mcp-Session-Id is not visible ASCII", l.shown)
		}
	}
	raw, _ := jsonrpc.Member(msg.Result, "protocolVersion")
	version, _ := jsonrpc.Text(raw)
	l.mu.Lock()
	s.id, s.version, s.initMsg = session, version, sent
	s.idHdr, s.versionHdr = []string{session}, nil
	if version != "" {
		s.versionHdr = []string{version}
	}
	l.mu.Unlock()
	return nil
}

// stamp sets the session's headers on a request of method, once
// initialize has answered, and returns the session it names ("" for
// none).
func (s *session) stamp(h http.Header, method string, _ json.RawMessage) string {
	s.l.mu.Lock()
	id, idHdr, versionHdr := s.id, s.idHdr, s.versionHdr
	s.l.mu.Unlock()
	if id != "" {
		h["Mcp-Session-Id"] = idHdr
	}
	if versionHdr != nil && method != "initialize" {
		h["Mcp-Protocol-Version"] = versionHdr
	}
	return id
}

// renewal is a new session being made; err is set before done closes.
type renewal struct {
	done chan struct{}
	err  error
}

// renew makes a new session after the server answered 404 to a request
// in session expired (the server ended it: "Session Management" 3, 4):
// initialize again (newSession). Requests that meet the same 404 share
// one renewal; one that comes once it is made just uses the new session.
func (s *session) renew(ctx context.Context, expired string) error {
	l := s.l
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return errClosed
	}
	if s.id != expired {
		l.mu.Unlock()
		return nil
	}
	if r := s.renewal; r != nil {
		l.mu.Unlock()
		select {
		case <-r.done:
			return r.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	r := &renewal{done: make(chan struct{})}
	s.renewal = r
	sent := s.initMsg
	l.mu.Unlock()
	r.err = s.newSession(sent)
	l.mu.Lock()
	s.renewal = nil
	l.mu.Unlock()
	close(r.done)
	return r.err
}

// newSession sends initialize again, with the first one's params and an
// id of its own, then notifications/initialized; a GET stream opens for
// the new session, and the lists are read again: the new session may list
// others. (Resource subscriptions of the old session are not made again
// in the new one: the server's restart does that: package supervisor.)
func (s *session) newSession(sent []byte) error {
	l := s.l
	ctx, cancel := context.WithTimeout(l.ctx, renewTimeout)
	defer cancel()
	l.log.Line(l.name, "[gateway] the server ended the session (HTTP 404); starting a new one")
	id := l.conn.NextID()
	msg, err := jsonrpc.Replace(sent, "id", jsonrpc.IntID(id))
	if err != nil {
		return fmt.Errorf("start a new session: %w", err)
	}
	res, resp, err := s.own(ctx, id, msg)
	if err != nil {
		return fmt.Errorf("start a new session: %w", l.net.failed(err))
	}
	defer resp.Body.Close()
	if len(res.Error) > 0 {
		return fmt.Errorf("start a new session: initialize: %w", jsonrpc.DecodeError(res.Error))
	}
	if err := s.initialized(resp, res, sent); err != nil {
		return fmt.Errorf("start a new session: %w", err)
	}
	if err := l.ack(s, jsonrpc.Notification("notifications/initialized", nil), false); err != nil {
		return fmt.Errorf("start a new session: notifications/initialized: %w", err)
	}
	s.openGET()
	l.conn.ListsChanged("notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed")
	return nil
}

// own POSTs a request of the transport's own (a new session's
// initialize, outside any session) and returns its response; other
// messages on its answer go to dispatch.
func (s *session) own(ctx context.Context, id int64, msg []byte) (*jsonrpc.Message, *http.Response, error) {
	l := s.l
	req, err := l.net.newRequest(ctx, http.MethodPost, msg)
	if err != nil {
		return nil, nil, err
	}
	req.Header["Content-Type"], req.Header["Accept"] = hdrJSON, hdrAccept
	resp, err := l.net.roundTrip(req)
	if err != nil {
		return nil, nil, describe("POST "+l.shown, err)
	}
	body := l.net.reader(ctx, resp, cancelOnly(ctx, resp))
	defer body.done()
	if resp.StatusCode != http.StatusOK {
		data, _ := body.readAll(resp.ContentLength)
		resp.Body.Close()
		return nil, nil, newStatusError("POST "+l.shown, resp, data, l.log, false)
	}
	if contentType(resp) == "text/event-stream" {
		events := newSSEReader(body)
		for {
			ev, err := events.next()
			if err != nil {
				resp.Body.Close()
				return nil, nil, fmt.Errorf("POST %s: read the answer: %w", l.shown, err)
			}
			if m, err := jsonrpc.DecodeOwned(ev.data); err == nil {
				if m.IsResponse() && isID(m.ID, id) {
					return m, resp, nil
				}
				l.conn.Dispatch(m, 0)
			}
		}
	}
	data, err := body.readAll(resp.ContentLength)
	if err != nil {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("POST %s: read the answer: %w", l.shown, err)
	}
	res, err := jsonrpc.DecodeOwned(data)
	if err != nil || !res.IsResponse() {
		resp.Body.Close()
		return nil, nil, fmt.Errorf("POST %s: the server's answer is not a JSON-RPC response", l.shown)
	}
	return res, resp, nil
}

// cancelOnly is the stall cancel of a response read on ctx: closing it.
func cancelOnly(_ context.Context, resp *http.Response) context.CancelFunc {
	return func() { resp.Body.Close() }
}

// openGET opens the session's GET stream, ending the one before: after
// notifications/initialized, in every session. A server that answered
// 405 is not asked again.
func (s *session) openGET() {
	l := s.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || s.getGone || s.old.Load() != nil {
		return
	}
	if s.getStop != nil {
		s.getStop()
	}
	ctx, stop := context.WithCancel(l.ctx)
	s.getStop = stop
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		s.listenGET(ctx)
	}()
}

// listenGET keeps the GET stream ("Listening for Messages from the
// Server") open until ctx ends: every message on it goes to dispatch,
// from no call. A stream that ends is reopened, with Last-Event-ID: after
// the server's retry time if it gave one (the spec's MUST), else at once
// after one that lasted getStable, else after a wait doubling from
// getRetryMin to getRetryMax. 405 means the server offers none; 404 that
// the session ended (renew, which opens the next); a GET that cannot
// reach the server loses it.
func (s *session) listenGET(ctx context.Context) {
	var st getState
	wait, backoff := time.Duration(0), getRetryMin
	for {
		if !sleep(ctx, wait) {
			return
		}
		opened := time.Now()
		again, retry := s.getOnce(ctx, &st)
		if !again || ctx.Err() != nil {
			return
		}
		switch {
		case retry > 0:
			wait = max(retry, getRetryFloor)
		case time.Since(opened) >= getStable:
			wait, backoff = 0, getRetryMin
		default:
			wait, backoff = backoff, min(backoff*2, getRetryMax)
		}
	}
}

// getState is what one GET stream's reopenings carry over: the last
// event id, and the refusals in a row.
type getState struct {
	lastID   string
	refusals int
}

// getOnce opens the GET stream once and reads it to its end. It reports
// whether to open it again, and the server's retry time.
func (s *session) getOnce(ctx context.Context, st *getState) (again bool, retry time.Duration) {
	l := s.l
	reqCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, session, err := l.get(reqCtx, s, st.lastID)
	if err != nil {
		if ctx.Err() == nil {
			l.log.Line(l.name, "[gateway] GET stream: "+l.log.Mask(err.Error()))
			_ = l.net.failed(err)
		}
		return false, 0
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		l.mu.Lock()
		s.getGone = true
		l.mu.Unlock()
		return false, 0
	case resp.StatusCode == http.StatusNotFound && session != "":
		_ = s.renew(ctx, session) // a new session opens a GET stream of its own
		return false, 0
	case resp.StatusCode != http.StatusOK || contentType(resp) != "text/event-stream":
		st.refusals++
		again := st.refusals < getRefusals
		what := "trying again later"
		if !again {
			what = fmt.Sprintf("%d times in a row: the gateway stops asking; what the server sends outside a call is lost", getRefusals)
		}
		l.log.Line(l.name, fmt.Sprintf("[gateway] GET stream: the server answered HTTP %s (%s); %s", resp.Status, resp.Header.Get("Content-Type"), what))
		return again, 0
	}
	st.refusals = 0
	events := newSSEReader(l.net.reader(reqCtx, resp, cancel))
	for {
		ev, err := events.next()
		if err != nil {
			st.lastID = events.lastID
			s.streamEnded(ctx, err)
			return true, events.retry
		}
		if msg, ok := l.message(ev); ok {
			l.conn.Dispatch(msg, 0)
		}
	}
}

// streamEnded handles the end of the GET stream: a stall or an event
// over the limit is logged; a stream that broke off pings the server.
func (s *session) streamEnded(ctx context.Context, err error) {
	l := s.l
	var stall *stallError
	var limit *jsonrpc.Error
	switch {
	case ctx.Err() != nil:
	case errors.As(err, &stall), errors.As(err, &limit):
		l.log.Line(l.name, "[gateway] GET stream: "+err.Error()+"; reopening it")
	case !errors.Is(err, io.EOF):
		l.probe(ctx)
	}
}

// end ends session, the last one, with DELETE ("Session Management" 5);
// a 405 (the server keeps sessions to itself) or no answer within
// deleteTimeout is fine.
func (s *session) end(session string) {
	l := s.l
	ctx, cancel := context.WithTimeout(context.Background(), deleteTimeout)
	defer cancel()
	req, err := l.net.newRequest(ctx, http.MethodDelete, nil)
	if err != nil {
		return
	}
	req.Header["Mcp-Session-Id"] = []string{session}
	l.mu.Lock()
	if s.versionHdr != nil {
		req.Header["Mcp-Protocol-Version"] = s.versionHdr
	}
	l.mu.Unlock()
	if resp, err := l.net.roundTrip(req); err == nil {
		drain(resp)
	}
}

// sleep waits d, or until ctx ends; it reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
