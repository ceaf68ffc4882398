// Package budget is the daemon's memory budget (SPEC §3.9, issue 25): one
// count of the large buffers the gateway holds for others, shared by every
// client and every server, so that their sum has a ceiling whatever they
// send. What is counted:
//
//   - what clients send: a request body, from before its first byte is read
//     (Content-Length known: one exact allocation) until nothing holds it
//     any more, charged twice its size (the body, and the one copy the
//     relay makes of it on the way upstream). Clients together hold at most
//     half the budget, so that servers' answers, which end their calls,
//     always have room;
//   - what servers send: a stdout line as it is read (supervisor/stdio.go)
//     and the message it becomes, until it has been delivered and nothing
//     holds it. An HTTP upstream takes what it reads of a response body or
//     an SSE event the same way: Alloc(ctx, Servers, n, n) before reading
//     n bytes, and the buffer it gets is counted until it is unreachable.
//
// A buffer is counted from Alloc until the garbage collector finds it
// unreachable (runtime.AddCleanup): whatever path it takes (a parked call,
// a task's kept result, a late answer dropped), it is never counted after
// it is gone nor forgotten while it is held. A Take that has to wait runs
// the collector (at most every gcEvery), so that bytes nobody holds come
// back at once; after a burst, once nothing has been taken for a second,
// the memory is returned to the system (debug.FreeOSMemory).
//
// Buffers under CountFrom bytes are not counted: they are small and cheap,
// and the collector's batching of tiny objects would delay their cleanup.
package budget

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Side is who sent what a buffer holds.
type Side int

const (
	// Clients: request bodies. Clients together hold at most half the
	// budget.
	Clients Side = iota
	// Servers: what upstream servers send. Servers may hold all of it.
	Servers
)

func (s Side) String() string {
	if s == Clients {
		return "clients"
	}
	return "servers"
}

// ServerWait is how long reading what a server sends (a stdio line, an
// HTTP body or SSE event) may wait for room in the budget, held by
// answers being delivered, before it is dropped and the call it answers
// fails: the server's stream waits meanwhile.
const ServerWait = 30 * time.Second

// Default is the budget of a daemon without --memory-budget: 256 MiB, four
// times the 64 MiB request limit (charged twice, within the clients' half).
const Default = 256 << 20

// Minimum is the smallest budget accepted: a quarter of it, 8 MiB, is then
// the largest request body, the least SPEC §3.9 allows.
const Minimum = 32 << 20

// smallGrant is the size of a grant that does not queue behind larger
// waiters: a small request is admitted as soon as it fits, so that one
// client's large bodies never delay another client's small calls.
const smallGrant = 1 << 20

var (
	// ErrTooLarge is returned for a grant larger than its side may ever
	// hold.
	ErrTooLarge = errors.New("larger than the memory budget allows")
	// ErrBusy is returned when a grant did not fit before its context
	// ended.
	ErrBusy = errors.New("the memory budget is in use")
)

// Budget counts bytes held, per side, up to its size. A nil *Budget counts
// nothing and never refuses (tests, library callers without one).
type Budget struct {
	size int64

	mu    sync.Mutex
	used  [2]int64
	queue [2][]*waiter // FIFO per side

	lastGC  atomic.Int64 // unix nanoseconds of the last collection a waiter ran
	reclaim reclaimer

	heldAt int64  // OnHeld's bytes; 0: none
	onHeld func() // OnHeld's fn
}

// OnHeld has fn run at each grant that leaves at bytes or more counted,
// before the grant's buffer is allocated: the daemon's heap floor is
// lowered as a burst comes (internal/heapfloor.Lower). fn must be quick;
// it runs on the caller of Alloc, with no lock of the budget's held.
// Set it before the budget is shared: it is read without a lock. A nil
// Budget ignores it.
func (b *Budget) OnHeld(at int64, fn func()) {
	if b != nil {
		b.heldAt, b.onHeld = at, fn
	}
}

// granted runs OnHeld's fn if held bytes reach its mark.
func (b *Budget) granted(held int64) {
	if b.onHeld != nil && held >= b.heldAt {
		b.onHeld()
	}
}

type waiter struct {
	n     int64
	ready chan struct{} // closed when admitted
}

// New returns a budget of size bytes.
func New(size int64) *Budget {
	b := &Budget{size: size}
	b.reclaim.init(func() int64 { return b.InUse(Clients) + b.InUse(Servers) })
	return b
}

// Close stops a pending return of memory (the daemon, as it stops).
func (b *Budget) Close() {
	if b == nil {
		return
	}
	b.reclaim.mu.Lock()
	defer b.reclaim.mu.Unlock()
	if b.reclaim.timer != nil {
		b.reclaim.timer.Stop()
	}
}

// Size returns the budget's size in bytes (0 for nil).
func (b *Budget) Size() int64 {
	if b == nil {
		return 0
	}
	return b.size
}

// Limit returns the most side may hold at once: half the budget for
// clients, all of it for servers; -1 for nil (no limit).
func (b *Budget) Limit(side Side) int64 {
	switch {
	case b == nil:
		return -1
	case side == Clients:
		return b.size / 2
	}
	return b.size
}

// InUse returns the bytes counted now, per side.
func (b *Budget) InUse(side Side) int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used[side]
}

