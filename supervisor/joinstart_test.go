package supervisor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestJoinStartFollowsARestart: a call that waited for a start which
// succeeded, but whose run a restart (a catalog reload) took out of
// service before the call looked, waits for the restart and gets its
// run. It used to fail at once with the server's name and no cause
// (`server "s": `), the last error being the successful start's "".
func TestJoinStartFollowsARestart(t *testing.T) {
	l := &lifecycle{name: "s", opts: &Options{}}
	start, restart := make(chan struct{}), make(chan struct{})
	close(start) // the start is over, and its run already out of service:
	l.cur, l.lastError, l.starting = nil, "", restart

	// Until the restart is over, the call waits for it.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if r, err := l.joinStart(ctx, start); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("joinStart during the restart = %v, %v; want it waiting until its context ends", r, err)
	}

	// Then it gets the restart's run.
	next := &run{}
	go func() {
		l.mu.Lock()
		l.cur, l.starting = next, nil
		l.mu.Unlock()
		close(restart)
	}()
	if r, err := l.joinStart(context.Background(), start); err != nil || r != next {
		t.Errorf("joinStart after the restart = %p, %v; want its run %p", r, err, next)
	}

	// A start over with no run and no error still says why.
	l.mu.Lock()
	l.cur = nil
	l.mu.Unlock()
	if _, err := l.joinStart(context.Background(), start); err == nil || strings.HasSuffix(err.Error(), ": ") {
		t.Errorf("joinStart with no run = %v; want a cause", err)
	}
}
