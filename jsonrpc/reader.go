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

// keepBuffer is the largest line buffer kept between lines: 1 MiB. A
// longer line is read into pieces from Alloc and joined in one buffer of
// its size.
const keepBuffer = 1 << 20

// maxPiece is the largest piece of a long line: pieces start at
// keepBuffer and double up to it.
const maxPiece = 4 << 20

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
//
// A line the reader's Alloc could not provide memory for is dropped the
// same way, with Cause set to Alloc's error: while it is read (Partial,
// then its end), or once read whole (its end only, with Head and Tail).
type LineTooLongError struct {
	Size         int64 // bytes so far (Partial) or in all
	Head, Tail   []byte
	Partial      bool
	Unterminated bool
	Cause        error // why the line was dropped, if not its length
}

func (e *LineTooLongError) Error() string {
	switch {
	case e.Cause != nil:
		return fmt.Sprintf("line of %d bytes or more dropped: %v", e.Size, e.Cause)
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
//
// Memory: a line of up to 1 MiB is read into a buffer kept between lines;
// a longer one into pieces from Alloc, then joined into one buffer of its
// size from Fill (or Alloc), so a line of n bytes takes at most about 2n
// while it is read and n once read. ReadOwned gives that buffer away (and
// copies a short line into one of its own from Alloc), so what a caller
// keeps of a line is never a copy of it, nor a larger buffer but as
// below.
//
// A long line after a long line is read whole into one buffer, if
// Reserve has room for one an eighth larger than the last (at most Max;
// or Alloc is nil): a server that answers 8 MiB tends to answer 8 MiB
// again, and the join of its pieces, a copy of the whole line into fresh
// memory, cost a third of what reading an 8 MiB result took (issue 33).
// That buffer becomes the line, or, if more than a quarter of it is
// spare, a copy in one of the line's size if Reserve has room for it at
// once. A line that outgrows it goes on in pieces and is joined as
// before, holding that buffer too while it is read: the caller's Reserve
// gives one only where its memory has room for both (stdio.Transport).
type Reader struct {
	r       *bufio.Reader
	Max     int
	MaxSkip int64 // 0: 4×Max
	// Alloc, if set, provides the buffers of long lines and of owned
	// lines (a memory budget, internal/budget); an error drops the line
	// (LineTooLongError with Cause). nil: make.
	Alloc func(n int) ([]byte, error)
	// Fill, if set, provides the buffer of a long line from the same
	// memory as Alloc: one of the parts' size, holding them in order, not
	// cleared before they are copied in (an error drops the line as
	// Alloc's does). nil: bytes.Join if Alloc is nil too, else a buffer of
	// Alloc's and a copy.
	Fill func(parts [][]byte) ([]byte, error)
	// Reserve, if set, provides the buffer a long line is read whole
	// into (see above): n bytes from the same memory as Alloc, at once or
	// not at all (nil: no room now; the line is read into pieces). nil:
	// make if Alloc is nil too, else lines are read into pieces only.
	Reserve func(n int) []byte

	buf    []byte   // the line's first keepBuffer bytes, kept between lines; or, whole, the line so far
	pieces [][]byte // the rest of a long line
	size   int      // the line's bytes so far
	// whole: buf is a buffer of Reserve's that the line is read into,
	// and kept is the buffer buf is again from the next line on.
	whole bool
	kept  []byte
	last  int // the size of the last line longer than keepBuffer
	// The long strings of a line of ScanFrom bytes or more, found as it
	// is read (Scanned).
	strs     LongStrings
	scanning bool

	// While an over-long line is skipped: its size so far, its last 256
	// bytes, and the read error of its last chunk (nil: it ended).
	skipping bool
	skipped  int64
	tail     []byte
	lastErr  error
	cause    error // why it is skipped, if not its length
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
func (r *Reader) ReadLine() ([]byte, error) { return r.read(false) }

// ReadOwned is ReadLine, but the line is the caller's to keep: a buffer
// of its own, of its size, from Alloc.
func (r *Reader) ReadOwned() ([]byte, error) { return r.read(true) }

func (r *Reader) read(owned bool) ([]byte, error) {
	if r.skipping {
		return nil, r.skip()
	}
	r.reset()
	r.strs, r.scanning = LongStrings{}, false
	for {
		chunk, err := r.r.ReadSlice('\n')
		if r.size+len(chunk) > r.Max {
			return nil, r.startSkip(chunk, err, nil)
		}
		if aerr := r.add(chunk); aerr != nil {
			return nil, r.startSkip(chunk, err, aerr)
		}
		r.size += len(chunk)
		r.scan(chunk)
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && r.size > 0:
		default:
			return nil, err
		}
		return r.line(owned)
	}
}

// scan scans chunk, just added to the line, once the line has reached
// ScanFrom bytes: its first bytes at once, the rest a chunk at a time as
// it comes, while the server writes the next.
func (r *Reader) scan(chunk []byte) {
	switch {
	case r.scanning:
		r.strs.Scan(chunk)
	case r.size >= ScanFrom:
		r.scanning = true
		r.strs.Scan(r.buf)
		for _, p := range r.pieces {
			r.strs.Scan(p)
		}
	}
}

// Scanned is what was found of the long strings of the line last read,
// for DecodeOwnedScanned: nil for a line under ScanFrom bytes. It is
// valid until the next read.
func (r *Reader) Scanned() *LongStrings {
	if !r.scanning {
		return nil
	}
	return &r.strs
}

// add appends chunk to the line: to buf up to keepBuffer, then to pieces
// from Alloc.
func (r *Reader) add(chunk []byte) error {
	if r.pieces == nil && !r.whole && len(r.buf)+len(chunk) > keepBuffer {
		r.reserve(len(r.buf) + len(chunk))
	}
	if r.whole && r.pieces == nil && len(r.buf)+len(chunk) <= cap(r.buf) {
		r.buf = append(r.buf, chunk...)
		return nil
	}
	if r.pieces == nil && !r.whole && len(r.buf)+len(chunk) <= keepBuffer {
		if need := len(r.buf) + len(chunk); need > cap(r.buf) {
			// Double rather than let append grow a line by 1.25× a step.
			grown := make([]byte, len(r.buf), min(max(2*cap(r.buf), need, 4096), keepBuffer))
			copy(grown, r.buf)
			r.buf = grown
		}
		r.buf = append(r.buf, chunk...)
		return nil
	}
	for len(chunk) > 0 {
		last := len(r.pieces) - 1
		if last < 0 || len(r.pieces[last]) == cap(r.pieces[last]) {
			size := keepBuffer
			if last >= 0 {
				size = min(2*cap(r.pieces[last]), maxPiece)
			}
			p, err := r.alloc(size)
			if err != nil {
				return err
			}
			r.pieces, last = append(r.pieces, p[:0]), last+1
		}
		p := r.pieces[last]
		n := min(len(chunk), cap(p)-len(p))
		r.pieces[last], chunk = append(p, chunk[:n]...), chunk[n:]
	}
	return nil
}

// reserve makes buf a buffer of Reserve's, an eighth larger than the
// last long line, holding the line so far, if that is at least need
// bytes and Reserve has room (see Reader).
func (r *Reader) reserve(need int) {
	size := min(r.last+r.last/8, r.Max)
	if size < need {
		return
	}
	big := r.reserved(size)
	if big == nil {
		return
	}
	r.kept = r.buf
	r.buf = append(big[:0], r.buf...)
	r.whole = true
}

// reserved is a buffer of n bytes from Reserve (make if Alloc is nil
// too), or nil: no room now, or no Reserve.
func (r *Reader) reserved(n int) []byte {
	switch {
	case r.Reserve != nil:
		if b := r.Reserve(n); len(b) >= n {
			return b[:n]
		}
	case r.Alloc == nil:
		return make([]byte, n)
	}
	return nil
}

// endWhole lets go of the buffer the line was read whole into, if it
// was: the caller owns it, or it is garbage.
func (r *Reader) endWhole() {
	if r.whole {
		r.buf, r.kept, r.whole = r.kept, nil, false
	}
}

// reset starts the next line in the kept buffer.
func (r *Reader) reset() {
	r.endWhole()
	r.buf, r.pieces, r.size = r.buf[:0], nil, 0
}

// line returns the line read, without its end of line: buf itself, or,
// owned or long, one buffer of its size from Alloc; or, read whole, the
// buffer it was read into.
func (r *Reader) line(owned bool) ([]byte, error) {
	if r.size > keepBuffer {
		r.last = r.size
	}
	if r.pieces == nil && !owned {
		return trimEOL(r.buf), nil
	}
	n := r.size - eolLen(r.buf, r.pieces)
	if r.whole && r.pieces == nil {
		// The buffer it was read into, or, with more than a quarter of
		// it to spare, a copy in one of its size if there is room now:
		// waiting for room while the reader holds the larger one could
		// wait for that one's own bytes (a hostile review).
		out := r.buf[:n:n]
		if cap(r.buf)-n > n/4 {
			if exact := r.reserved(n); exact != nil {
				out = exact[:copy(exact, out):n]
			}
		}
		r.endWhole()
		return out, nil
	}
	out, err := r.fill(n)
	if err != nil {
		e := &LineTooLongError{Size: int64(r.size), Head: bytes.Clone(r.buf[:min(len(r.buf), 256)]), Cause: err}
		e.Tail = bytes.Clone(lastBytes(r.buf, r.pieces, 256))
		r.endWhole() // after Head and Tail: it holds the line's start
		r.pieces = nil
		return nil, e
	}
	r.endWhole()   // what it held is in out
	r.pieces = nil // garbage now: what they held is in out
	return out, nil
}

// fill returns a buffer of the line's first n bytes (buf, then pieces):
// a long line's from Fill, else from Alloc, and a copy.
func (r *Reader) fill(n int) ([]byte, error) {
	if r.pieces != nil && (r.Fill != nil || r.Alloc == nil) {
		parts := make([][]byte, 0, 1+len(r.pieces))
		for _, p := range append([][]byte{r.buf}, r.pieces...) {
			take := min(len(p), n)
			parts, n = append(parts, p[:take]), n-take
		}
		if r.Fill == nil {
			return bytes.Join(parts, nil), nil
		}
		return r.Fill(parts)
	}
	out, err := r.alloc(n)
	if err != nil {
		return nil, err
	}
	at := copy(out, r.buf)
	for _, p := range r.pieces {
		at += copy(out[at:], p)
	}
	return out, nil
}

// startSkip drops the line being read, as it crosses the limit or fails
// to get memory (cause), and returns the error for it.
func (r *Reader) startSkip(chunk []byte, err, cause error) error {
	head := bytes.Clone(r.buf[:min(len(r.buf), 256)])
	head = append(head, chunk[:min(len(chunk), 256-len(head))]...)
	r.skipping, r.skipped, r.tail = true, int64(r.size), nil
	r.reset()
	r.cause = cause
	r.account(chunk, err)
	return &LineTooLongError{Size: r.skipped, Head: head, Partial: true, Cause: cause}
}

func (r *Reader) alloc(n int) ([]byte, error) {
	if r.Alloc == nil {
		return make([]byte, n), nil
	}
	return r.Alloc(n)
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
			return &LineTooLongError{Size: r.skipped, Tail: bytes.TrimRight(r.tail, "\r\n"), Cause: r.cause}
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

// eolLen is the length of the line's end (\n, \r\n or none) in buf and
// pieces.
func eolLen(buf []byte, pieces [][]byte) int {
	end := lastBytes(buf, pieces, 2)
	switch {
	case bytes.HasSuffix(end, []byte("\r\n")):
		return 2
	case bytes.HasSuffix(end, []byte("\n")), bytes.HasSuffix(end, []byte("\r")):
		return 1
	}
	return 0
}

// lastBytes returns up to the last n bytes of buf and pieces, in order.
func lastBytes(buf []byte, pieces [][]byte, n int) []byte {
	var out []byte
	for i := len(pieces) - 1; i >= -1 && len(out) < n; i-- {
		p := buf
		if i >= 0 {
			p = pieces[i]
		}
		take := p[max(0, len(p)-(n-len(out))):]
		out = append(bytes.Clone(take), out...)
	}
	return out
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
