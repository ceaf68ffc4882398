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

// LineTooLongError describes a skipped over-long line: its size in bytes,
// and the head and tail of it (up to 256 bytes each), where a JSON-RPC id
// may be found.
type LineTooLongError struct {
	Size       int64
	Head, Tail []byte
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line of %d bytes or more skipped: %v", e.Size, ErrLineTooLong)
}

func (e *LineTooLongError) Unwrap() error { return ErrLineTooLong }

// Reader splits a stream into lines of at most Max bytes. Lines may be of
// any length up to Max; there is no 64 KiB limit as in bufio.Scanner.
type Reader struct {
	r   *bufio.Reader
	Max int
	buf []byte
}

// NewReader returns a Reader with a 64 KiB buffer and DefaultMaxLine.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), Max: DefaultMaxLine}
}

// ReadLine returns the next line without its newline (and without a
// trailing \r). The slice is valid until the next call. At the end of the
// stream it returns io.EOF; a final unterminated line is returned first.
// An over-long line yields a *LineTooLongError and is skipped.
func (r *Reader) ReadLine() ([]byte, error) {
	if cap(r.buf) > keepBuffer {
		r.buf = nil // do not hold on to the memory of one huge message
	}
	r.buf = r.buf[:0]
	var skipped int64
	var tail []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		if skipped == 0 && len(r.buf)+len(chunk) > r.Max {
			skipped = int64(len(r.buf))
			tail = nil
		}
		if skipped > 0 {
			skipped += int64(len(chunk))
			tail = append(tail, chunk...)
			if len(tail) > 256 {
				tail = append(tail[:0], tail[len(tail)-256:]...)
			}
		} else {
			r.buf = append(r.buf, chunk...)
		}
		switch {
		case err == nil:
			if skipped > 0 {
				head := r.buf
				if len(head) > 256 {
					head = head[:256]
				}
				return nil, &LineTooLongError{Size: skipped, Head: bytes.Clone(head), Tail: bytes.TrimRight(tail, "\r\n")}
			}
			return trimEOL(r.buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(r.buf) > 0 && skipped == 0:
			return trimEOL(r.buf), nil
		default:
			return nil, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
