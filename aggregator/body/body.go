package body

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Reading a POST body under the memory budget (SPEC §3.9). A
// body is read into one buffer from the budget (internal/budget), charged
// twice its size: the body, and the copy the relay makes of it on its
// way upstream. A body whose Content-Length is over the limit is refused
// before a byte of it is read; one that does not fit in the budget waits
// up to admissionWait, then gets 503 with Retry-After, unread. A body
// without a Content-Length (chunked) is read in pieces, each from the
// budget, and joined once whole. A body of jsonrpc.ScanFrom bytes or
// more has its long strings checked as it arrives (jsonrpc.LongStrings),
// so that its validation after the read skips them.

const (
	// DefaultTimeout bounds reading a POST body: 64 MiB (the default
	// cap) at about 1 MB/s. A body trickled in a byte at a time cannot
	// hold a connection longer.
	DefaultTimeout = 60 * time.Second
	// AdmissionWait is how long a body waits for room in the budget
	// before it is refused with 503.
	AdmissionWait = 5 * time.Second
	// retryAfter is the Retry-After of that 503, in seconds.
	retryAfter = "1"
	// firstPiece is the first piece of a chunked body; each next one is
	// twice the last, up to maxPiece.
	firstPiece = 64 << 10
	maxPiece   = 4 << 20
)

// Reader reads POST bodies: within MaxBytes (413 past it; the budget's
// own bound, if smaller, wins), from Budget (503 when it has no room; nil:
// no budget) and within Timeout (408).
type Reader struct {
	Budget   *budget.Budget
	MaxBytes int64
	Timeout  time.Duration
}

// Read reads r's body under b's bounds, or says why not as the answer's
// HTTP error; a body refused unread closes the connection after the
// answer (wire.SkipBody). The long strings of a body of
// jsonrpc.ScanFrom bytes or more are found valid as it arrives, into
// strs (jsonrpc.LongStrings), for wire.ParseBody.
func (b Reader) Read(w http.ResponseWriter, r *http.Request, strs *jsonrpc.LongStrings) ([]byte, *wire.HTTPError) {
	limit := b.Budget.MaxBody(b.MaxBytes)
	if r.ContentLength > limit {
		wire.SkipBody(w) // refused unread: the connection closes after the answer
		return nil, tooLarge(limit)
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(b.Timeout))
	// Cleared: it would cut the response stream.
	defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
	rd := http.MaxBytesReader(w, r.Body, limit)
	ctx := r.Context()
	if r.ContentLength < 0 || r.ContentLength >= budget.CountFrom { // counted: it may wait
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, AdmissionWait)
		defer cancel()
	}
	var (
		body []byte
		err  error
	)
	if r.ContentLength >= 0 {
		body, err = b.readExact(ctx, rd, int(r.ContentLength), strs)
	} else {
		body, err = b.readChunked(ctx, rd, limit, strs)
	}
	if err != nil {
		return nil, b.bodyError(w, err, limit)
	}
	// Read whole: closed, so that net/http, which drains a body the
	// handler left open before it answers (io.CopyN through a fresh
	// LimitReader, two allocations a POST), has nothing to do.
	_ = r.Body.Close()
	return body, nil
}

// readExact reads a body of Content-Length n into one buffer of n bytes,
// scanning each piece into strs as it comes, from jsonrpc.ScanFrom bytes
// on.
func (b Reader) readExact(ctx context.Context, rd io.Reader, n int, strs *jsonrpc.LongStrings) ([]byte, error) {
	buf, err := b.Budget.Alloc(ctx, budget.Clients, n, 2*int64(n))
	if err != nil {
		return nil, err
	}
	if n < jsonrpc.ScanFrom {
		strs = nil
	}
	for got := 0; got < n; {
		k, err := rd.Read(buf[got:])
		if strs != nil {
			strs.Scan(buf[got : got+k])
		}
		got += k
		switch {
		case got == n:
		case errors.Is(err, io.EOF):
			return nil, io.ErrUnexpectedEOF
		case err != nil:
			return nil, err
		}
	}
	return buf, nil
}

// readChunked reads a body of unknown length in pieces from the budget,
// then joins them in one buffer of its size, which holds the pieces'
// charge (budget.Join): a chunked body costs the budget what one of
// Content-Length does. No piece reaches past limit (rd's, a
// MaxBytesReader's): the pieces of a body at the limit are charged what
// the budget admits for it (MaxBody), and what comes after the limit is
// told by a one-byte read (EOF, or the MaxBytesReader's 413), never by a
// piece the budget could not hold, which waited admissionWait for a 503.
func (b Reader) readChunked(ctx context.Context, rd io.Reader, limit int64, strs *jsonrpc.LongStrings) ([]byte, error) {
	var pieces []budget.Piece
	size, read := firstPiece, int64(0)
	for {
		if limit > 0 && read >= limit {
			var one [1]byte
			if _, err := io.ReadFull(rd, one[:]); err != nil && !errors.Is(err, io.EOF) {
				return nil, err // the MaxBytesReader's: past the limit
			} else if err == nil {
				return nil, &http.MaxBytesError{Limit: limit}
			}
			break
		}
		if limit > 0 {
			size = int(min(int64(size), limit-read))
		}
		// Each piece is charged twice, as a body of Content-Length is:
		// Join moves the charge to the joined body.
		piece, err := b.Budget.AllocPiece(ctx, budget.Clients, size, 2*int64(size))
		if err != nil {
			return nil, err
		}
		n, err := io.ReadFull(rd, piece.Buf)
		piece.Buf = piece.Buf[:n]
		if strs != nil {
			strs.Scan(piece.Buf)
		}
		pieces = append(pieces, piece)
		read += int64(n)
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, maxPiece)
	}
	return b.Budget.Join(pieces), nil
}

// bodyError is the answer to a body that could not be read: 413 past the
// limit, 503 when the budget had no room, 408 when it did not arrive in
// time, else 400. No message names a socket address (a read error's does:
// "read tcp 127.0.0.1:50005->…").
func (b Reader) bodyError(w http.ResponseWriter, err error, limit int64) *wire.HTTPError {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return tooLarge(mbe.Limit)
	case errors.Is(err, budget.ErrTooLarge):
		return tooLarge(limit)
	case errors.Is(err, budget.ErrBusy):
		wire.SkipBody(w)
		w.Header().Set("Retry-After", retryAfter)
		return &wire.HTTPError{Status: http.StatusServiceUnavailable, Code: jsonrpc.CodeServerUnavailable,
			Msg: fmt.Sprintf("Service Unavailable: the gateway's memory budget (%d MiB, --memory-budget) is held by other requests; retry shortly", b.Budget.Size()>>20)}
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		return &wire.HTTPError{Status: http.StatusRequestTimeout, Code: jsonrpc.CodeInvalidRequest,
			Msg: fmt.Sprintf("Request Timeout: the request body did not arrive within %s", b.Timeout)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return wire.BadRequest(jsonrpc.CodeParseError, "Parse error: the request body ended before its Content-Length")
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err // without the addresses
	}
	return wire.BadRequest(jsonrpc.CodeParseError, "Parse error: reading the body: "+err.Error())
}

func tooLarge(limit int64) *wire.HTTPError {
	return &wire.HTTPError{Status: http.StatusRequestEntityTooLarge, Code: jsonrpc.CodeInvalidRequest,
		Msg: fmt.Sprintf("request body exceeds the gateway's limit of %d bytes", limit)}
}
