// Package testwait is the one way tests wait for something to happen:
// they poll a condition until it holds or a bound passes, never sleep a
// guessed time. The bound only proves that nothing hangs; it says nothing
// about speed (that is make bench's).
package testwait

import (
	"testing"
	"time"
)

// DefaultWithin is the bound tests use when the condition has no reason
// for another: long enough for a loaded CI machine, short enough that a
// hang fails the test rather than the whole run.
const DefaultWithin = 10 * time.Second

// For polls cond until it returns true, and fails the test (t.Fatalf,
// naming what) if it has not within d (DefaultWithin if d <= 0). It polls
// every 100 µs for the first 50 ms, for tests that act on a condition the
// moment it holds, then every 10 ms. Call it from the test's goroutine.
func For(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(d, cond) {
		if d <= 0 {
			d = DefaultWithin
		}
		t.Fatalf("timed out after %v waiting for %s", d, what)
	}
}

// Until polls cond as For does and reports whether it held within d
// (DefaultWithin if d <= 0), for a test that has something to say, or to
// clean up, when it does not.
func Until(d time.Duration, cond func() bool) bool {
	if d <= 0 {
		d = DefaultWithin
	}
	start := time.Now()
	for !cond() {
		waited := time.Since(start)
		if waited > d {
			return false
		}
		time.Sleep(interval(waited))
	}
	return true
}

// interval is the poll's period after waited.
func interval(waited time.Duration) time.Duration {
	if waited < 50*time.Millisecond {
		return 100 * time.Microsecond
	}
	return 10 * time.Millisecond
}
