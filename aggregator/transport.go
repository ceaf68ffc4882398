package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file adapts go-sdk v1.8.0's stateful StreamableHTTPHandler to the
// MCP Streamable HTTP transport spec and SPEC §3 where they differ. Each
// rule below names what go-sdk does on its own (measured against this
// version; re-check them when upgrading):
//
//   - A POST without Mcp-Session-Id that is not an initialize request gets
//     400. go-sdk answers a request with HTTP 200 and a JSON-RPC error of
//     code 0 ("invalid during session initialization"), and a notification
//     with 202 after opening and dropping a throwaway session.
//   - Empty or malformed bodies get 400 with -32700 (not JSON) or -32600
//     (JSON but not a JSON-RPC message, an empty batch, or a batch at
//     protocol 2025-06-18 or later). go-sdk answers 400 in plain text, and
//     202 to an object such as {"jsonrpc":"2.0","id":2}.
//   - A body past the cap gets 413 with a JSON-RPC error (go-sdk: plain text).
//   - Accept: go-sdk wants both application/json and text/event-stream on a
//     POST and text/event-stream on a GET, and answers 400 otherwise. HTTP
//     says a missing Accept or */* accepts anything, and clients that send
//     only one type exist, so Accept is normalised before go-sdk sees it; a
//     JSON-only POST gets its answer as one application/json body (go-sdk
//     would stream SSE, which that client cannot read). 406 only when
//     neither type is acceptable.
//   - An MCP-Protocol-Version header that is not a version go-sdk supports
//     gets 400. go-sdk lets through any value that sorts after 2026-07-28
//     ("banana" included): a GET with it opened the stream.
//   - go-sdk's other plain-text errors (404 unknown session, 405, 415, …)
//     get a JSON-RPC error body, which go-sdk's and other clients decode.
//   - DELETE cancels the session's running calls first. go-sdk's
//     ServerSession.Close lets running handlers finish: a 20 s call ran to
//     its end after DELETE and its upstream never got notifications/cancelled.

// statelessProtocol is the first protocol version without initialize or
// sessions (SEP-2575). go-sdk serves it only on a stateless handler; on
// ours it answers such requests with its own JSON-RPC errors (-32022 with
// the supported versions), which new clients need in order to fall back to
// initialize, so the session rule below leaves them to go-sdk.
const statelessProtocol = "2026-07-28"

// transport is the front of /mcp, between auth and the session cap.
type transport struct {
	next        http.Handler
	maxBody     int64
	calls       *sessionCalls
	idleTimeout time.Duration // a session's, as go-sdk's SessionTimeout
}

func (f *transport) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(mcp.SupportedProtocolVersions(), v) {
		var legacy []string
		for _, s := range mcp.SupportedProtocolVersions() {
			if s < statelessProtocol {
				legacy = append(legacy, s)
			}
		}
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: legacy, Requested: v})
		writeRPCError(w, http.StatusBadRequest, nil, mcp.CodeUnsupportedProtocolVersion,
			fmt.Sprintf("Bad Request: unsupported MCP-Protocol-Version %q (supported: %s)", v, strings.Join(legacy, ", ")), data)
		return
	}
	ew := &errorBodyWriter{ResponseWriter: w}
	switch r.Method {
	case http.MethodGet:
		given, _, sse := accepts(r.Header.Values("Accept"))
		if given && !sse {
			writeRPCError(w, http.StatusNotAcceptable, nil, -32600, "Not Acceptable: GET /mcp opens an SSE stream; send Accept: text/event-stream", nil)
			return
		}
		r.Header.Set("Accept", "text/event-stream")
	case http.MethodDelete:
		if id := r.Header.Get("Mcp-Session-Id"); id != "" {
			f.calls.end(id)
		}
	case http.MethodPost:
		f.servePOST(ew, r)
		return
	}
	f.next.ServeHTTP(ew, r)
	ew.finish()
}

