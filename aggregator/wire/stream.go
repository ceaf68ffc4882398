package wire

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Stream is the response to one POST (or the body of a GET): one
// application/json body, or a text/event-stream of JSON-RPC messages
// (MCP Streamable HTTP, "Sending Messages to the Server").
//
// A POST's answer starts as JSON when the client accepts JSON: most calls
// send nothing before their response, and one JSON body is the cheapest
// answer. The first message that must go out before the response (a
// progress or log notification, a server-to-client request) turns the
// answer into an SSE stream, as does a call still running after
// sseAfter, so that proxies see headers and then keep-alive comments
// (every KeepAliveEvery) instead of a silent connection.
//
// Every write is bounded by writeStall: a client that stops reading cannot
// hold the session (DELETE and expiry abort the stream).
type Stream struct {
	w     http.ResponseWriter
	rc    http.ResponseController // held, not pointed to: one allocation less a response
	sseOK bool                    // the client accepts text/event-stream

	mu     sync.Mutex
	sse    bool          // the stream is SSE (headers sent)
	closed bool          // the response ended: nothing more is written
	armed  bool          // on the sseAfter clock (sseclock.go)
	toSSE  bool          // ArmSSE: becomes SSE when the clock is due
	long   func()        // OnLong: runs when the clock is due
	timer  *time.Timer   // every, once SSE; nil when none
	every  time.Duration // the keep-alive interval; 0: KeepAliveEvery

	// aborted fails every write from now on. It is not under mu, which a
	// stuck write holds.
	aborted atomic.Bool
	// writing is set while write runs: abort cuts the connection only
	// then; an idle stream's handler returns and its response ends whole.
	writing atomic.Bool
	// lifeMu orders abort's deadline with the handler's return (done):
	// after it the connection may serve another request, whose writes an
	// abort must not touch.
	lifeMu sync.Mutex
	gone   bool

	// length is the Content-Length header's value slice of a JSON
	// answer, held here so that setting it allocates no slice.
	length [1]string
}

const (
	// sseAfter is how long a call may run before its answer becomes an
	// SSE stream (headers, then keep-alive comments).
	sseAfter = time.Second
	// KeepAliveEvery is the interval of SSE comments on a quiet stream,
	// below the 60 s idle timeout common in proxies.
	KeepAliveEvery = 25 * time.Second
	// writeStall bounds one write to a client that does not read.
	writeStall = 60 * time.Second
)

// ErrStreamClosed is returned for a message sent after the response ended
// or the stream was aborted.
var ErrStreamClosed = errors.New("send message: the response stream has ended")

// ErrNoStream is returned for a message that needs SSE on a response to a
// client that accepts only JSON: it has no channel to that client.
var ErrNoStream = errors.New("send message: the client accepts only application/json, so nothing can be sent before the response")

// NewStream is the Stream of the response w; sseOK says the client
// accepts text/event-stream.
func NewStream(w http.ResponseWriter, sseOK bool) *Stream {
	return &Stream{w: w, rc: *http.NewResponseController(w), sseOK: sseOK}
}

// jsonType is the Content-Type of a JSON answer, set as the header's
// value slice itself rather than through Header.Set, which makes one a
// response: net/http only reads it (WriteHeader copies the header), and
// nothing in the gateway writes into a header's value slice.
var jsonType = []string{"application/json"}

// OpenSSE sends the SSE headers now: for a GET stream, and for a POST
// whose client accepts only SSE.
func (s *Stream) OpenSSE() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startSSE()
}

// startSSE switches to SSE; call with s.mu held.
func (s *Stream) startSSE() error {
	if s.closed {
		return ErrStreamClosed
	}
	if s.sse {
		return nil
	}
	s.sse = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Del("Content-Length")
	s.w.WriteHeader(http.StatusOK)
	return s.write([]byte(": mcp-gateway\n\n"))
}

