package wire

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

func (s *Stream) state() (sse, armed, keepAlive bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sse, s.armed, s.timer != nil
}

func armedCount() int {
	clock.mu.Lock()
	defer clock.mu.Unlock()
	return len(clock.armed)
}

// An armed answer becomes SSE once it has waited sseAfter, each on its
// own clock although they share one timer; one that finished first never
// does; a stream armed after the timer last ran is still seen; and the
// clock lets go of all of them.
func TestArmedAnswersBecomeSSEAfterTheirWait(t *testing.T) {
	a, done := NewStream(httptest.NewRecorder(), true), NewStream(httptest.NewRecorder(), true)
	jsonOnly := NewStream(httptest.NewRecorder(), false)
	start := time.Now()
	a.ArmSSE()
	done.ArmSSE()
	jsonOnly.ArmSSE()
	done.Finish([]byte(`{}`))
	testwait.For(t, 0, "the first armed answer to become SSE", func() bool { sse, _, _ := a.state(); return sse })
	if waited := time.Since(start); waited < sseAfter {
		t.Errorf("SSE after %v, before sseAfter (%v)", waited, sseAfter)
	}
	if _, armed, keepAlive := a.state(); armed || !keepAlive {
		t.Errorf("after the switch: armed %v, keep-alive timer %v; want off the clock, keep-alives on", armed, keepAlive)
	}
	b := NewStream(httptest.NewRecorder(), true)
	bStart := time.Now()
	b.ArmSSE()
	testwait.For(t, 0, "an answer armed later to become SSE", func() bool { sse, _, _ := b.state(); return sse })
	if waited := time.Since(bStart); waited < sseAfter {
		t.Errorf("the later answer became SSE after %v, before sseAfter", waited)
	}
	for name, s := range map[string]*Stream{"finished": done, "JSON only": jsonOnly} {
		if sse, armed, _ := s.state(); sse || armed {
			t.Errorf("%s answer: SSE %v, armed %v", name, sse, armed)
		}
	}
	a.Close()
	b.Close()
	if _, _, keepAlive := a.state(); keepAlive {
		t.Error("Close left the keep-alive timer")
	}
	if n := armedCount(); n != 0 {
		t.Errorf("%d streams still on the clock", n)
	}
}

// An answer already SSE when armed (a client that accepts only SSE) gets
// a keep-alive comment at sseAfter and its keep-alives after; OnLong runs
// once for a stream still open at sseAfter, whether or not it may become
// SSE, and never for one closed before.
func TestTheClockKeepsSSEAliveAndRunsOnLong(t *testing.T) {
	rec := httptest.NewRecorder()
	sseOnly := NewStream(rec, true)
	if err := sseOnly.OpenSSE(); err != nil {
		t.Fatal(err)
	}
	sseOnly.ArmSSE()
	var mu sync.Mutex
	ran := map[string]int{}
	onLong := func(name string) func() {
		return func() { mu.Lock(); ran[name]++; mu.Unlock() }
	}
	jsonOnly, closed := NewStream(httptest.NewRecorder(), false), NewStream(httptest.NewRecorder(), true)
	jsonOnly.OnLong(onLong("json only"))
	closed.OnLong(onLong("closed"))
	closed.ArmSSE()
	closed.Close()
	testwait.For(t, 0, "the SSE answer's keep-alives to start", func() bool { _, _, keepAlive := sseOnly.state(); return keepAlive })
	testwait.For(t, 0, "OnLong of the open answer", func() bool { mu.Lock(); defer mu.Unlock(); return ran["json only"] == 1 })
	sseOnly.Close()
	jsonOnly.Close()
	if !strings.Contains(rec.Body.String(), ": keep-alive\n\n") {
		t.Errorf("no keep-alive comment on the SSE answer: %q", rec.Body.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if ran["closed"] != 0 || ran["json only"] != 1 {
		t.Errorf("OnLong ran %v, want once for the open answer only", ran)
	}
	if sse, _, _ := jsonOnly.state(); sse {
		t.Error("a JSON-only answer became SSE")
	}
}

// stuckWriter is a client that stopped reading: every Write waits for
// release (a real one is cut after writeStall); entered closes at the
// first.
type stuckWriter struct {
	h                http.Header
	entered, release chan struct{}
	once             sync.Once
}

func (w *stuckWriter) Header() http.Header { return w.h }
func (w *stuckWriter) WriteHeader(int)     {}
func (w *stuckWriter) Flush()              {}
func (w *stuckWriter) Write(b []byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.release
	return len(b), nil
}

// A stream whose write is stuck, holding its lock, holds up no other
// stream the clock finds due with it: they all become SSE and run their
// OnLong on time.
func TestAStuckStreamHoldsUpNoOther(t *testing.T) {
	sw := &stuckWriter{h: http.Header{}, entered: make(chan struct{}), release: make(chan struct{})}
	stuck := NewStream(sw, true)
	stuck.ArmSSE()
	var long atomic.Int64
	others := make([]*Stream, 200)
	for i := range others {
		others[i] = NewStream(httptest.NewRecorder(), true)
		others[i].OnLong(func() { long.Add(1) })
		others[i].ArmSSE()
	}
	sent := make(chan error, 1)
	go func() { sent <- stuck.Event([]byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`)) }()
	<-sw.entered // the stuck stream's lock is held from here on
	testwait.For(t, 0, "every other stream to become SSE and run OnLong", func() bool {
		for _, s := range others {
			if sse, _, _ := s.state(); !sse {
				return false
			}
		}
		return long.Load() == int64(len(others))
	})
	close(sw.release)
	<-sent
	stuck.Close()
	for _, s := range others {
		s.Close()
	}
}
