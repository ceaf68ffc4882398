package budget

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

const (
	// gcEvery bounds how often a waiting Take runs the collector, which
	// gives back the bytes of buffers nobody holds any more.
	gcEvery = 100 * time.Millisecond
	// burstBytes is how much must have been taken since the last return
	// of memory to the system for the next quiet second to return it.
	burstBytes = 16 << 20
	// quiet is how long nothing must have been taken after a burst before
	// the memory is returned to the system.
	quiet = time.Second
)

// collect runs the collector, at most once per gcEvery across callers, so
// that a waiter is not kept waiting by buffers nobody holds.
func (b *Budget) collect() {
	last := b.lastGC.Load()
	if since(last) < gcEvery || !b.lastGC.CompareAndSwap(last, time.Now().UnixNano()) {
		return
	}
	runtime.GC()
}

// reclaimer returns memory to the system after a burst: a burst leaves
// the runtime holding its pages (the limit of SetMemoryLimit only bounds
// the peak), and a sandbox shares its memory with the agent's work.
type reclaimer struct {
	mu       sync.Mutex
	burst    int64 // bytes taken since the last return
	lastTake time.Time
	timer    *time.Timer // armed while a burst waits for its quiet second
	freeOS   func()      // debug.FreeOSMemory; tests replace it
}

func (r *reclaimer) init() { r.freeOS = debug.FreeOSMemory }

// taken notes n bytes taken, and arms the quiet timer after a burst.
func (r *reclaimer) taken(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.burst += n
	r.lastTake = time.Now()
	if r.burst >= burstBytes && r.timer == nil {
		r.timer = time.AfterFunc(quiet, r.fire)
	}
}

// fire returns memory to the system once nothing has been taken for a
// quiet second; before that, it waits for the rest of that second.
func (r *reclaimer) fire() {
	r.mu.Lock()
	if wait := quiet - time.Since(r.lastTake); wait > 0 {
		r.timer.Reset(wait)
		r.mu.Unlock()
		return
	}
	r.burst, r.timer = 0, nil
	free := r.freeOS
	r.mu.Unlock()
	free()
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
