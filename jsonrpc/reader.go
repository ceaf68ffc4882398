package jsonrpc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLine is the longest stdout line accepted from a server: 64 MiB.
const DefaultMaxLine = 64 << 20

// keepBuffer is the largest line buffer kept between lines: 1 MiB.
const keepBuffer = 1 << 20

// ErrLineTooLong is returned for a line longer than the reader's limit. The
// reader has then skipped to the next newline, so the stream can go on.
var ErrLineTooLong = errors.New("line too long")

// LineTooLongError describes an over-long line. It is returned twice per
// line: once as the line crosses the limit (Partial, with the head of the
// line, up to 256 bytes, where a JSON-RPC id usually is), and once when
// the line ends (with its size and its last 256 bytes, where the id of a
// server that writes it last is). A line that has not ended after MaxSkip
// bytes ends the stream: Unterminated, and the next read starts after it
// as if it were a line of its own (the caller should stop the server).
type LineTooLongError struct {
	Size         int64 // bytes so far (Partial) or in all
	Head, Tail   []byte
	Partial      bool
	Unterminated bool
}

func (e *LineTooLongError) Error() string {
	switch {
	case e.Unterminated:
		return fmt.Sprintf("line of %d bytes and no end: %v", e.Size, ErrLineTooLong)
	case e.Partial:
		return fmt.Sprintf("line longer than the limit, skipping: %v", ErrLineTooLong)
	}
	return fmt.Sprintf("line of %d bytes skipped: %v", e.Size, ErrLineTooLong)
}

func (e *LineTooLongError) Unwrap() error { return ErrLineTooLong }

// Reader splits a stream into lines of at most Max bytes. Lines may be of
// any length up to Max; there is no 64 KiB limit as in bufio.Scanner.
type Reader struct {
	r       *bufio.Reader
	Max     int
	MaxSkip int64 // 0: 4×Max
	buf     []byte

	// While an over-long line is skipped: its size so far, its last 256
	// bytes, and the read error of its last chunk (nil: it ended).
	skipping bool
	skipped  int64
	tail     []byte
	lastErr  error
}

// NewReader returns a Reader with a 64 KiB buffer and DefaultMaxLine.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), Max: DefaultMaxLine}
}

// ReadLine returns the next line without its newline (and without a
// trailing \r). The slice is valid until the next call. At the end of the
// stream it returns io.EOF; a final unterminated line is returned first.
// An over-long line yields *LineTooLongError values (see there) and is
// skipped without being held in memory.
func (r *Reader) ReadLine() ([]byte, error) {
	if r.skipping {
		return nil, r.skip()
	}
	if cap(r.buf) > keepBuffer {
		r.buf = nil // do not hold on to the memory of one huge message
	}
	r.buf = r.buf[:0]
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(r.buf)+len(chunk) > r.Max {
			head := bytes.Clone(r.buf[:min(len(r.buf), 256)])
			head = append(head, chunk[:min(len(chunk), 256-len(head))]...)
			r.skipping, r.skipped, r.tail, r.buf = true, int64(len(r.buf)), nil, nil
			r.account(chunk, err)
			return nil, &LineTooLongError{Size: r.skipped, Head: head, Partial: true}
		}
		if need := len(r.buf) + len(chunk); need > cap(r.buf) {
			// Double rather than let append grow a long line by 1.25×
			// a step (bench: 48 MB allocated per 8 MiB line).
			grown := make([]byte, len(r.buf), max(2*cap(r.buf), need, 4096))
			copy(grown, r.buf)
			r.buf = grown
		}
		r.buf = append(r.buf, chunk...)
		switch {
		case err == nil:
			return trimEOL(r.buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(r.buf) > 0:
			return trimEOL(r.buf), nil
		default:
			return nil, err
		}
	}
}

// account adds a chunk of the line being skipped.
func (r *Reader) account(chunk []byte, err error) {
	r.skipped += int64(len(chunk))
	r.tail = append(r.tail, chunk...)
	if len(r.tail) > 256 {
		r.tail = append(r.tail[:0], r.tail[len(r.tail)-256:]...)
	}
	r.lastErr = err
}

// skip reads to the end of the over-long line.
func (r *Reader) skip() error {
	maxSkip := r.MaxSkip
	if maxSkip <= 0 {
		maxSkip = 4 * int64(r.Max)
	}
	for {
		switch err := r.lastErr; {
		case err == nil:
			r.skipping = false
			return &LineTooLongError{Size: r.skipped, Tail: bytes.TrimRight(r.tail, "\r\n")}
		case !errors.Is(err, bufio.ErrBufferFull):
			r.skipping = false
			return err
		case r.skipped > maxSkip:
			r.skipping = false
			return &LineTooLongError{Size: r.skipped, Tail: r.tail, Unterminated: true}
		}
		chunk, err := r.r.ReadSlice('\n')
		r.account(chunk, err)
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
