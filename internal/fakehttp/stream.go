package fakehttp

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// stream is an SSE response the fake writes: an answer, a GET stream, a
// listen stream or an HTTP+SSE session.
type stream struct {
	mu    sync.Mutex
	w     http.ResponseWriter
	f     http.Flusher
	named bool // every event is "event: message" (HTTP+SSE)
	ended chan struct{}
	once  sync.Once
	ctx   context.Context // ends with the stream
	stop  context.CancelFunc
}

// openStream starts an SSE response on w.
func openStream(w http.ResponseWriter) *stream {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	st := &stream{w: w, f: f, ended: make(chan struct{})}
	st.ctx, st.stop = context.WithCancel(context.Background())
	st.flush()
	return st
}

func (st *stream) flush() {
	if st.f != nil {
		st.f.Flush()
	}
}

// send writes one message as an event.
func (st *stream) send(msg string) {
	if st.named {
		st.raw("event: message\ndata: " + msg + "\n\n")
		return
	}
	st.raw("data: " + msg + "\n\n")
}

// raw writes s as it is and flushes it.
func (st *stream) raw(s string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	select {
	case <-st.ended:
		return
	default:
	}
	_, _ = io.WriteString(st.w, s)
	st.flush()
}

// end makes the handler that holds the stream return; nothing is written
// to it after end returns.
func (st *stream) end() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.once.Do(func() { close(st.ended); st.stop() })
}

// context ends when the stream does.
func (st *stream) context() context.Context { return st.ctx }

// hold keeps a long-lived stream open until it is ended or the client
// goes.
func (st *stream) hold(r *http.Request) {
	defer st.end()
	select {
	case <-st.ended:
	case <-r.Context().Done():
	}
}
