package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// writeTimeout bounds one write to a server's stdin. A server that stops
// reading for this long is considered hung and is killed, so a call never
// hangs on a full pipe.
const writeTimeout = 10 * time.Second

// deadlineSlack is how much of writeTimeout a write may find already
// spent: the stdin deadline is set again only when less than
// writeTimeout − deadlineSlack of it is left (write).
const deadlineSlack = time.Second

// Transport is the transport over a child's stdin and stdout (MCP
// basic/transports "stdio"; SPEC §7.4): one JSON-RPC message per line,
// each way. Its reader, read, runs on the run's serveRun goroutine and
// hands each message to conn.dispatch; a line that is not JSON-RPC is
// logged and skipped.
//
// What the server sends is read under the memory budget (internal/budget,
// issue 25): each line into a buffer of its own from the budget, which
// becomes the message without a copy and is counted until nothing holds
// it (delivered, dropped). A line the budget has no room for within
// budget.ServerWait is dropped, and the call it answers fails saying so.
type Transport struct {
	conn   *rpc.Conn
	name   string // the server's
	log    *logfile.Log
	proc   *proc.Process
	budget *budget.Budget // nil: none
	mu     sync.Mutex     // one write at a time, so lines never interleave
	line   []byte         // under mu: the request line being written, kept for the next (WriteRequest)
	// due is the stdin deadline last set, under mu (write).
	due time.Time
}

const (
	// keepLine bounds the line buffer a Transport keeps between requests.
	keepLine = 64 << 10
	// inPieces is the params size from which WriteRequest writes a
	// request in three pieces (envelope, params, end) rather than copy
	// the params into one line: an 8 MiB argument is not copied again.
	inPieces = 256 << 10
)

var _ rpc.Encoder = (*Transport)(nil)

// New makes the stdio transport over p's pipes the transport of c, for
// server name, logging to log and reading under b (nil: no budget).
func New(c *rpc.Conn, name string, log *logfile.Log, p *proc.Process, b *budget.Budget) *Transport {
	t := &Transport{conn: c, name: name, log: log, proc: p, budget: b}
	c.SetTransport(t)
	return t
}

// request writes request id like any message: stdio ties no answer to it.
func (t *Transport) Request(_ int64, _ string, _ json.RawMessage, msg []byte) error {
	return t.Send(msg)
}

// WriteRequest writes request id to the child's stdin, as Request would
// write its encoded msg (rpc.Encoder): into a line buffer the Transport
// keeps, or, for params of inPieces or more, in three writes under the
// same lock, with no copy of the params. Errors and the kill past
// writeTimeout are Send's.
func (t *Transport) WriteRequest(id int64, method string, params json.RawMessage) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(params) >= inPieces {
		head := jsonrpc.AppendRequestHead(t.line[:0], id, method)
		t.line = head[:0]
		return t.write(head, params, []byte("}\n"))
	}
	line := append(jsonrpc.AppendRequest(t.line[:0], id, method, params), '\n')
	if cap(line) <= keepLine {
		t.line = line[:0]
	}
	return t.write(line)
}

// cancel tells the server with notice (MCP basic/utilities/cancellation:
// on stdio, notifications/cancelled is the only signal).
func (t *Transport) Cancel(_ int64, notice []byte) { _ = t.Send(notice) }

// send writes msg and a newline to the child's stdin, within
// writeTimeout; past it the child is killed (its run then ends and fails
// its calls).
func (t *Transport) Send(msg []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.write(append(msg, '\n'))
}

// write writes pieces, one line in all, to the child's stdin, the whole
// within writeTimeout (at least writeTimeout − deadlineSlack); past it
// the child is killed. Call with t.mu held.
//
// The deadline is set again only once it is deadlineSlack old: setting
// it at every write cost each call ~0.2 µs of the serving thread (a
// runtime timer moved, issue 33), and calls come many to a second.
func (t *Transport) write(pieces ...[]byte) error {
	w := t.proc.Stdin()
	if now := time.Now(); t.due.Sub(now) < writeTimeout-deadlineSlack {
		t.due = now.Add(writeTimeout)
		_ = w.SetWriteDeadline(t.due)
	}
	for _, p := range pieces {
		if _, err := w.Write(p); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				t.log.Line(t.name, "[gateway] server stopped reading stdin; killing it")
				t.proc.Kill()
			}
			return fmt.Errorf("write to server stdin: %w", err)
		}
	}
	return nil
}

