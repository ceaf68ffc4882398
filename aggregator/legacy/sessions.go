package legacy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/taskrun"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// ErrUnknownSession answers a request that names a session the front
// does not know, or that has ended: 404 with -32001.
var ErrUnknownSession = &wire.HTTPError{Status: http.StatusNotFound, Code: -32001,
	Msg: "Not Found: unknown or expired session; send initialize for a new one"}

// errClientCancelled is the cause of a request the client cancelled with
// notifications/cancelled: it gets no response (MCP Cancellation), and
// its record is cancelled.
var errClientCancelled = record.ErrClientCancelled

// errSessionEnded is the cause of the requests still running when their
// session ends; each gets it as its error, rather than "context canceled".
var errSessionEnded = errors.New("the request's session ended (DELETE /mcp, idle expiry or the gateway's shutdown)")

// sessions is the table of legacy MCP sessions (SPEC §3.5): issued at
// initialize, ended by DELETE, by idle expiry, or at shutdown. At most max
// live at once: the cap is the table's size, checked and grown under one
// lock.
type sessions struct {
	max  int
	idle time.Duration
	// onEnd is called once a session has ended, outside the table's lock
	// (Front.sessionEnded).
	onEnd func(*Session)

	mu   sync.Mutex
	byID map[string]*Session
}

func newSessions(max int, idle time.Duration) *sessions {
	return &sessions{max: max, idle: idle, byID: map[string]*Session{}}
}

// Session is one client's legacy Session. Its requests run on contexts
// derived from ctx, which ends with the Session, so a client that drops a
// POST does not end its call (MCP 2025-06-18 Streamable HTTP: disconnection
// is not cancellation) but DELETE and expiry do.
type Session struct {
	id      string
	version string            // negotiated protocol version
	caps    json.RawMessage   // the client's capabilities from initialize, raw
	upCaps  json.RawMessage   // caps as modern servers see them (peer.Client): without the tasks extension
	info    json.RawMessage   // the client's clientInfo, raw
	uris    registry.Memory   // the URIs results carried to it (registry.Memory)
	tools   relay.ToolsChoice // what its initialize's URL chose of tools/list (SPEC §4.10)

	ctx    context.Context
	cancel context.CancelCauseFunc

	mu       sync.Mutex
	ended    bool
	level    string                             // logging/setLevel; "" = every level
	calls    map[string]context.CancelCauseFunc // running requests by raw id
	posts    map[*wire.Stream]struct{}          // open POST responses
	get      *getStream                         // the open GET stream, if any
	asks     map[string]chan clientAnswer       // server-to-client requests by our id
	nextAsk  int64
	openPost int         // POSTs in flight; the idle clock runs at 0
	clock    *time.Timer // the idle clock, made at the first POST's end, stopped while a POST is open
	idleFrom time.Time   // when the last open POST ended: the idle clock's start
}

// getStream is a session's GET /mcp stream (SPEC §3.6): the channel for
// what the gateway sends outside any request, notifications/tools/
// list_changed above all. Messages are queued (up to getQueue; past it the
// oldest news is only that the list changed, so a full queue drops) and
// written by the GET handler itself, so a slow client never blocks the
// sender.
type getStream struct {
	out   *wire.Stream
	queue chan []byte

	once    sync.Once
	stopped chan struct{} // closed by stop: the session ended or a newer GET replaced it
}

// getQueue is how many messages wait for a GET stream's client.
const getQueue = 64

// send queues msg without blocking; it reports false when the queue is
// full and msg was dropped.
func (g *getStream) send(msg []byte) bool {
	select {
	case g.queue <- msg:
		return true
	default:
		return false
	}
}

// stop ends the stream; its handler returns.
func (g *getStream) stop() {
	g.once.Do(func() {
		close(g.stopped)
		g.out.Abort()
	})
}

// clientAnswer is a client's response to a server-to-client request.
type clientAnswer struct {
	result, errObj json.RawMessage
}

// open adds a session, unless max are live (then it returns nil). Its idle
// clock starts when the initialize POST ends (see postEnded).
func (t *sessions) open(version string, caps, info json.RawMessage, tools relay.ToolsChoice) *Session {
	var b [16]byte
	_, _ = rand.Read(b[:])
	s := &Session{
		id: hex.EncodeToString(b[:]), version: version, caps: caps, upCaps: taskrun.WithoutTasksExt(caps), info: info,
		calls: map[string]context.CancelCauseFunc{}, posts: map[*wire.Stream]struct{}{},
		asks: map[string]chan clientAnswer{}, tools: tools,
	}
	s.ctx, s.cancel = context.WithCancelCause(context.Background())
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byID) >= t.max {
		s.cancel(nil)
		return nil
	}
	t.byID[s.id] = s
	return s
}

// get returns the live session with id, or nil.
func (t *sessions) get(id string) *Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byID[id]
}

// count returns the number of live sessions.
func (t *sessions) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID)
}

// all returns the live sessions.
func (t *sessions) all() []*Session {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*Session, 0, len(t.byID))
	for _, s := range t.byID {
		out = append(out, s)
	}
	return out
}

