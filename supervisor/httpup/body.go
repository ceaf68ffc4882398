package httpup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// maxMessage bounds one message an HTTP server sends: a JSON body or one
// SSE event's data, as jsonrpc's reader bounds a stdio line (SPEC §3.9
// asks for at least 8 MiB).
const maxMessage = jsonrpc.DefaultMaxLine

// DefaultEventStall is how long an HTTP server may pause in the middle of
// a message (a JSON body, or an SSE event once it has begun) before the
// gateway gives up on that answer (Options.EventStall). Between SSE events
// a stream may stay quiet as long as its call runs: a long tool call
// sends nothing for minutes, a GET or listen stream for hours, and a
// keep-alive comment is welcome but not required.
const DefaultEventStall = 30 * time.Second

// errTooLarge is a message over maxMessage.
var errTooLarge = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
	Message: fmt.Sprintf("the server's message is larger than the gateway's %d MiB message limit", maxMessage>>20)}

// tooLarge is the error of a message over limit (maxMessage, or less
// when the memory budget is smaller).
func tooLarge(limit int) *jsonrpc.Error {
	if limit == maxMessage {
		return errTooLarge
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("the server's message is larger than the gateway's %d MiB message limit (its memory budget, --memory-budget)", limit>>20)}
}

// noRoom is the error of a message the memory budget had no room for
// within budget.ServerWait (as for a stdio line).
func noRoom(b *budget.Budget, size int) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
		"the gateway's memory budget (%d MiB, --memory-budget) had no room for the server's response of %d bytes or more; try again", b.Size()>>20, size)}
}

// stallError is a message the server stopped sending halfway.
type stallError struct{ after time.Duration }

func (e *stallError) Error() string {
	return fmt.Sprintf("the server stopped sending in the middle of a message for %s; the gateway gave up on it", e.after)
}

// bodyReader is the one place where the bytes of an HTTP server's answers
// are read and kept (SPEC §7.9: a server's answers are untrusted input):
// every response body is read through Read, and every message kept of it
// grows through readAll (a JSON body) or keep (an SSE event's data), in
// buffers from the daemon's memory budget (grow; internal/budget, SPEC
// §3.9), bounded by maxMessage (less if the budget is smaller). A buffer
// is counted until nothing holds it: the message dispatch hands on is
// that buffer, not a copy. Growth that finds no room within budget.ServerWait
// fails the message (noRoom).
//
// Read also keeps the stall deadline: once a message has begun (any byte
// after a boundary), the next bytes must come within stall, or the
// response's request is cancelled (cancel), which ends the blocked Read
// with a *stallError. rest marks a boundary: the reader is between
// messages, where a stream may be quiet indefinitely.
type bodyReader struct {
	body    io.Reader
	budget  *budget.Budget  // nil: plain allocations
	ctx     context.Context // the answer's request: bounds waiting for room
	max     int             // the largest message
	stall   time.Duration
	cancel  context.CancelFunc // ends the response's request
	timer   *time.Timer        // made on the first armed Read
	armed   bool               // a message has begun: the stall deadline runs
	stalled atomic.Bool
	n       int64 // bytes read
}

// newBodyReader reads body with no memory budget (tests); an HTTP
// transport's bodies are its reader's.
func newBodyReader(body io.Reader, stall time.Duration, cancel context.CancelFunc) *bodyReader {
	return &bodyReader{body: body, ctx: context.Background(), max: maxMessage, stall: stall, cancel: cancel}
}

func (b *bodyReader) Read(p []byte) (int, error) {
	if b.armed {
		if b.timer == nil {
			b.timer = time.AfterFunc(b.stall, func() { b.stalled.Store(true); b.cancel() })
		} else {
			b.timer.Reset(b.stall)
		}
	}
	n, err := b.body.Read(p)
	if b.timer != nil {
		b.timer.Stop()
	}
	if n > 0 {
		b.armed, b.n = true, b.n+int64(n)
	}
	if err != nil && b.stalled.Load() {
		err = &stallError{b.stall}
	}
	return n, err
}

// rest says the reader is at a message boundary with nothing buffered:
// the stall deadline stops until the next byte.
func (b *bodyReader) rest() { b.armed = false }

// done stops the stall timer for good.
func (b *bodyReader) done() {
	if b.timer != nil {
		b.timer.Stop()
	}
}

// readAll reads the whole body as one message, up to maxMessage; size is
// its Content-Length (-1 if unknown): a body of known size is read to
// that size, without waiting for the end of the stream.
func (b *bodyReader) readAll(size int64) ([]byte, error) {
	if size > int64(b.max) {
		return nil, tooLarge(b.max)
	}
	first := 4096
	if size >= 0 {
		first = int(size)
	}
	msg, err := b.grow(nil, first)
	if err != nil {
		return nil, err
	}
	for size < 0 || int64(len(msg)) < size {
		if len(msg) == cap(msg) {
			if msg, err = b.grow(msg, len(msg)+1); err != nil {
				return nil, err
			}
		}
		n, err := b.Read(msg[len(msg):cap(msg)])
		msg = msg[:len(msg)+n]
		if errors.Is(err, io.EOF) {
			return msg, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return msg, nil
}

// keep appends chunk to msg, the message being read, up to b.max.
func (b *bodyReader) keep(msg, chunk []byte) ([]byte, error) {
	if len(msg)+len(chunk) > cap(msg) {
		var err error
		if msg, err = b.grow(msg, len(msg)+len(chunk)); err != nil {
			return msg, err
		}
	}
	return append(msg, chunk...), nil
}

// grow returns msg in a buffer of room for at least need bytes (twice
// msg's, at least), from the budget: at most b.max bytes (tooLarge past
// it); noRoom if the budget has none within budget.ServerWait.
func (b *bodyReader) grow(msg []byte, need int) ([]byte, error) {
	if need > b.max {
		return msg, tooLarge(b.max)
	}
	size := min(max(need, 2*cap(msg)), b.max)
	ctx, cancel := context.WithTimeout(b.ctx, budget.ServerWait)
	buf, err := b.budget.Alloc(ctx, budget.Servers, size, int64(size))
	cancel()
	switch {
	case errors.Is(err, budget.ErrTooLarge):
		return msg, tooLarge(b.max)
	case err != nil:
		return msg, noRoom(b.budget, need)
	}
	return buf[:copy(buf, msg)], nil
}
