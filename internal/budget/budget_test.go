package budget

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

const mib = 1 << 20

func quick(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	t.Cleanup(cancel)
	return ctx
}

// Clients hold at most half; servers may take the rest; a charge past a
// side's limit is refused at once.
func TestSides(t *testing.T) {
	b := New(64 * mib)
	if err := b.take(quick(t), Clients, 32*mib); err != nil {
		t.Fatal(err)
	}
	if err := b.take(quick(t), Clients, 2*mib); !errors.Is(err, ErrBusy) {
		t.Fatalf("clients past half: %v, want ErrBusy", err)
	}
	if err := b.take(quick(t), Servers, 32*mib); err != nil {
		t.Fatalf("servers in the other half: %v", err)
	}
	if err := b.take(quick(t), Servers, 8*mib); !errors.Is(err, ErrBusy) {
		t.Fatalf("servers past the size: %v, want ErrBusy", err)
	}
	start := time.Now()
	if err := b.take(context.Background(), Clients, 33*mib); !errors.Is(err, ErrTooLarge) || time.Since(start) > time.Second {
		t.Fatalf("a charge past the clients' limit: %v after %v, want ErrTooLarge at once", err, time.Since(start))
	}
	b.release(Clients, 32*mib)
	b.release(Servers, 32*mib)
	if b.InUse(Clients) != 0 || b.InUse(Servers) != 0 {
		t.Fatalf("in use after release: %d, %d", b.InUse(Clients), b.InUse(Servers))
	}
}

// A waiter is admitted when bytes come back; a small grant is not held up
// behind a large waiter; a waiter whose context ends leaves no count.
func TestWaiters(t *testing.T) {
	b := New(64 * mib)
	if err := b.take(quick(t), Clients, 30*mib); err != nil {
		t.Fatal(err)
	}
	big := queued(t, b, Clients, 20*mib)
	if err := b.take(quick(t), Clients, 512<<10); err != nil {
		t.Fatalf("a small grant behind a large waiter: %v", err)
	}
	b.release(Clients, 30*mib)
	if err := <-big; err != nil {
		t.Fatalf("the large waiter: %v", err)
	}
	if err := b.take(quick(t), Clients, 20*mib); !errors.Is(err, ErrBusy) {
		t.Fatalf("past half while held: %v", err)
	}
	if got := b.InUse(Clients); got != 20*mib+512<<10 {
		t.Fatalf("in use = %d, want the two grants only", got)
	}
}

// Alloc counts a buffer until the collector finds it unreachable; small
// buffers are not counted.
func TestAllocCountedUntilCollected(t *testing.T) {
	b := New(64 * mib)
	buf, err := b.Alloc(context.Background(), Clients, 8*mib, 16*mib)
	if err != nil || len(buf) != 8*mib {
		t.Fatalf("Alloc: %d bytes, %v", len(buf), err)
	}
	if got := b.InUse(Clients); got != 16*mib {
		t.Fatalf("in use = %d, want the charge, 16 MiB", got)
	}
	small, _ := b.Alloc(context.Background(), Servers, CountFrom-1, 0)
	if got := b.InUse(Servers); got != 0 {
		t.Fatalf("a %d-byte buffer was counted: %d", len(small), got)
	}
	runtime.KeepAlive(buf)
	buf = nil
	testwait.For(t, 0, "the collected buffer's bytes to come back", func() bool {
		runtime.GC()
		return b.InUse(Clients) == 0
	})
}

// A waiter runs the collector: bytes of buffers nobody holds come back
// without anything else allocating.
func TestWaiterCollects(t *testing.T) {
	b := New(64 * mib)
	buf, _ := b.Alloc(context.Background(), Servers, 60*mib, 0)
	buf[0] = 1
	buf = nil
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := b.Alloc(ctx, Servers, 30*mib, 0); err != nil {
		t.Fatalf("a waiter behind an unreachable buffer: %v", err)
	}
}