// take counts n bytes for side, waiting until they fit or ctx ends
// (ErrBusy); a grant larger than Limit is ErrTooLarge at once.
func (b *Budget) take(ctx context.Context, side Side, n int64) error {
	if n > b.Limit(side) {
		return fmt.Errorf("take %d bytes for %s: %w (%d bytes)", n, side, ErrTooLarge, b.Limit(side))
	}
	b.mu.Lock()
	if held, ok := b.takeNow(side, n); ok {
		b.mu.Unlock()
		b.taken(n, held)
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	b.queue[side] = append(b.queue[side], w)
	b.mu.Unlock()
	b.collect()
	select {
	case <-w.ready:
		b.taken(n, b.InUse(Clients)+b.InUse(Servers))
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-w.ready: // admitted as ctx ended: give it back
		b.used[side] -= n
	default:
		b.queue[side] = remove(b.queue[side], w)
	}
	b.admit()
	return fmt.Errorf("take %d bytes for %s: %w (%d of %d bytes held)", n, side, ErrBusy, b.used[Clients]+b.used[Servers], b.size)
}

// gcEvery bounds how often a waiting Take runs the collector, which
// gives back the bytes of buffers nobody holds any more.
const gcEvery = 100 * time.Millisecond

// collect runs the collector, at most once per gcEvery across callers, so
// that a waiter is not kept waiting by buffers nobody holds.
func (b *Budget) collect() {
	last := b.lastGC.Load()
	if since(last) < gcEvery || !b.lastGC.CompareAndSwap(last, time.Now().UnixNano()) {
		return
	}
	runtime.GC()
}

// release gives back n bytes of side.
func (b *Budget) release(side Side, n int64) {
	b.mu.Lock()
	b.used[side] -= n
	b.admit()
	b.mu.Unlock()
}

// tryTake counts n bytes for side if they fit now with spare bytes left
// over, without waiting: false if they do not, or if a grant would jump
// the queue (take).
func (b *Budget) tryTake(side Side, n, spare int64) bool {
	if n+spare > b.Limit(side) {
		return false
	}
	b.mu.Lock()
	held, ok := int64(0), b.fits(side, n+spare)
	if ok {
		held, ok = b.takeNow(side, n)
	}
	b.mu.Unlock()
	if ok {
		b.taken(n, held)
	}
	return ok
}

// takeNow counts n bytes for side if they fit and jump no queue, and
// returns what the budget then holds. b.mu is held.
func (b *Budget) takeNow(side Side, n int64) (held int64, ok bool) {
	if !b.fits(side, n) || (n > smallGrant && b.waiting(side)) {
		return 0, false
	}
	b.used[side] += n
	return b.used[Clients] + b.used[Servers], true
}

// taken tells the reclaimer and OnHeld of n bytes granted, which left
// the budget holding held. b.mu is not held.
func (b *Budget) taken(n, held int64) {
	b.reclaim.taken(n)
	b.granted(held)
}

// waiting reports whether a grant of side would jump a queue: its own
// side's, or the servers' (which come first, see admit). b.mu is held.
func (b *Budget) waiting(side Side) bool {
	return len(b.queue[side]) > 0 || len(b.queue[Servers]) > 0
}

// fits reports whether n more bytes of side fit; b.mu is held.
func (b *Budget) fits(side Side, n int64) bool {
	if b.used[Clients]+b.used[Servers]+n > b.size {
		return false
	}
	return side == Servers || b.used[Clients]+n <= b.size/2
}

// admit admits waiters that fit, servers first (their answers end calls),
// each side in order; a small waiter behind one that does not fit is
// admitted too. b.mu is held.
func (b *Budget) admit() {
	for _, side := range []Side{Servers, Clients} {
		q := b.queue[side]
		for len(q) > 0 && b.fits(side, q[0].n) {
			b.used[side] += q[0].n
			close(q[0].ready)
			q = q[1:]
		}
		kept := q[:0]
		for i, w := range q {
			if i > 0 && w.n <= smallGrant && b.fits(side, w.n) {
				b.used[side] += w.n
				close(w.ready)
				continue
			}
			kept = append(kept, w)
		}
		clear(q[len(kept):])
		b.queue[side] = kept
	}
}

func remove(q []*waiter, w *waiter) []*waiter {
	for i, x := range q {
		if x == w {
			return append(q[:i], q[i+1:]...)
		}
	}
	return q
}

// Sizes for the limits that depend on a budget's size.

// MaxBody returns the largest request body the budget admits within limit
// (a body is charged twice its size, within the clients' half); limit for
// nil.
func (b *Budget) MaxBody(limit int64) int64 {
	if b == nil {
		return limit
	}
	return min(limit, b.Limit(Clients)/2)
}

// MaxLine returns the longest line a server may send that the budget can
// hold while it is read (twice its size at most, see jsonrpc.Reader);
// limit for nil.
func (b *Budget) MaxLine(limit int) int {
	if b == nil {
		return limit
	}
	return int(min(int64(limit), b.Limit(Servers)/2))
}

// since is time.Since in nanoseconds of a unix-nanosecond stamp.
func since(stamp int64) time.Duration { return time.Duration(time.Now().UnixNano() - stamp) }