// Read reads the server's stdout until EOF, or a line with no end in
// sight, and hands each message to Conn.Dispatch. Its caller, the run's
// owner (supervisor's serveRun), then ends the run and fails the pending
// calls.
func (t *Transport) Read(r io.Reader) {
	rd := jsonrpc.NewReader(r)
	rd.Max = t.budget.MaxLine(jsonrpc.DefaultMaxLine)
	rd.Alloc, rd.Fill = t.alloc, t.fill
	rd.Reserve = func(n int) []byte { return reserve(t.budget, n) }
	for {
		line, err := rd.ReadOwned()
		if err != nil {
			var long *jsonrpc.LineTooLongError
			if errors.As(err, &long) {
				if long.Unterminated {
					// Endless output: nothing more can be read from this
					// run. serveRun stops it and fails its calls.
					t.log.Line(t.name, fmt.Sprintf("[gateway] stdout line of %d bytes with no end in sight; stopping the server", long.Size))
					return
				}
				t.tooLong(long)
				continue
			}
			return
		}
		if len(line) == 0 {
			continue
		}
		msg, err := jsonrpc.DecodeOwnedScanned(line, rd.Scanned())
		if err != nil {
			t.log.Output(t.name, "[stdout, not JSON-RPC; skipped] "+t.log.Clip(string(line), 512))
			t.undecodable(line, err)
			continue
		}
		t.conn.Dispatch(msg, 0)
	}
}

// tooLong fails the call whose response is too long to read, if its id
// can be found: near the start of the line as soon as it crosses the
// limit, or near its end once it ends.
func (t *Transport) tooLong(e *jsonrpc.LineTooLongError) {
	limit := t.budget.MaxLine(jsonrpc.DefaultMaxLine)
	why := fmt.Sprintf("the server's response is larger than the gateway's %d MiB message limit", limit>>20)
	if e.Cause != nil {
		why = fmt.Sprintf("the gateway's memory budget (%d MiB, --memory-budget) had no room for the server's response of %d bytes or more; try again", t.budget.Size()>>20, e.Size)
	}
	if !e.Partial {
		if e.Cause != nil {
			t.log.Line(t.name, fmt.Sprintf("[gateway] stdout line of %d bytes dropped: no room in the memory budget within %s", e.Size, budget.ServerWait))
		} else {
			t.log.Line(t.name, fmt.Sprintf("[gateway] stdout line of %d bytes exceeds the %d-byte limit; skipped", e.Size, limit))
		}
	}
	for _, part := range [][]byte{e.Head, e.Tail} {
		if id, ok := findID(part); ok {
			t.conn.Reject(id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: why})
			return
		}
	}
}

// alloc is the reader's Alloc: a buffer from the budget, waiting up to
// budget.ServerWait.
func (t *Transport) alloc(n int) ([]byte, error) {
	if n < budget.CountFrom {
		return make([]byte, n), nil // not counted: no wait
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget.ServerWait)
	defer cancel()
	return t.budget.Alloc(ctx, budget.Servers, n, int64(n))
}

// reserve is the reader's Reserve: a buffer from budget b if it has
// room for it now, and room left over beside it for the longest line read
// in pieces and their join (2 × MaxLine, and a piece of 4 MiB the pieces
// may round up to): what a line holds if it outgrows the buffer, and what
// another server's line needs. So buffers reserved, even ones a server
// stalls in mid-line or a short line keeps, never leave the other lines
// without the room budget.MaxLine sizes them for; the smallest budgets,
// sized for that alone, reserve none (two hostile reviews).
func reserve(b *budget.Budget, n int) []byte {
	if b == nil {
		return make([]byte, n)
	}
	spare := 2*int64(b.MaxLine(jsonrpc.DefaultMaxLine)) + 4<<20
	return b.TryAlloc(budget.Servers, n, spare)
}

// fill is the reader's Fill: a long line's buffer from the budget,
// holding parts, waiting up to budget.ServerWait.
func (t *Transport) fill(parts [][]byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), budget.ServerWait)
	defer cancel()
	return t.budget.AllocFilled(ctx, budget.Servers, parts, 0)
}

// undecodable fails the call a JSON-looking line answered, if its id can
// be found at the start of the line (a response nested too deep to decode,
// say), so the call does not wait for an answer that already came.
func (t *Transport) undecodable(line []byte, err error) {
	if len(line) == 0 || line[0] != '{' {
		return
	}
	if id, ok := findID(line[:min(len(line), 256)]); ok {
		t.conn.Reject(id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("the server's response could not be decoded: %v", err)})
	}
}

var idPattern = regexp.MustCompile(`"id"\s*:\s*(-?\d+)`)

// findID looks for a numeric "id" member in a fragment of a JSON-RPC
// message: a line too long or too deep to decode.
func findID(fragment []byte) (int64, bool) {
	m := idPattern.FindSubmatch(fragment)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	return n, err == nil
}
