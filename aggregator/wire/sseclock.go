package wire

import (
	"sync"
	"time"
)

// sseClock is the one clock of every armed answer's sseAfter (ArmSSE,
// OnLong):
// the armed streams, each with when it was armed, and one timer, due
// when the earliest of them has waited sseAfter. A timer of each call's
// own, armed as the call started and stopped as it ended, cost the
// serving thread about 3 µs of a ~50 µs call (bench's handler phase,
// over the floor proxy's): an earlier deadline than any other, it woke
// the runtime's network poller at every call (issue 33). Here a call
// costs a map insert and a delete, and the timer runs about once a
// second while calls come.
type sseClock struct {
	mu    sync.Mutex
	armed map[*Stream]time.Time
	timer *time.Timer // made at the first arm; set (due) while streams are armed
	due   bool
}

// clock is the process's sseClock.
var clock = sseClock{armed: map[*Stream]time.Time{}}

// arm adds s, armed now; s.sseDue runs once it has waited sseAfter,
// unless disarm came first.
func (c *sseClock) arm(s *Stream) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed[s] = now
	if c.due {
		return // due at the earliest armed's time, which is no later than s's
	}
	c.due = true
	if c.timer == nil {
		c.timer = time.AfterFunc(sseAfter, c.fire)
		return
	}
	c.timer.Reset(sseAfter)
}

// disarm drops s, if it is armed.
func (c *sseClock) disarm(s *Stream) {
	c.mu.Lock()
	delete(c.armed, s)
	c.mu.Unlock()
}

// fire hands each stream that has waited sseAfter its end (sseDue: SSE,
// OnLong), and sets the timer for the earliest of the rest; with none
// left it is not set again until the next arm.
func (c *sseClock) fire() {
	now := time.Now()
	var ready []*Stream
	var next time.Time
	c.mu.Lock()
	for s, at := range c.armed {
		switch {
		case now.Sub(at) >= sseAfter:
			ready = append(ready, s)
			delete(c.armed, s)
		case next.IsZero() || at.Before(next):
			next = at
		}
	}
	if c.due = !next.IsZero(); c.due {
		c.timer.Reset(next.Add(sseAfter).Sub(now))
	}
	c.mu.Unlock()
	// Each on a goroutine of its own, as a timer of its own ran it: one
	// stream's lock may be held by a write to a client that does not read
	// (up to writeStall), and the others must not wait behind it (found
	// by a hostile review). Not under c.mu: sseDue takes s.mu, which
	// arm's caller holds. Each returns once it has its stream's lock and
	// has written, within writeStall.
	for _, s := range ready {
		go s.sseDue()
	}
}