// After a burst, the first quiet second returns memory to the system,
// once; a trickle does not.
func TestReclaimAfterBurst(t *testing.T) {
	b := New(256 * mib)
	var freed atomic.Int32
	b.reclaim.mu.Lock()
	b.reclaim.freeOS = func() { freed.Add(1) }
	b.reclaim.mu.Unlock()
	for range 3 {
		if err := b.take(quick(t), Servers, 8*mib); err != nil {
			t.Fatal(err)
		}
		b.release(Servers, 8*mib)
	}
	testwait.For(t, 0, "the memory to be returned after the burst", func() bool { return freed.Load() == 1 })
	_ = b.take(quick(t), Servers, 1*mib)
	b.reclaim.mu.Lock()
	armed := b.reclaim.timer != nil
	b.reclaim.mu.Unlock()
	if armed || freed.Load() != 1 {
		t.Fatalf("after a trickle: timer armed %v, memory returned %d times; want no timer, once", armed, freed.Load())
	}
	b.Close()
}

// Join moves the pieces' charge to the joined buffer: the count neither
// grows at the join nor falls when the pieces are collected, and comes
// back when the joined buffer is.
func TestJoinMovesTheCharge(t *testing.T) {
	b := New(64 * mib)
	var pieces []Piece
	for _, size := range []int{1 * mib, 2 * mib, 4 * mib} {
		p, err := b.AllocPiece(context.Background(), Clients, size, 2*int64(size))
		if err != nil {
			t.Fatal(err)
		}
		for i := range p.Buf {
			p.Buf[i] = byte(size >> 20)
		}
		pieces = append(pieces, p)
	}
	pieces[2].Buf = pieces[2].Buf[:mib] // the last piece partly read
	body := b.Join(pieces)
	if len(body) != 4*mib || body[0] != 1 || body[mib] != 2 || body[4*mib-1] != 4 {
		t.Fatalf("joined %d bytes, wrong contents", len(body))
	}
	if got := b.InUse(Clients); got != 14*mib {
		t.Fatalf("in use after the join = %d MiB, want the pieces' 14 MiB", got/mib)
	}
	pieces = nil
	for range 3 {
		runtime.GC()
	}
	if got := b.InUse(Clients); got != 14*mib {
		t.Errorf("in use once the pieces are collected = %d MiB, want 14: the joined body holds it", got/mib)
	}
	runtime.KeepAlive(body)
	body = nil
	testwait.For(t, 0, "the joined buffer's bytes to come back", func() bool {
		runtime.GC()
		return b.InUse(Clients) == 0
	})
}

// AllocFilled's buffer holds the parts, of their size, and is counted
// until it is collected, like Alloc's; a small one is not counted.
func TestAllocFilledHoldsThePartsAndIsCounted(t *testing.T) {
	b := New(64 * mib)
	parts := [][]byte{bytes.Repeat([]byte("a"), mib), bytes.Repeat([]byte("b"), 2*mib)}
	buf, err := b.AllocFilled(context.Background(), Servers, parts, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(buf) != 3*mib || cap(buf) != 3*mib || buf[0] != 'a' || buf[mib-1] != 'a' || buf[mib] != 'b' || buf[3*mib-1] != 'b' {
		t.Fatalf("filled %d bytes (cap %d), wrong contents", len(buf), cap(buf))
	}
	if got := b.InUse(Servers); got != 3*mib {
		t.Fatalf("in use = %d bytes, want the buffer's %d", got, 3*mib)
	}
	for _, size := range []int{0, 100, 100000} {
		one, err := b.AllocFilled(context.Background(), Clients, [][]byte{make([]byte, size)}, 0)
		if err != nil || one == nil || len(one) != size || cap(one) != size {
			t.Fatalf("one part of %d bytes: len %d cap %d (nil %v), %v; want its size exactly", size, len(one), cap(one), one == nil, err)
		}
	}
	small, err := b.AllocFilled(context.Background(), Servers, [][]byte{[]byte("ab"), []byte("c")}, 0)
	if err != nil || string(small) != "abc" || b.InUse(Servers) != 3*mib {
		t.Fatalf("small: %q, %v, in use %d", small, err, b.InUse(Servers))
	}
	runtime.KeepAlive(buf)
	buf = nil
	testwait.For(t, 0, "the filled buffer's bytes to come back", func() bool {
		runtime.GC()
		return b.InUse(Servers) == 0
	})
}

// OnHeld's fn runs at each grant that leaves its mark or more counted,
// on either side and for a waiter admitted later, and not below it.
func TestOnHeldRunsAtTheMark(t *testing.T) {
	b := New(64 * mib)
	var runs atomic.Int32
	b.OnHeld(3*mib, func() { runs.Add(1) })
	if err := b.take(quick(t), Clients, 2*mib); err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 0 {
		t.Fatalf("2 MiB held, mark 3 MiB: fn ran %d times", n)
	}
	if err := b.take(quick(t), Servers, 1*mib); err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("3 MiB held over both sides: fn ran %d times, want 1", n)
	}
	if err := b.take(quick(t), Clients, 29*mib); err != nil { // the clients' half, 31 MiB
		t.Fatal(err)
	}
	waiter := queued(t, b, Clients, 2*mib)
	b.release(Clients, 29*mib)
	if err := <-waiter; err != nil {
		t.Fatal(err)
	}
	if n := runs.Load(); n != 3 {
		t.Fatalf("after two more grants past the mark: fn ran %d times, want 3", n)
	}
}

