package httpup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file reads the answer to one request POSTed to an HTTP server
// (MCP 2025-11-25 basic/transports, "Sending Messages to the Server"):
// Request (or Inline, on the caller's goroutine) → exchange → answer → a JSON message (jsonAnswer), an SSE stream
// (streamAnswer, which may resume it), or a refusal (refused). Every
// message goes to dispatch with the request's id; the stream of an
// answer is read until its response, then closed.

// maxResumes bounds how many times one answer's SSE stream is resumed
// (GET with Last-Event-ID) without the response.
const maxResumes = 5

// Request POSTs request id and reads its answer on a goroutine of its
// own (exchange).
func (t *Transport) Request(id int64, method string, params json.RawMessage, msg []byte) error {
	if o := t.old.Load(); o != nil {
		return o.post(msg)
	}
	ctx, cancel, err := t.begin(t.ctx, id)
	if err != nil {
		return err
	}
	go func() {
		defer t.end(id, cancel)
		t.exchange(ctx, cancel, id, method, params, msg)
	}()
	return nil
}

// Inline is Request on the caller's goroutine (see rpc.Inliner), whose ctx
// ends the exchange too.
func (t *Transport) Inline(ctx context.Context, id int64, method string, params json.RawMessage, msg []byte) error {
	if o := t.old.Load(); o != nil {
		return o.post(msg)
	}
	ctx, cancel, err := t.begin(ctx, id)
	if err != nil {
		return err
	}
	defer t.end(id, cancel)
	t.exchange(ctx, cancel, id, method, params, msg)
	return nil
}

// exchange POSTs request id and hands its answer to the connection. A
// 404 for the session is answered by a new session (renew) and the
// request once more. cancel ends the request (its answer stalled).
func (t *Transport) exchange(ctx context.Context, cancel context.CancelFunc, id int64, method string, params json.RawMessage, msg []byte) {
	resp, session, err := t.do(ctx, method, params, msg)
	if err == nil && resp.StatusCode == http.StatusNotFound && session != "" {
		drain(resp)
		if err = t.sess.renew(ctx, session); err == nil {
			resp, _, err = t.do(ctx, method, params, msg)
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			t.conn.Unanswered(id, t.net.failed(err))
		}
		return
	}
	defer resp.Body.Close()
	body := t.net.reader(ctx, resp, cancel)
	defer body.done()
	switch kind := contentType(resp); {
	case resp.StatusCode == http.StatusAccepted:
		t.conn.Unanswered(id, fmt.Errorf("POST %s: the server answered the request with 202 Accepted and no response", t.shown))
	case resp.StatusCode/100 != 2:
		t.refused(ctx, id, method, msg, resp, body)
	case kind == "application/json":
		t.jsonAnswer(ctx, id, method, msg, resp, body)
	case kind == "text/event-stream":
		t.streamAnswer(ctx, id, method, msg, resp, body)
	default:
		data, _ := body.readAll(resp.ContentLength)
		t.conn.Unanswered(id, newStatusError("POST "+t.shown, resp, data, t.log, true))
	}
}

