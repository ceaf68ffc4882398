package budget

import (
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

// track gives back n bytes of side once p's allocation is unreachable.
func (b *Budget) track(p *byte, side Side, n int64) {
	runtime.AddCleanup(p, b.collected, charge{side, n})
}

func (b *Budget) collected(c charge) { b.release(c.side, c.n) }