// end ends a session (DELETE, expiry): it leaves the table, its running
// requests are cancelled (their servers get notifications/cancelled), and
// its open responses and GET stream are aborted, even one stuck on a client
// that does not read. It reports whether the session was live.
func (t *sessions) end(s *Session) bool {
	t.mu.Lock()
	if t.byID[s.id] != s {
		t.mu.Unlock()
		return false
	}
	delete(t.byID, s.id)
	t.mu.Unlock()
	s.cancel(errSessionEnded)
	s.mu.Lock()
	s.ended = true
	if s.clock != nil {
		s.clock.Stop()
	}
	open := make([]*wire.Stream, 0, len(s.posts))
	for st := range s.posts {
		open = append(open, st)
	}
	calls := make([]context.CancelCauseFunc, 0, len(s.calls))
	for _, cancel := range s.calls {
		calls = append(calls, cancel)
	}
	get := s.get
	s.mu.Unlock()
	for _, cancel := range calls { // a call that starts from now on finds s.ctx done (startCall)
		cancel(errSessionEnded)
	}
	for _, st := range open {
		st.Abort()
	}
	if get != nil {
		get.stop()
	}
	if t.onEnd != nil {
		t.onEnd(s)
	}
	return true
}

// postStarted records an open POST of s, whose response end aborts; the
// idle clock does not count while one is open (only POST activity keeps
// a session alive, as in go-sdk and the TypeScript SDK).
func (t *sessions) postStarted(s *Session, st *wire.Stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openPost++
	if st != nil {
		s.posts[st] = struct{}{}
	}
}

// postEnded starts s's idle time when its last open POST ends.
//
// One timer per session, made at the first POST's end and set again only
// by its own firing (idleCheck), which finds how long the session has
// been idle: a timer stopped at each POST's start and reset at its end
// cost every call ~0.8 µs of the serving thread (issue 33), and a timer
// of each POST's own two allocations before that.
func (t *sessions) postEnded(s *Session, st *wire.Stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.posts, st)
	if s.openPost--; s.openPost > 0 || s.ended {
		return
	}
	s.idleFrom = time.Now()
	if s.clock == nil {
		s.clock = time.AfterFunc(t.idle, func() { t.idleCheck(s) })
	}
}

// idleCheck is s's idle clock firing: it ends s once it has been idle for
// t.idle (no open POST since idleFrom), else sets the clock for when it
// could be: the rest of that time, or, while a POST is open, t.idle.
func (t *sessions) idleCheck(s *Session) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	wait := t.idle
	if s.openPost == 0 {
		wait -= time.Since(s.idleFrom)
	}
	if wait > 0 {
		s.clock.Reset(wait)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	t.end(s)
}

// startCall registers a running request of s under its raw id, for
// notifications/cancelled, and returns its context and what ends it
// (callEnd.Done). A duplicate id in flight is refused (ok false).
//
// The context is not s.ctx's child: the session's end cancels the calls
// it finds registered (end), and one that starts after finds s.ctx done
// here. As a child, each call took a place in s.ctx's table of children
// under its lock, which every call of the session shares (~0.85 µs of
// the serving thread a call, issue 33).
func (s *Session) startCall(id json.RawMessage) (ctx context.Context, end callEnd, ok bool) {
	ctx, cancel := context.WithCancelCause(context.Background())
	key := string(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.calls[key]; dup {
		cancel(nil)
		return nil, callEnd{}, false
	}
	if s.ctx.Err() != nil { // the session ended (end cancels s.ctx before it takes s.mu)
		cancel(context.Cause(s.ctx))
	}
	s.calls[key] = cancel
	return ctx, callEnd{s: s, key: key, cancel: cancel}, true
}

// callEnd is what ends a request startCall registered: a value, so that
// registering one costs no closure.
type callEnd struct {
	s      *Session
	key    string // the request's raw id
	cancel context.CancelCauseFunc
}

// Done drops the request from its session and cancels its context.
func (e callEnd) Done() {
	e.s.mu.Lock()
	if e.s.calls[e.key] != nil {
		delete(e.s.calls, e.key)
	}
	e.s.mu.Unlock()
	e.cancel(nil)
}

// beginRequest registers a request that may run long (startCall) and
// starts its answer's SSE clock; a request whose id is already running
// gets its error response (refused) instead.
func (s *Session) beginRequest(m *wire.Message, out *wire.Stream) (ctx context.Context, end callEnd, refused [][]byte) {
	ctx, end, ok := s.startCall(m.ID)
	if !ok {
		return nil, callEnd{}, wire.ErrorParts(m.ID, errDuplicateID)
	}
	out.ArmSSE()
	return ctx, end, nil
}

// errDuplicateID refuses a request whose id a running request of the
// session has.
var errDuplicateID = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: a request with this id is already running"}

// cancelCall cancels the running request with the raw id (the client's
// notifications/cancelled), if it runs.
func (s *Session) cancelCall(id json.RawMessage) {
	s.mu.Lock()
	cancel := s.calls[string(id)]
	s.mu.Unlock()
	if cancel != nil {
		cancel(errClientCancelled)
	}
}

// cancelAll cancels every running request of s with cause.
func (s *Session) cancelAll(cause error) {
	s.mu.Lock()
	fns := make([]context.CancelCauseFunc, 0, len(s.calls))
	for _, f := range s.calls {
		fns = append(fns, f)
	}
	s.mu.Unlock()
	for _, f := range fns {
		f(cause)
	}
}