func (f *transport) servePOST(ew *errorBodyWriter, r *http.Request) {
	given, jsonOK, sseOK := accepts(r.Header.Values("Accept"))
	if given && !jsonOK && !sseOK {
		writeRPCError(ew.ResponseWriter, http.StatusNotAcceptable, nil, -32600, "Not Acceptable: send Accept: application/json, text/event-stream", nil)
		return
	}
	jsonOnly := given && jsonOK && !sseOK
	r.Header.Set("Accept", "application/json, text/event-stream")
	if r.Header.Get("Content-Type") == "" {
		r.Header.Set("Content-Type", "application/json")
	}

	rd := r.Body
	if f.maxBody > 0 {
		rd = http.MaxBytesReader(ew.ResponseWriter, r.Body, f.maxBody)
	}
	// A body trickled in a byte at a time held the connection for as long
	// as the client liked: bound its reading (the deadline is cleared after,
	// so that it does not cut the response stream).
	rc := http.NewResponseController(ew.ResponseWriter)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout))
	body, err := io.ReadAll(rd)
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeRPCError(ew.ResponseWriter, http.StatusRequestEntityTooLarge, nil, -32600,
				fmt.Sprintf("request body exceeds the gateway's limit of %d bytes", mbe.Limit), nil)
			return
		}
		writeRPCError(ew.ResponseWriter, http.StatusBadRequest, nil, -32700, "Parse error: reading the body: "+err.Error(), nil)
		return
	}
	msgs, batch, code, msg := parseBody(body)
	if code != 0 {
		writeRPCError(ew.ResponseWriter, http.StatusBadRequest, nil, code, msg, nil)
		return
	}
	var id json.RawMessage // of a single request, for error bodies
	if !batch && msgs[0].method != "" {
		id = msgs[0].id
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	if version == "" {
		version = "2025-03-26" // the transport spec's default
	}
	if batch && version >= "2025-06-18" && version < statelessProtocol {
		writeRPCError(ew.ResponseWriter, http.StatusBadRequest, nil, -32600,
			"Invalid Request: JSON-RPC batches are not part of MCP "+version+" (removed in 2025-06-18); send one message per POST", nil)
		return
	}
	if r.Header.Get("Mcp-Session-Id") == "" && version < statelessProtocol && (batch || msgs[0].method != "initialize" || msgs[0].id == nil) {
		writeRPCError(ew.ResponseWriter, http.StatusBadRequest, id, -32000,
			"Bad Request: Mcp-Session-Id header is required (send initialize first, then the Mcp-Session-Id it returns on every request)", nil)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	ew.id = id
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		f.calls.postStarted(sid, ew)
		defer f.calls.postEnded(sid, ew, f.idleTimeout)
	}
	if !jsonOnly {
		f.next.ServeHTTP(ew, r)
		ew.finish()
		return
	}
	jw := &jsonOnlyWriter{ResponseWriter: ew.ResponseWriter, batch: batch}
	ew.ResponseWriter = jw
	f.next.ServeHTTP(ew, r)
	ew.finish()
	jw.finish()
}

// accepts reports whether an Accept header was sent, and whether it admits
// JSON and SSE (wildcards count; q=0 excludes).
func accepts(values []string) (given, jsonOK, sseOK bool) {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			base, params, _ := strings.Cut(part, ";")
			base = strings.ToLower(strings.TrimSpace(base))
			if base == "" {
				continue
			}
			given = true
			if q, ok := qValue(params); ok && q == 0 {
				continue
			}
			switch base {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return given, jsonOK, sseOK
}

func qValue(params string) (float64, bool) {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return q, err == nil
		}
	}
	return 1, false
}

type bodyMsg struct {
	id     json.RawMessage // nil for a notification
	method string          // "" for a response
}

