package budget

import (
	"bytes"
	"context"
	"runtime"
)

// CountFrom is the smallest buffer Alloc counts: 4 KiB.
const CountFrom = 4 << 10

// charge is what a counted buffer gives back when it is collected.
type charge struct {
	side Side
	n    int64
}

// Alloc returns a buffer of size bytes for side, counting charge bytes
// (at least size: a request body is charged twice, see the package doc)
// from now until the garbage collector finds the buffer unreachable. It
// waits until they fit or ctx ends: ErrBusy then, ErrTooLarge at once for
// a charge larger than Limit(side). Buffers under CountFrom bytes, and
// every buffer of a nil Budget, are plain allocations.
func (b *Budget) Alloc(ctx context.Context, side Side, size int, charge int64) ([]byte, error) {
	if b == nil || size < CountFrom {
		return make([]byte, size), nil
	}
	charge = max(charge, int64(size))
	if err := b.take(ctx, side, charge); err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	b.track(&buf[0], side, charge)
	return buf, nil
}

// TryAlloc is Alloc of size bytes, charged size, that does not wait: nil
// unless they fit now with spare bytes left over for others, and, for
// more than 1 MiB, no one is waiting for room. A reader that can do without
// the buffer asks for it so: the Reader of a server's stdout, for the
// buffer it reads a long line whole into (jsonrpc.Reader.Reserve), leaves
// room for a line read as any other.
func (b *Budget) TryAlloc(side Side, size int, spare int64) []byte {
	if b == nil || size < CountFrom {
		return make([]byte, size)
	}
	if !b.tryTake(side, int64(size), spare) {
		return nil
	}
	buf := make([]byte, size)
	b.track(&buf[0], side, int64(size))
	return buf
}

// AllocFilled is Alloc for a buffer that starts out holding parts, in
// order (their lengths in all is its size): the bytes of a line or body
// read in pieces. It is not cleared before they are copied in, as a
// buffer of Alloc's is: for an 8 MiB line that clearing cost as much as
// the copy (issue 33).
func (b *Budget) AllocFilled(ctx context.Context, side Side, parts [][]byte, charge int64) ([]byte, error) {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if b == nil || size < CountFrom {
		return join(parts), nil
	}
	charge = max(charge, int64(size))
	if err := b.take(ctx, side, charge); err != nil {
		return nil, err
	}
	buf := join(parts)
	b.track(&buf[0], side, charge)
	return buf, nil
}

// join is bytes.Join of parts with no separator, of exactly their size
// (cap too) and never nil: Join copies a single part with append, whose
// capacity rounds up.
func join(parts [][]byte) []byte {
	if len(parts) < 2 {
		parts = append(parts[:len(parts):len(parts)], nil, nil)
	}
	return bytes.Join(parts, nil)
}

// track gives back n bytes of side once p's allocation is unreachable.
func (b *Budget) track(p *byte, side Side, n int64) {
	runtime.AddCleanup(p, b.collected, charge{side, n})
}

func (b *Budget) collected(c charge) { b.release(c.side, c.n) }

// Piece is a counted buffer whose charge Join can move to another.
type Piece struct {
	Buf     []byte // the bytes read into it (a prefix of what was allocated)
	side    Side
	n       int64 // its charge; 0 for an uncounted buffer
	cleanup runtime.Cleanup
}

// AllocPiece is Alloc for a buffer that will be joined with others
// (Join): a chunked request body, read in pieces of growing size.
func (b *Budget) AllocPiece(ctx context.Context, side Side, size int, n int64) (Piece, error) {
	if b == nil || size < CountFrom {
		return Piece{Buf: make([]byte, size), side: side}, nil
	}
	n = max(n, int64(size))
	if err := b.take(ctx, side, n); err != nil {
		return Piece{}, err
	}
	buf := make([]byte, size)
	return Piece{Buf: buf, side: side, n: n, cleanup: runtime.AddCleanup(&buf[0], b.collected, charge{side, n})}, nil
}

// Join returns one buffer of the pieces' bytes, in order, which takes
// over their charges: it waits for nothing, and the budget gets the
// bytes back when the joined buffer is collected, not the pieces (which
// are garbage after it). The charge moves rather than adds: pieces
// charged twice their size leave the joined body charged twice its own,
// as Alloc's would be, instead of three times.
func (b *Budget) Join(pieces []Piece) []byte {
	if len(pieces) == 1 {
		return pieces[0].Buf // it keeps its own charge
	}
	var total int
	var charged int64
	for _, p := range pieces {
		total += len(p.Buf)
		charged += p.n
	}
	bufs := make([][]byte, len(pieces))
	for i, p := range pieces {
		bufs[i] = p.Buf
		if p.n > 0 {
			p.cleanup.Stop()
		}
	}
	body := join(bufs) // not cleared first, as make's would be
	if charged > 0 && total > 0 {
		b.track(&body[0], pieces[0].side, charged)
	} else if charged > 0 {
		b.release(pieces[0].side, charged) // nothing was read: nothing holds it
	}
	return body
}
