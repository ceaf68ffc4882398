package budget

import (
	"runtime/debug"
	"sync"
	"time"
)

const (
	// burstBytes is how much must have been taken since the last return
	// of memory to the system for the next quiet second to return it.
	burstBytes = 16 << 20
	// quiet is how long nothing must have been taken after a burst before
	// the memory is returned to the system.
	quiet = time.Second
	// retryMax bounds the wait before the next return of memory while the
	// budget is still held after one (a call still running, a parked
	// result): it doubles from quiet up to this.
	retryMax = 8 * time.Second
)

// reclaimer returns memory to the system after a burst: a burst leaves
// the runtime holding its pages (the limit of SetMemoryLimit only bounds
// the peak), and a sandbox shares its memory with the agent's work.
type reclaimer struct {
	mu       sync.Mutex
	burst    int64 // bytes taken since the last return
	lastTake time.Time
	timer    *time.Timer   // armed while a burst waits for its quiet second
	retry    time.Duration // the wait after a return that left the budget held
	freeOS   func()        // debug.FreeOSMemory; tests replace it
	held     func() int64  // bytes the budget counts now
}

func (r *reclaimer) init(held func() int64) { r.freeOS, r.held = debug.FreeOSMemory, held }

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
// quiet second; before that, it waits for the rest of that second. While
// the budget is still held after a return (what it holds may be garbage
// the collector has not seen, or become garbage soon), it tries again,
// less and less often.
func (r *reclaimer) fire() {
	r.mu.Lock()
	if wait := quiet - time.Since(r.lastTake); wait > 0 {
		r.timer.Reset(wait)
		r.mu.Unlock()
		return
	}
	free := r.freeOS
	r.mu.Unlock()
	free()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held() < burstBytes {
		r.burst, r.timer, r.retry = 0, nil, 0
		return
	}
	r.retry = min(max(2*r.retry, quiet), retryMax)
	r.timer.Reset(r.retry)
}
