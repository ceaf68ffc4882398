// Package fakehttp is a fake MCP server over HTTP, misbehaving on demand,
// for tests of the gateway's HTTP transport (SPEC §5.6, §7.9). It speaks
// raw JSON-RPC (no SDK), so tests control every byte, in one of three
// eras:
//
//   - "legacy" (the default): Streamable HTTP of MCP 2025-11-25, with
//     sessions (Mcp-Session-Id from initialize; 400 without one, 404 for
//     an unknown one), answers as SSE streams (or one JSON body with
//     Options.JSON), a GET stream (405 with Options.NoGET) and DELETE;
//   - "modern": Streamable HTTP of MCP 2026-07-28: initialize refused with
//     -32022, server/discover, the request headers checked against the
//     body (400 with -32020), subscriptions/listen, no session, GET 405;
//   - "sse": the older HTTP+SSE of MCP 2024-11-05 only: GET /sse opens the
//     stream (an endpoint event, then every message), POST
//     /messages?sessionId=… carries the client's; any other request 404.
//
// Tools (by name, whatever the list says):
//
//	echo {"text": s}      → text s
//	progress {"n": k}     → k progress notifications on the answer, then "done"
//	log                   → a notifications/message on the answer, then "logged"
//	elicit                → elicitation/create to the client on the answer; its result as text
//	sleep {"ms": d}       → sleep, then "slept"; ends early when cancelled (Cancelled)
//	change                → list_changed on every GET or listen stream; then tools from Tools2
//	mrtr                  → (modern) an InputRequiredResult asking for a name; "hello <name>" on the retry
//	pid                   → this process's pid
//	expire                → answer, then end the session (the next request is 404)
//	stall                 → an SSE event begun and never finished
//	stalljson             → a JSON body begun and never finished
//	huge {"bytes": n}     → one SSE event of about n bytes
//	closeearly            → an SSE priming event (id, retry), then the stream ends; the
//	                        answer comes on the GET that resumes it (Last-Event-ID)
//	html, fail500         → 200 with an HTML page; 500
//	redirect              → 307 to Options.RedirectTo
//
// A test binary becomes the server as a child when MCP_FAKE_HTTP is set
// (Main): it listens on 127.0.0.1:$PORT, with MCP_FAKE_HTTP_ERA,
// MCP_FAKE_HTTP_JSON and MCP_FAKE_HTTP_RECORD (a file that gets one JSON
// line per request: its HTTP method, JSON-RPC method and headers).
package fakehttp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// DefaultTools is the tools/list of a fake without Options.Tools.
const DefaultTools = `[{"name":"echo","description":"Echo text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]`

// Options says how the fake behaves.
type Options struct {
	Era    string // "legacy" (""), "modern" or "sse"
	JSON   bool   // legacy: answer a request with one JSON body; what it sends on the way goes to the GET stream
	NoGET  bool   // legacy: GET answers 405
	Tools  string // the tools/list "tools" array, raw (default DefaultTools)
	Tools2 string // the list after the tool change
	// Status, if set, answers every request with it, Body and BodyType.
	Status         int
	Body, BodyType string
	RedirectTo     string // where the tool redirect sends the client
	// Record, if set, gets every request as it arrives.
	Record func(Seen)
}

// Seen is one request the fake received.
type Seen struct {
	HTTP   string      `json:"http"`   // GET, POST, DELETE
	Method string      `json:"method"` // the JSON-RPC method; "" for a response or no body
	Header http.Header `json:"header"`
}

// Server is the fake; it is an http.Handler.
type Server struct {
	opts Options

	mu        sync.Mutex
	sessions  map[string]*session
	seen      []Seen
	cancelled []string
	tools     string
	listens   map[string]*stream              // modern: open subscriptions/listen, by request id
	waits     map[string]chan json.RawMessage // the fake's requests to the client, by id
	stops     map[string]chan struct{}        // sleeping calls, by request id
	parked    map[string]string               // closeearly's answers, by event id
	nextID    int
	gets      int // GET streams opened
	deleted   []string
	wg        sync.WaitGroup // HTTP+SSE requests being answered
}

type session struct {
	id     string
	stream *stream // legacy: the GET stream; sse: the session's stream
}

// New returns a fake.
func New(o Options) *Server {
	if o.Tools == "" {
		o.Tools = DefaultTools
	}
	return &Server{opts: o, sessions: map[string]*session{}, tools: o.Tools, listens: map[string]*stream{},
		waits: map[string]chan json.RawMessage{}, stops: map[string]chan struct{}{}, parked: map[string]string{}}
}

// Seen returns the requests received so far.
func (s *Server) Seen() []Seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Seen(nil), s.seen...)
}

// Cancelled returns how calls were cancelled: "notified <requestId>" for
// a notifications/cancelled, "closed <id>" for a request whose stream the
// client closed.
func (s *Server) Cancelled() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cancelled...)
}

// Deleted returns the sessions the client ended with DELETE.
func (s *Server) Deleted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.deleted...)
}

// Expire ends every session: the next request naming one gets 404.
func (s *Server) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, sess := range s.sessions {
		if sess.stream != nil {
			sess.stream.end()
		}
		delete(s.sessions, id)
	}
}

// Wait waits for the HTTP+SSE requests still being answered; call it
// after the HTTP server's Close.
func (s *Server) Wait() { s.wg.Wait() }

// Sessions returns how many sessions are open.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// Listening returns how many streams are open for what the fake sends
// unasked: a legacy session's GET stream, a modern subscriptions/listen.
func (s *Server) Listening() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.listens)
	for _, sess := range s.sessions {
		if sess.stream != nil {
			n++
		}
	}
	return n
}

// DropStreams ends every GET stream, the sessions kept.
func (s *Server) DropStreams() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sess := range s.sessions {
		if sess.stream != nil {
			sess.stream.end()
			sess.stream = nil
		}
	}
}

// GETs returns how many GET streams the fake has opened.
func (s *Server) GETs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// SessionIDs returns the ids of the open sessions.
func (s *Server) SessionIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	return ids
}

// message is a JSON-RPC message as the fake reads it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func parse(body []byte) message {
	var m message
	_ = json.Unmarshal(body, &m)
	return m
}

func (m message) isRequest() bool { return m.Method != "" && len(m.ID) > 0 && string(m.ID) != "null" }

// answered delivers the client's answer to one of the fake's requests,
// or records a cancellation; it reports whether m was either.
func (s *Server) answered(m message) bool {
	switch {
	case m.Method == "notifications/cancelled":
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		s.mu.Lock()
		s.cancelled = append(s.cancelled, "notified "+string(p.RequestID))
		if stop := s.stops[string(p.RequestID)]; stop != nil {
			close(stop)
			delete(s.stops, string(p.RequestID))
		}
		s.mu.Unlock()
		return true
	case m.Method == "" && len(m.ID) > 0:
		s.mu.Lock()
		ch := s.waits[string(m.ID)]
		delete(s.waits, string(m.ID))
		s.mu.Unlock()
		if ch != nil {
			if m.Error != nil {
				ch <- m.Error
			} else {
				ch <- m.Result
			}
		}
		return true
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func response(id json.RawMessage, result string) string {
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`
}

func errorResponse(id json.RawMessage, code int, msg string, data string) string {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	e := fmt.Sprintf(`{"code":%d,"message":%q`, code, msg)
	if data != "" {
		e += `,"data":` + data
	}
	return `{"jsonrpc":"2.0","id":` + string(id) + `,"error":` + e + `}}`
}

func text(t string) string {
	b, _ := json.Marshal(t)
	return `{"content":[{"type":"text","text":` + string(b) + `}]}`
}
