package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// TestSessionsTable checks the table's cap, its lookups and end: a
// session past max is refused, an ended one is gone, its context done and
// onEnd called once, and ending it twice reports false.
func TestSessionsTable(t *testing.T) {
	ss := newSessions(2, 0)
	var ended []*Session
	ss.onEnd = func(s *Session) { ended = append(ended, s) }
	caps := json.RawMessage(`{"extensions":{"` + tasks.Extension + `":{}}}`)
	a := ss.open("2025-11-25", caps, nil, relay.ToolsUnchosen)
	b := ss.open("2025-11-25", nil, nil, relay.ToolsUnchosen)
	if a == nil || b == nil || a.id == b.id || len(a.id) != 32 {
		t.Fatalf("two sessions: %v %v, want two of distinct 32-digit ids", a, b)
	}
	if strings.Contains(string(a.upCaps), tasks.Extension) {
		t.Errorf("the caps modern servers see keep the tasks extension: %s", a.upCaps)
	}
	if c := ss.open("2025-11-25", nil, nil, relay.ToolsUnchosen); c != nil {
		t.Errorf("a third session past max 2 opened")
	}
	if ss.get(a.id) != a || ss.count() != 2 || len(ss.all()) != 2 {
		t.Errorf("get/count/all do not see the two sessions")
	}
	if !ss.end(a) || ss.end(a) {
		t.Errorf("end: want true once, then false")
	}
	if ss.get(a.id) != nil || a.ctx.Err() == nil || len(ended) != 1 || ended[0] != a {
		t.Errorf("an ended session: still listed, its context live, or onEnd not called once (%d)", len(ended))
	}
	if c := ss.open("2025-11-25", nil, nil, relay.ToolsUnchosen); c == nil {
		t.Errorf("a session after one ended was refused")
	}
}

// A session's end cancels its running calls, saying why, and a call that
// starts after it is cancelled from its start; one that ended before is
// left as it was.
func TestSessionEndCancelsItsCalls(t *testing.T) {
	ss := newSessions(1, 0)
	s := ss.open("2025-11-25", nil, nil, relay.ToolsUnchosen)
	running, _, ok := s.startCall(json.RawMessage(`1`))
	done, doneEnd, ok2 := s.startCall(json.RawMessage(`2`))
	if !ok || !ok2 {
		t.Fatal("startCall refused a new id")
	}
	doneEnd.Done()
	if running.Err() != nil {
		t.Fatal("a running call's context is done before the session ends")
	}
	ss.end(s)
	if !errors.Is(context.Cause(running), errSessionEnded) {
		t.Errorf("a running call at the session's end: cause %v, want errSessionEnded", context.Cause(running))
	}
	if errors.Is(context.Cause(done), errSessionEnded) {
		t.Errorf("a call that had ended was cancelled again by the session's end")
	}
	late, _, ok := s.startCall(json.RawMessage(`3`))
	if !ok || !errors.Is(context.Cause(late), errSessionEnded) {
		t.Errorf("a call started after the session's end: ok %v, cause %v; want cancelled with errSessionEnded", ok, context.Cause(late))
	}
}

// TestUnknownSession checks the answer to a request of an unknown
// session: 404, -32001 under the request's id, and the connection closed.
func TestUnknownSession(t *testing.T) {
	w := httptest.NewRecorder()
	unknownSession(w, []byte(`7`))
	if w.Code != http.StatusNotFound || w.Header().Get("Connection") != "close" {
		t.Errorf("status %d, Connection %q; want 404 and close", w.Code, w.Header().Get("Connection"))
	}
	var msg struct {
		ID    json.RawMessage    `json:"id"`
		Error struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &msg); err != nil || string(msg.ID) != "7" || msg.Error.Code != -32001 {
		t.Errorf("body %s: want id 7 and code -32001", w.Body.Bytes())
	}
	if ErrUnknownSession.ID != nil {
		t.Errorf("unknownSession changed the shared ErrUnknownSession's id")
	}
}

// syncWriter is a ResponseWriter whose body can be read while a handler
// writes to it.
type syncWriter struct {
	mu   sync.Mutex
	h    http.Header
	body strings.Builder
}

func (w *syncWriter) Header() http.Header { return w.h }
func (w *syncWriter) WriteHeader(int)     {}
func (w *syncWriter) Flush()              {}
func (w *syncWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.body.Write(b)
}
func (w *syncWriter) String() string { w.mu.Lock(); defer w.mu.Unlock(); return w.body.String() }

// A quiet GET stream gets keep-alive comments, as a long call's SSE
// answer and a listen stream do, so that a proxy's idle timeout does not
// cut it (it had none).
func TestQuietGETStreamIsKeptAlive(t *testing.T) {
	getKeepAlive = 10 * time.Millisecond
	defer func() { getKeepAlive = wire.KeepAliveEvery }()
	ss := newSessions(1, 0)
	s := ss.open("2025-11-25", nil, nil, relay.ToolsUnchosen)
	w := &syncWriter{h: http.Header{}}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.ServeGET(w, httptest.NewRequest(http.MethodGet, "/mcp", nil).WithContext(ctx))
	}()
	testwait.For(t, 0, "a keep-alive comment on the quiet GET stream", func() bool {
		return strings.Count(w.String(), ": keep-alive\n\n") >= 2
	})
	cancel()
	<-served
}
