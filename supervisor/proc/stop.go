package proc

import (
	"context"
	"syscall"
	"time"
)

// StopTimeouts are the waits of the stop sequence (SPEC §7.6; STYLE §4;
// MCP 2025-06-18 lifecycle §Shutdown/stdio): close stdin, wait CloseWait;
// SIGTERM the process group, wait TermWait; then SIGKILL the group. A
// zero field takes its default.
type StopTimeouts struct {
	CloseWait time.Duration // default defaultCloseWait (2 s)
	TermWait  time.Duration // default defaultTermWait (2 s)
}

const (
	// defaultCloseWait is how long a child may take to exit by itself once
	// its stdin is closed, the polite end of an MCP stdio connection.
	defaultCloseWait = 2 * time.Second
	// defaultTermWait is how long its process group may take to exit after
	// SIGTERM before it is killed.
	defaultTermWait = 2 * time.Second
)

func (t StopTimeouts) withDefaults() StopTimeouts {
	if t.CloseWait <= 0 {
		t.CloseWait = defaultCloseWait
	}
	if t.TermWait <= 0 {
		t.TermWait = defaultTermWait
	}
	return t
}

// Stop runs the stop sequence and returns once the child has exited and
// its exit is recorded. ctx cuts the graceful waits short: the group is
// then killed at once. It may be called more than once, and concurrently.
//
// Every process below the child as the stop begins dies with it, those
// that left its process group (setsid) included: they are listed first,
// and the ones still running once the child has exited are killed.
func (p *Process) Stop(ctx context.Context, t StopTimeouts) {
	t = t.withDefaults()
	tree := descendants(p.pid)
	defer killRefs(tree)
	p.stdin.Close()
	if p.WaitFor(ctx, t.CloseWait) {
		return
	}
	_ = syscall.Kill(-p.pid, syscall.SIGTERM)
	if p.WaitFor(ctx, t.TermWait) {
		return
	}
	p.Kill()
	<-p.exited
}

// WaitFor waits up to d for the child to exit (Exited), or until ctx
// ends, and reports whether it exited.
func (p *Process) WaitFor(ctx context.Context, d time.Duration) bool {
	return within(ctx, p.exited, d)
}