// ArmSSE starts the sseAfter clock of a call's answer, if SSE is allowed:
// the answer becomes an SSE stream if the call is still running then.
func (s *Stream) ArmSSE() {
	if !s.sseOK {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer == nil && !s.closed { // an SSE stream already gets its keep-alives
		s.toSSE = true
		s.arm()
	}
}

// OnLong has f run once, on the sseAfter clock's goroutine with the
// stream's lock held, if the stream is still open sseAfter from now:
// for what only a long call needs (legacy/post.go: noticing that its
// client went away). After Close, f has run or never will. Call it once,
// before ArmSSE.
func (s *Stream) OnLong(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.long = f
		s.arm()
	}
}

// arm puts s on the sseAfter clock; call with s.mu held.
func (s *Stream) arm() {
	if !s.armed {
		s.armed = true
		clock.arm(s)
	}
}

// sseDue is the sseAfter clock's end for an armed stream still open: its
// OnLong runs; armed by ArmSSE, it becomes SSE (one that already is gets
// a keep-alive comment), and its keep-alive comments start.
func (s *Stream) sseDue() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.armed || s.closed {
		return
	}
	s.armed = false
	if s.long != nil {
		s.long()
		s.long = nil
	}
	if s.toSSE && s.beat() == nil && s.timer == nil {
		s.timer = time.AfterFunc(s.interval(), s.tick)
	}
}

// beat turns the answer into SSE, or, already SSE, writes a keep-alive
// comment; call with s.mu held.
func (s *Stream) beat() error {
	if !s.sse {
		return s.startSSE()
	}
	return s.write([]byte(": keep-alive\n\n"))
}

// KeepAlive starts the keep-alive comments of an open SSE stream that
// waits for news (a legacy GET stream, subscriptions/listen), one every
// every (KeepAliveEvery; tests ask for less).
func (s *Stream) KeepAlive(every time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer == nil && !s.closed {
		s.every = every
		s.timer = time.AfterFunc(s.interval(), s.tick)
	}
}

// interval is the stream's keep-alive interval; call with s.mu held.
func (s *Stream) interval() time.Duration {
	if s.every > 0 {
		return s.every
	}
	return KeepAliveEvery
}

// tick is a keep-alive: beat, and re-arm.
func (s *Stream) tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.timer == nil {
		return
	}
	if s.beat() == nil {
		s.timer.Reset(s.interval())
	}
}

// Event sends one message ahead of the response, as an SSE event: the
// parts of one JSON-RPC message. ErrNoStream when the client accepts only
// JSON; ErrStreamClosed once the response has ended.
func (s *Stream) Event(parts ...[]byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.sseOK && !s.sse {
		return ErrNoStream
	}
	if err := s.startSSE(); err != nil {
		return err
	}
	return s.writeEvent(parts)
}

// Finish sends the response (the parts of one JSON-RPC message, or for a
// batch the messages as a JSON array) and ends the stream.
func (s *Stream) Finish(parts ...[]byte) { s.FinishStatus(http.StatusOK, parts...) }

// FinishStatus is Finish with the HTTP status of a JSON answer; an SSE
// stream has sent 200 already.
func (s *Stream) FinishStatus(status int, parts ...[]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopTimer()
	if s.closed {
		return
	}
	defer func() { s.closed = true }()
	if s.sse {
		_ = s.writeEvent(parts)
		return
	}
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	h := s.w.Header()
	h["Content-Type"] = jsonType
	s.length[0] = strconv.Itoa(n)
	h["Content-Length"] = s.length[:]
	s.w.WriteHeader(status)
	// Flushed within the write limit: left to net/http, the last bytes
	// would go out after the handler returned, with no limit.
	if s.aborted.Load() {
		// Aborted (DELETE, expiry) before anything of it was written: the
		// answer, a few bytes the socket takes at once, goes out whole
		// within abortedWrite, as Abort promises a stream it did not cut.
		// Refused, it left its headers with a Content-Length and no body.
		_ = s.writeWithin(abortedWrite, parts...)
		return
	}
	_ = s.write(parts...)
}