// parseBody checks that a POST body is one JSON-RPC message or a non-empty
// batch of them. On failure it returns a JSON-RPC error code and message.
func parseBody(body []byte) (msgs []bodyMsg, batch bool, code int, msg string) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, false, -32700, "Parse error: the body is empty; POST one JSON-RPC message"
	}
	if !json.Valid(body) {
		return nil, false, -32700, "Parse error: the body is not valid JSON"
	}
	raws := []json.RawMessage{body}
	if body[0] == '[' {
		batch = true
		raws = nil
		_ = json.Unmarshal(body, &raws)
		if len(raws) == 0 {
			return nil, true, -32600, "Invalid Request: empty batch"
		}
	}
	for _, raw := range raws {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  *string         `json:"method"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
			return nil, batch, -32600, "Invalid Request: not a JSON-RPC message object"
		}
		if m.JSONRPC != "2.0" {
			return nil, batch, -32600, `Invalid Request: "jsonrpc" must be "2.0"`
		}
		// An id is a string or an integer (MCP, Base Protocol: "a string
		// or integer ID"); null only on an error response (to a message
		// whose id could not be read).
		nullID := string(m.ID) == "null"
		if len(m.ID) > 0 && !nullID && m.ID[0] != '"' && !integerID(m.ID) {
			return nil, batch, -32600, "Invalid Request: id must be a string or an integer of at most 2^53-1 in magnitude, got " + string(m.ID)
		}
		switch {
		case m.Method != nil && *m.Method != "" && !nullID:
			msgs = append(msgs, bodyMsg{id: m.ID, method: *m.Method})
		case m.Method == nil && len(m.ID) > 0 && (len(m.Result) > 0) != (len(m.Error) > 0) && (!nullID || len(m.Error) > 0):
			msgs = append(msgs, bodyMsg{id: m.ID})
		default:
			return nil, batch, -32600, "Invalid Request: not a JSON-RPC request, notification or response"
		}
	}
	return msgs, batch, 0, ""
}

// integerID reports whether a JSON number is an integer that go-sdk keeps
// exactly: it decodes ids through float64, so only |n| ≤ 2^53-1 (also
// JavaScript's safe integers). go-sdk turned 1.5 into 1, 1e2 into 100,
// 9007199254740993 into 9007199254740992 and 99999999999999999999999 into
// -9223372036854775808, so the client got its answer under another id,
// and 1.5 collided with 1 in flight.
func integerID(raw json.RawMessage) bool {
	const maxSafe = 1<<53 - 1
	s := string(raw)
	if s == "-0" || (len(s) > 1 && s[0] == '0') || (len(s) > 2 && s[:2] == "-0") {
		return false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return err == nil && n >= -maxSafe && n <= maxSafe
}

// writeRPCError writes a JSON-RPC error response with an HTTP status.
func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int, msg string, data json.RawMessage) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := map[string]any{"code": code, "message": msg}
	if len(data) > 0 {
		e["data"] = data
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// errorBodyWriter turns go-sdk's plain-text error responses (http.Error)
// into JSON-RPC error bodies with the same status and message.
type errorBodyWriter struct {
	http.ResponseWriter
	id      json.RawMessage
	wrote   bool
	status  int // non-zero: a plain-text error is being collected
	buf     bytes.Buffer
	aborted atomic.Bool // the session was deleted: see abort
}

// bodyReadTimeout bounds reading a POST body: 64 MiB (the default cap) at
// about 1 MB/s.
const bodyReadTimeout = 60 * time.Second

// writeStall bounds one write to a client that does not read: a response
// stuck in a blocked write held go-sdk's stream, so the session's DELETE,
// and then every request of it, waited for as long as the client did.
const writeStall = 60 * time.Second

// errAborted fails writes to the response of a deleted session.
var errAborted = errors.New("write response: the session was deleted")

// guard bounds the write about to be made by writeStall; call the function
// it returns when the write is done. The deadline is cleared after each
// write, since it stays on the connection: a stream idle for longer would
// otherwise fail its next write at once.
func (w *errorBodyWriter) guard() func() {
	rc := http.NewResponseController(w.ResponseWriter)
	if rc.SetWriteDeadline(time.Now().Add(writeStall)) != nil {
		return func() {}
	}
	return func() {
		if !w.aborted.Load() {
			_ = rc.SetWriteDeadline(time.Time{})
		}
	}
}

// abort fails the write in progress, if any, and every later one: DELETE
// ends a session at once, even while a response of it is stuck on a
// client that does not read (SPEC §3.5).
func (w *errorBodyWriter) abort() {
	w.aborted.Store(true)
	_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now())
}

func (w *errorBodyWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if code >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *errorBodyWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.status != 0 {
		return w.buf.Write(b)
	}
	if w.aborted.Load() {
		return 0, errAborted
	}
	defer w.guard()()
	return w.ResponseWriter.Write(b)
}

func (w *errorBodyWriter) Flush() {
	if w.status == 0 && !w.aborted.Load() {
		defer w.guard()()
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *errorBodyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *errorBodyWriter) finish() {
	if w.status == 0 {
		return
	}
	msg := strings.TrimSpace(w.buf.String())
	code := -32600 // Invalid Request
	switch {
	case w.status == http.StatusNotFound:
		code = -32001 // session not found, as the TypeScript SDK answers
	case w.status >= 500:
		code = -32603
	case strings.Contains(msg, "not handled"):
		code = -32601 // go-sdk: `JSON RPC not handled: "x" unsupported`
	}
	w.Header().Del("X-Content-Type-Options")
	writeRPCError(w.ResponseWriter, w.status, w.id, code, msg, nil)
}

// jsonOnlyWriter answers a client that accepts only application/json: it
// collects go-sdk's SSE response stream and writes the JSON-RPC response
// (an array for a batch) as one JSON body. Notifications and requests sent
// on the way have no channel to such a client and are dropped.
type jsonOnlyWriter struct {
	http.ResponseWriter
	batch bool
	wrote bool
	sse   bool
	buf   bytes.Buffer
}

func (w *jsonOnlyWriter) WriteHeader(code int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		w.sse = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *jsonOnlyWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.sse {
		return w.buf.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

func (w *jsonOnlyWriter) Flush() {
	if !w.sse {
		_ = http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *jsonOnlyWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *jsonOnlyWriter) finish() {
	if !w.sse {
		return
	}
	var responses []json.RawMessage
	for event := range strings.SplitSeq(strings.ReplaceAll(w.buf.String(), "\r\n", "\n"), "\n\n") {
		var data []string
		for line := range strings.SplitSeq(event, "\n") {
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(d, " "))
			}
		}
		raw := json.RawMessage(strings.Join(data, "\n"))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(raw, &m) == nil && len(m.ID) > 0 && m.Method == "" {
			responses = append(responses, raw)
		}
	}
	h := w.Header()
	h.Del("Connection")
	if len(responses) == 0 {
		writeRPCError(w.ResponseWriter, http.StatusServiceUnavailable, nil, -32603, "the session ended before the response was ready", nil)
		return
	}
	body := []byte(responses[0])
	if w.batch {
		body, _ = json.Marshal(responses)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.ResponseWriter.WriteHeader(http.StatusOK)
	_, _ = w.ResponseWriter.Write(body)
}

// sessionCalls tracks the running requests of each session, so that DELETE
// and idle expiry can cancel them. The cancelled context reaches the
// upstream as notifications/cancelled.
//
// Expiry: go-sdk closes a session once no POST of it has been open for
// SessionTimeout, but its ServerSession.Close then waits for the running
// requests. A call whose client went away (a dropped POST, no DELETE) on
// a server that never answers kept its session, and its slot under the
// session cap, forever. So the same idle clock runs here, for sessions
// with running requests only: paused while a POST of the session is open,
// and when it runs out the session's requests are cancelled, which lets
// go-sdk's Close finish.
type sessionCalls struct {
	mu     sync.Mutex
	calls  map[string]map[*context.CancelCauseFunc]struct{}
	posts  map[string]map[*errorBodyWriter]struct{} // open POSTs by session id
	expiry map[string]*idleClock                    // of sessions with running requests
}

// idleClock is one session's idle timer; its identity tells a firing that
// was stopped or replaced meanwhile from the current one.
type idleClock struct{ timer *time.Timer }

// callsByServer holds one sessionCalls per go-sdk server, so that its
// middleware is added once however often Handler is called.
var callsByServer sync.Map // *mcp.Server → *sessionCalls

func callsFor(s *mcp.Server) *sessionCalls {
	sc := &sessionCalls{
		calls:  map[string]map[*context.CancelCauseFunc]struct{}{},
		posts:  map[string]map[*errorBodyWriter]struct{}{},
		expiry: map[string]*idleClock{},
	}
	if v, loaded := callsByServer.LoadOrStore(s, sc); loaded {
		return v.(*sessionCalls)
	}
	// Added after the gateway's own middleware, so it runs first and the
	// gateway's tools/call sees the cancellable context.
	s.AddReceivingMiddleware(sc.middleware)
	return sc
}

func (sc *sessionCalls) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok || ss == nil || ss.ID() == "" || strings.HasPrefix(method, "notifications/") {
			return next(ctx, method, req)
		}
		id := ss.ID()
		ctx, cancel := context.WithCancelCause(ctx)
		key := &cancel
		sc.mu.Lock()
		if sc.calls[id] == nil {
			sc.calls[id] = map[*context.CancelCauseFunc]struct{}{}
		}
		sc.calls[id][key] = struct{}{}
		sc.mu.Unlock()
		defer func() {
			sc.mu.Lock()
			delete(sc.calls[id], key)
			if len(sc.calls[id]) == 0 {
				delete(sc.calls, id)
				if c := sc.expiry[id]; c != nil {
					c.timer.Stop() // no request left to cancel: go-sdk's own expiry suffices
					delete(sc.expiry, id)
				}
			}
			sc.mu.Unlock()
			cancel(nil)
		}()
		return next(ctx, method, req)
	}
}

// cancel cancels every running request of the session.
func (sc *sessionCalls) cancel(sessionID string) {
	sc.cancelWhere(func(id string) bool { return id == sessionID }, nil)
}

// end is DELETE: it cancels the session's running requests and aborts its
// open POST responses, so that a response stuck on a client that does not
// read cannot hold the session.
func (sc *sessionCalls) end(sessionID string) {
	sc.cancel(sessionID)
	sc.mu.Lock()
	var open []*errorBodyWriter
	for w := range sc.posts[sessionID] {
		open = append(open, w)
	}
	sc.mu.Unlock()
	for _, w := range open {
		w.abort()
	}
}

// cancelAll cancels every running request of every session, with cause
// (a *jsonrpc.Error becomes the requests' answer: see Gateway.call).
func (sc *sessionCalls) cancelAll(cause error) {
	sc.cancelWhere(func(string) bool { return true }, cause)
}

// cancelWhere cancels the running requests of the sessions match accepts,
// with cause (nil: context.Canceled).
func (sc *sessionCalls) cancelWhere(match func(sessionID string) bool, cause error) {
	sc.mu.Lock()
	var fns []context.CancelCauseFunc
	for id, calls := range sc.calls {
		if match(id) {
			for k := range calls {
				fns = append(fns, *k)
			}
		}
	}
	sc.mu.Unlock()
	for _, f := range fns {
		f(cause)
	}
}

// postStarted records an open POST of the session, whose response w a
// DELETE aborts, and pauses the session's idle clock while it is open, as
// go-sdk does.
func (sc *sessionCalls) postStarted(sessionID string, w *errorBodyWriter) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.posts[sessionID] == nil {
		sc.posts[sessionID] = map[*errorBodyWriter]struct{}{}
	}
	sc.posts[sessionID][w] = struct{}{}
	if c := sc.expiry[sessionID]; c != nil {
		c.timer.Stop()
		delete(sc.expiry, sessionID)
	}
}

// postEnded restarts the idle clock (timeout, > 0) when the session's last
// open POST ends with requests still running.
func (sc *sessionCalls) postEnded(sessionID string, w *errorBodyWriter, timeout time.Duration) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if delete(sc.posts[sessionID], w); len(sc.posts[sessionID]) > 0 {
		return
	}
	delete(sc.posts, sessionID)
	if len(sc.calls[sessionID]) == 0 || timeout <= 0 {
		return
	}
	if c := sc.expiry[sessionID]; c != nil {
		c.timer.Stop()
	}
	c := &idleClock{}
	c.timer = time.AfterFunc(timeout, func() { sc.expire(sessionID, c) })
	sc.expiry[sessionID] = c
}

// expire cancels the requests of a session whose idle clock c ran out,
// unless c was stopped or replaced since.
func (sc *sessionCalls) expire(sessionID string, c *idleClock) {
	sc.mu.Lock()
	if sc.expiry[sessionID] != c {
		sc.mu.Unlock()
		return
	}
	delete(sc.expiry, sessionID)
	sc.mu.Unlock()
	sc.cancel(sessionID)
}