// TryAlloc grants at once or not at all: nil when the bytes do not fit
// with its spare left over, or when a large grant would jump a waiter;
// what it grants is counted until collected, as Alloc's is.
func TestTryAllocDoesNotWait(t *testing.T) {
	b := New(64 * mib)
	buf := b.TryAlloc(Servers, 40*mib, 0)
	if len(buf) != 40*mib || b.InUse(Servers) != 40*mib {
		t.Fatalf("a grant that fits: %d bytes, in use %d", len(buf), b.InUse(Servers))
	}
	if got := b.TryAlloc(Servers, 30*mib, 0); got != nil || b.InUse(Servers) != 40*mib {
		t.Fatalf("a grant that does not fit: %d bytes, in use %d; want nil and nothing counted", len(got), b.InUse(Servers))
	}
	if got := b.TryAlloc(Servers, 8*mib, 17*mib); got != nil || b.InUse(Servers) != 40*mib {
		t.Fatalf("a grant that fits but leaves less than its spare: %d bytes, in use %d; want nil", len(got), b.InUse(Servers))
	}
	if got := b.TryAlloc(Servers, 8*mib, 16*mib); len(got) != 8*mib || b.InUse(Servers) != 48*mib {
		t.Fatalf("a grant that leaves its spare: %d bytes, in use %d", len(got), b.InUse(Servers))
	}
	waiting := queued(t, b, Servers, 30*mib)
	if got := b.TryAlloc(Servers, 2*mib, 0); got != nil {
		t.Fatalf("a large grant before a waiter: %d bytes, want nil", len(got))
	}
	if got := b.TryAlloc(Servers, 512<<10, 0); len(got) != 512<<10 {
		t.Fatalf("a small grant behind a waiter: %d bytes", len(got))
	}
	runtime.KeepAlive(buf)
	buf = nil
	var err error
	testwait.For(t, 0, "the waiter to be admitted once the grant is collected", func() bool {
		runtime.GC()
		select {
		case err = <-waiting:
			return true
		default:
			return false
		}
	})
	if err != nil {
		t.Fatalf("the waiter: %v", err)
	}
	if got := (*Budget)(nil).TryAlloc(Servers, 8*mib, 0); len(got) != 8*mib {
		t.Fatalf("no budget: %d bytes", len(got))
	}
}

// queued starts a take of n bytes for side that waits for room, and
// returns once it is in the queue (the only one): its error comes on the
// channel when it is admitted or gives up.
func queued(t *testing.T, b *Budget, side Side, n int64) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- b.take(context.Background(), side, n) }()
	testwait.For(t, 0, "the waiter to queue", func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.queue[side]) == 1
	})
	return done
}