// abortedWrite bounds the JSON answer of an aborted stream (FinishStatus).
const abortedWrite = time.Second

// Close ends the stream without a response (a cancelled request's SSE
// stream); the handler must return after it.
func (s *Stream) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopTimer()
	s.closed = true
}

// Abort fails the write in progress, if any, and every later one: DELETE
// and expiry end a session at once, even while a response of it is stuck
// on a client that does not read (SPEC §3.5).
//
// A stream with no write in progress is not cut: its handler, told to end
// (the session's context, getStream.stop), returns and the response ends
// whole. write sets writing before it checks aborted, and Abort sets
// aborted before it checks writing, so a write that starts meanwhile is
// either refused or cut.
func (s *Stream) Abort() {
	s.aborted.Store(true)
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if !s.gone && s.writing.Load() {
		_ = s.rc.SetWriteDeadline(time.Now())
	}
}

// Done is called by the handler as it returns: the stream is closed and
// the ResponseWriter is no longer touched.
func (s *Stream) Done() {
	s.Close()
	s.lifeMu.Lock()
	s.gone = true
	s.lifeMu.Unlock()
}

func (s *Stream) stopTimer() {
	if s.armed {
		s.armed, s.long = false, nil
		clock.disarm(s)
	}
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
}

// writeEvent writes one SSE event whose data is the message in parts.
// Messages are compact JSON, one line; a line break in one (a server may
// pretty-print) starts another data line, so the event still carries the
// message whole. Call with s.mu held.
func (s *Stream) writeEvent(parts [][]byte) error {
	out := make([][]byte, 0, len(parts)+2)
	out = append(out, []byte("event: message\ndata: "))
	for _, p := range parts {
		for len(p) > 0 {
			i := bytes.IndexAny(p, "\r\n")
			if i < 0 {
				out = append(out, p)
				break
			}
			out = append(out, p[:i], []byte("\ndata: "))
			if p[i] == '\r' && i+1 < len(p) && p[i+1] == '\n' {
				i++
			}
			p = p[i+1:]
		}
	}
	return s.write(append(out, []byte("\n\n"))...)
}

// write writes bs and flushes them, the whole bounded by writeStall; a
// failed write aborts the stream. Call with s.mu held.
func (s *Stream) write(bs ...[]byte) error {
	s.writing.Store(true)
	defer s.writing.Store(false)
	if s.closed || s.aborted.Load() {
		return ErrStreamClosed
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(writeStall))
	if s.aborted.Load() { // abort ran between the check and the deadline
		_ = s.rc.SetWriteDeadline(time.Now())
	}
	return s.flush(bs)
}

// writeWithin writes bs on an aborted stream, bounded by d: the answer of
// one Abort did not cut (FinishStatus). Call with s.mu held.
func (s *Stream) writeWithin(d time.Duration, bs ...[]byte) error {
	s.writing.Store(true)
	defer s.writing.Store(false)
	_ = s.rc.SetWriteDeadline(time.Now().Add(d))
	return s.flush(bs)
}

// flush is the end of write and writeWithin: bs written and flushed
// under the deadline they set.
func (s *Stream) flush(bs [][]byte) error {
	var err error
	for _, b := range bs {
		if _, err = s.w.Write(b); err != nil {
			break
		}
	}
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		s.aborted.Store(true)
		return err
	}
	// The write is whole: no longer in progress, and its deadline off the
	// connection, or a stream idle for longer would fail its next write at
	// once, and an Abort that came as it finished would cut the end of the
	// response (the last chunk net/http writes once the handler returns).
	// Under lifeMu, so that Abort sees the write in progress and sets its
	// deadline before this, or sees it done.
	s.lifeMu.Lock()
	s.writing.Store(false)
	_ = s.rc.SetWriteDeadline(time.Time{})
	s.lifeMu.Unlock()
	return nil
}