// jsonAnswer reads an answer of one JSON message.
func (t *Transport) jsonAnswer(ctx context.Context, id int64, method string, sent []byte, resp *http.Response, body *bodyReader) {
	data, err := body.readAll(resp.ContentLength)
	if err != nil {
		t.broken(ctx, id, err)
		return
	}
	msg, err := jsonrpc.DecodeOwned(data) // data is this message's own buffer, from the budget
	if err != nil {
		t.log.Output(t.name, "[http answer, not JSON-RPC; dropped] "+truncate(t.log.Mask(string(data)), 512))
		t.conn.Unanswered(id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the server's answer is not JSON-RPC: %v", err)})
		return
	}
	if t.deliver(msg, id, method, sent, resp) {
		return
	}
	// Another request's answer, most likely: the server sent more than an
	// answer's length before, and the connection, kept alive, carried it
	// to this request; this request's own answer follows on it. Used
	// again, it gave every next call the previous call's answer, so the
	// idle connections are closed.
	t.net.dropIdle()
	t.conn.Unanswered(id, fmt.Errorf("POST %s: the server's answer held no response to the request", t.shown))
}

// deliver hands one message of request id's answer to the connection;
// it reports whether it was that request's response. The response to
// initialize first tells the session (initialized), and a tools/list
// result the tools' headers (noteTools).
func (t *Transport) deliver(msg *jsonrpc.Message, id int64, method string, sent []byte, resp *http.Response) bool {
	answered := msg.IsResponse() && isID(msg.ID, id)
	if answered && len(msg.Result) > 0 {
		switch method {
		case "initialize":
			if err := t.sess.initialized(resp, msg, sent); err != nil {
				t.conn.Unanswered(id, err)
				return true
			}
		case "tools/list":
			t.tools.noteTools(msg.Result)
		}
	}
	t.conn.Dispatch(msg, id)
	return answered
}

// streamAnswer reads an SSE answer until its response. A legacy stream
// that ends cleanly first, after an event ID, is resumed with GET and
// Last-Event-ID after the server's retry time (MCP 2025-11-25
// "Resumability and Redelivery"); one that cannot be fails the call.
func (t *Transport) streamAnswer(ctx context.Context, id int64, method string, sent []byte, resp *http.Response, body *bodyReader) {
	s := newSSEReader(body)
	for resumes := 0; ; resumes++ {
		err := t.readStream(s, id, method, sent, resp)
		if err == nil {
			return
		}
		var stall *stallError
		var limit *jsonrpc.Error
		if errors.As(err, &limit) || errors.As(err, &stall) || ctx.Err() != nil ||
			!errors.Is(err, io.EOF) || s.lastID == "" || t.conn.ModernVersion() != "" || resumes == maxResumes {
			t.broken(ctx, id, err)
			return
		}
		next, rerr := t.resume(ctx, s)
		if rerr != nil {
			t.conn.Unanswered(id, rerr)
			return
		}
		s = next
	}
}

// readStream dispatches the events of s until request id's response (nil)
// or the stream's end or error; resp is the POST's answer, sent its body.
func (t *Transport) readStream(s *sseReader, id int64, method string, sent []byte, resp *http.Response) error {
	for {
		ev, err := s.next()
		if err != nil {
			return err
		}
		if msg, ok := t.message(ev); ok && t.deliver(msg, id, method, sent, resp) {
			return nil
		}
	}
}

// resume reopens an answer's stream: a GET with Last-Event-ID, after the
// server's retry time (at most a minute).
func (t *Transport) resume(ctx context.Context, s *sseReader) (*sseReader, error) {
	wait := min(s.retry, time.Minute)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	resp, _, err := t.get(ctx, s.lastID)
	if err != nil {
		return nil, t.net.failed(err)
	}
	if resp.StatusCode != http.StatusOK || contentType(resp) != "text/event-stream" {
		drain(resp)
		return nil, fmt.Errorf("GET %s: the server ended the answer's stream before the response, and answered HTTP %s to resume it", t.shown, resp.Status)
	}
	next := newSSEReader(t.net.reader(ctx, resp, func() { resp.Body.Close() }))
	next.lastID, next.retry = s.lastID, s.retry
	context.AfterFunc(ctx, func() { resp.Body.Close() })
	return next, nil
}

// broken handles an answer that could not be read to its response: one
// over the message limit or stalled fails its call; one cancelled (the
// call, or the transport closed) needs nothing more; any other broke off.
func (t *Transport) broken(ctx context.Context, id int64, err error) {
	var stall *stallError
	var limit *jsonrpc.Error
	switch {
	case errors.As(err, &limit): // over the message limit, or no room in the budget
		t.log.Line(t.name, "[gateway] "+limit.Message+"; the call fails")
		t.conn.Unanswered(id, limit)
	case errors.As(err, &stall):
		t.log.Line(t.name, "[gateway] "+err.Error())
		t.conn.Unanswered(id, fmt.Errorf("POST %s: %w", t.shown, err))
	case ctx.Err() != nil:
	default:
		t.brokeOff(ctx, id, err)
	}
}

// brokeOff handles an answer that ended without its response. A ping
// first asks whether the server is still there: if it cannot reach it,
// the server is lost, and the call fails with every other pending one
// (with its command's exit, if it had one); else only this call fails.
// The probe's own ping does not probe again when its answer breaks off
// too: that answer came, so the server is there.
func (t *Transport) brokeOff(ctx context.Context, id int64, err error) {
	if ctx.Err() != nil {
		return
	}
	if errors.Is(err, io.EOF) {
		err = fmt.Errorf("POST %s: the server ended the answer's SSE stream before the response", t.shown)
	} else {
		err = fmt.Errorf("POST %s: read the answer: %w", t.shown, err)
	}
	if ctx.Value(probing{}) == nil {
		t.probe(ctx)
	}
	t.conn.Unanswered(id, err)
}

// refused handles an error status. A JSON-RPC response to the request in
// the body is the server's answer (a modern server's -32022, -32020 or
// -32601 come so), dispatched as any; initialize refused with 400, 404 or
// 405 otherwise tries the older HTTP+SSE transport (fallback); anything
// else fails the call with the status.
func (t *Transport) refused(ctx context.Context, id int64, method string, sent []byte, resp *http.Response, body *bodyReader) {
	data, _ := body.readAll(resp.ContentLength)
	if msg, err := jsonrpc.Decode(data); err == nil && msg.IsResponse() && isID(msg.ID, id) {
		t.conn.Dispatch(msg, id)
		return
	}
	refusal := newStatusError("POST "+t.shown, resp, data, t.log, false)
	switch resp.StatusCode {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		if method == "initialize" && t.conn.ModernVersion() == "" {
			if ferr := fallback(&t.link, t.sess, &t.old, sent); ferr != nil {
				t.conn.Unanswered(id, fmt.Errorf("%w; nor is it an HTTP+SSE server: %w", refusal, ferr))
			}
			return
		}
	}
	t.conn.Unanswered(id, refusal)
}
