package supervisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

// liveRun returns the live run, starting one if needed. Concurrent
// callers share one start; a run that is ending is waited out and
// replaced; while the server backs off, the call fails at once.
func (u *Upstream) liveRun(ctx context.Context) (*run, error) {
	for {
		u.mu.Lock()
		if u.stopped {
			u.mu.Unlock()
			return nil, u.errShuttingDown()
		}
		if r := u.cur; r != nil {
			u.mu.Unlock()
			ended, err := awaitEnd(ctx, r)
			if err != nil {
				return nil, err
			}
			if ended {
				continue
			}
			return r, nil
		}
		if wait := u.starting; wait != nil {
			u.mu.Unlock()
			return u.joinStart(ctx, wait)
		}
		if err := u.backingOff(); err != nil {
			u.mu.Unlock()
			return nil, err
		}
		return u.startRun()
	}
}

func (u *Upstream) errShuttingDown() error {
	return fmt.Errorf("server %q: the gateway is shutting down", u.name)
}

// awaitEnd reports whether run r has ended. A run whose connection died
// is ending: once its reader has recorded the exit (r.done), the caller
// starts a new one rather than fail on the dead one.
func awaitEnd(ctx context.Context, r *run) (ended bool, err error) {
	select {
	case <-r.conn.Dead():
	default:
		return false, nil
	}
	select {
	case <-r.done:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// joinStart waits for the start in flight (wait closes when it is over)
// and returns its run, or why it failed. A start that succeeded but whose
// run a restart (a catalog reload, reload.go) took out of service before
// this call looked is followed by the restart's own wait: the call goes
// to the new run. It failed with no cause, `server "memory": `, while a
// reload restarted a server that had just started (the chaos run;
// TestJoinStartFollowsARestart).
func (u *Upstream) joinStart(ctx context.Context, wait <-chan struct{}) (*run, error) {
	for {
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		u.mu.Lock()
		r, lastErr, next := u.cur, u.lastError, u.starting
		u.mu.Unlock()
		if r != nil {
			return r, nil
		}
		if next != nil && next != wait {
			wait = next
			continue
		}
		if lastErr == "" {
			lastErr = "its run ended as it started"
		}
		return nil, fmt.Errorf("server %q: %s", u.name, lastErr)
	}
}

// backingOff says, as an error, when the next start may be tried if the
// server is backing off (SPEC §7.3); nil if it may start now. Call with
// u.mu held.
func (u *Upstream) backingOff() error {
	wait := time.Until(u.nextTry)
	if wait <= 0 {
		return nil
	}
	return fmt.Errorf("server %q: failed %d times in a row (last: %s); backing off, next start in %s (at %s)",
		u.name, u.failures, u.lastError, wait.Round(100*time.Millisecond), u.nextTry.UTC().Format(time.TimeOnly))
}

// startRun starts a new run and makes it the current one. Call it with
// u.mu held and no start in flight; it unlocks u.mu. Callers that come
// meanwhile wait on u.starting.
func (u *Upstream) startRun() (*run, error) {
	done := make(chan struct{})
	u.starting = done
	u.state = StateStarting
	if u.lastNum > 0 {
		u.restarts++
	}
	u.lastNum++
	spec, base, prepared, num := u.spec, u.baseEnv, u.prepared, u.lastNum
	u.mu.Unlock()

	st, err := u.start(spec, base, prepared, num)
	if err != nil {
		return nil, u.startFailed(done, err)
	}
	return u.startSucceeded(done, spec, st)
}

// startFailed records a failed start (it counts for the back-off), lets
// the callers waiting on done go, and returns the start's error.
func (u *Upstream) startFailed(done chan struct{}, err error) error {
	u.mu.Lock()
	u.starting = nil
	u.state = StateFailed
	u.lastError = err.Error()
	if exit := (*ExitError)(nil); errors.As(err, &exit) {
		u.lastExit = exit.Status // the process of this start ended: its status is the last exit
	}
	u.failures++
	u.nextTry = time.Now().Add(backoffDelay(u.failures))
	u.mu.Unlock()
	close(done)
	u.opts.Logger.Warn("server failed to start", "server", u.name, "error", err)
	return &StartError{Server: u.name, Err: err}
}

// startSucceeded makes the new run current, lets the callers waiting on
// done go, and announces changed lists (SPEC §4.5). If shutdown began while the
// run started, it found nothing to stop: the run is stopped here instead,
// or it would outlive the daemon.
func (u *Upstream) startSucceeded(done chan struct{}, spec adapters.LaunchSpec, st started) (*run, error) {
	u.mu.Lock()
	u.starting = nil
	if spec.Prepare != nil {
		u.prepared = true
	}
	if u.stopped {
		u.mu.Unlock()
		close(done)
		st.run.halt(context.Background(), u.opts.Stop)
		<-st.run.done
		return nil, u.errShuttingDown()
	}
	changed := changedLists(u.lists, st.lists)
	if u.caps != st.run.caps {
		changed |= ListTools // what the gateway offers may change with them
	}
	u.lists = st.lists
	u.cur = st.run
	u.era, u.caps = st.run.era, st.run.caps
	u.state = StateRunning
	u.lastError = ""
	u.mu.Unlock()
	close(done)
	u.opts.Logger.Info("server ready", "server", u.name, "pid", st.run.pid(), "transport", st.run.transportName(), "tools", len(st.lists.Tools),
		"prompts", len(st.lists.Prompts), "resources", len(st.lists.Resources), "resourceTemplates", len(st.lists.Templates),
		"protocolVersion", st.run.protocol, "era", st.run.era)
	if changed != 0 && u.opts.OnListChanged != nil {
		u.opts.OnListChanged(u.name)
	}
	return st.run, nil
}

// ExitError reports that a server's process ended. Calls pending at that
// moment fail with it (SPEC §7.2).
type ExitError struct {
	Status string // "exit status 1", "signal: killed"
	Stderr string // the last stderr lines, " | "-joined
	Reason string // why the gateway stopped it; "" if it exited by itself
}

func (e *ExitError) Error() string {
	msg := "server exited (" + e.Status + ")"
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.Stderr != "" {
		msg += "; last stderr: " + e.Stderr
	}
	return msg
}

// ErrExited matches any *ExitError with errors.Is.
var ErrExited = errors.New("server exited")

func (e *ExitError) Is(target error) bool { return target == ErrExited }

// exitGrace is how long a server that closed its stdout may take to exit
// by itself before its group is killed: without stdout the run is
// unusable, but its own exit status says more than "killed".
const exitGrace = 500 * time.Millisecond

// serveRun is the run's reader goroutine: it reads the server's stdout
// (stdio.Transport.Read) until the pipe ends, then ends the run: it waits
// for the exit that the process's owner records (killing the group after
// exitGrace), fails the calls still pending with it, waits for the relays
// the run started, records the end of the run in u and closes r.done.
func (u *Upstream) serveRun(r *run) {
	defer u.runs.Done()
	r.proc.ReadStdout(r.stdio.Read)
	if !r.proc.WaitFor(context.Background(), exitGrace) {
		r.proc.Kill()
		<-r.proc.Exited()
	}
	exitErr := &ExitError{Status: r.proc.ExitStatus(), Stderr: r.proc.StderrTail()}
	if why := r.stopReason.Load(); why != nil {
		exitErr.Reason = *why
	}
	r.conn.Fail(exitErr)
	r.conn.WaitHandlers()
	r.proc.Stdin().Close()
	logExit := u.recordEnd(r, exitErr.Status, exitErr)
	close(r.done)
	if logExit {
		u.opts.Logger.Warn("server exited; the next call restarts it", "server", u.name, "status", exitErr.Status)
	}
}

// recordEnd records the end of run r, if it is still the current one:
// its child's exit status (if it had a child) and why it ended, and a
// failure for the back-off unless it served or ran long. It reports
// whether the end is news to log: the run was current and the gateway did
// not stop it for good.
func (u *Upstream) recordEnd(r *run, status string, why error) bool {
	u.mu.Lock()
	wasCurrent := u.cur == r
	if wasCurrent {
		u.cur = nil
		if status != "" {
			u.lastExit = status
		}
		if !u.stopped {
			u.state = StateExited
			u.lastError = why.Error()
		}
		if r.served.Load() || time.Since(r.started) >= BackoffReset {
			u.failures = 0
		} else {
			u.failures++
			u.nextTry = time.Now().Add(backoffDelay(u.failures))
		}
	}
	stopped := u.stopped
	u.mu.Unlock()
	return wasCurrent && !stopped
}
