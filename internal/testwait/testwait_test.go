package testwait

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestUntilSeesTheCondition(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 3 {
			n.Add(1)
		}
	}()
	if !Until(time.Second, func() bool { return n.Load() == 3 }) {
		t.Fatal("Until did not see n reach 3 within 1 s")
	}
}

func TestUntilGivesUp(t *testing.T) {
	start := time.Now()
	if Until(20*time.Millisecond, func() bool { return false }) {
		t.Fatal("Until reported a condition that never held")
	}
	if waited := time.Since(start); waited < 20*time.Millisecond || waited > 5*time.Second {
		t.Fatalf("Until gave up after %v, want just past 20 ms", waited)
	}
}

type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
}

func TestForFailsNamingWhat(t *testing.T) {
	r := &recorder{TB: t}
	For(r, 5*time.Millisecond, "the impossible", func() bool { return false })
	if r.failed == "" {
		t.Fatal("For did not fail the test")
	}
}
