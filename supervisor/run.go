package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
)

// lifecycle is an Upstream's runs over time (SPEC §7.2, §7.3): which run
// is live, the start that concurrent callers share, the end of each run
// as its owner records it, the back-off after quick failures
// (backoff.go), and the graceful restart (reload.go). A server is never
// restarted in the background: the next call that needs a run starts it.
// How one run is started and ended is its starter's (the launcher,
// start.go).
type lifecycle struct {
	name    string
	opts    *Options
	starter runStarter

	mu        sync.Mutex
	spec      adapters.LaunchSpec
	baseEnv   []string // the environment its runs start from (Options.BaseEnv, or Configure's)
	prepared  bool
	cur       *run
	starting  chan struct{} // non-nil while a start is in flight
	state     State
	restarts  int
	lastNum   uint64 // the number of the last run started; 0 before the first
	failures  int
	nextTry   time.Time
	lastExit  string
	lastError string
	lists     Lists        // the last run's lists (lists.go)
	caps      Capabilities // the last run's (capabilities.go)
	about     string       // the last run's instructions (run.instructions)
	era       string       // the last run's
	stopped   bool
}

// runStarter starts one run of the server (the launcher, start.go):
// start returns it initialised and listed, or nothing of it left; wait
// returns once every run it started has ended.
type runStarter interface {
	start(spec adapters.LaunchSpec, base []string, prepared bool, num uint64) (started, error)
	wait()
}

// current is the live run, nil if none.
func (l *lifecycle) current() *run {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur
}

// lastLists is the last run's lists.
func (l *lifecycle) lastLists() Lists {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lists
}

// replaceLists makes lists the server's, if r is still the live run
// (current), and says which of them changed.
func (l *lifecycle) replaceLists(r *run, lists Lists) (changed List, current bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur != r {
		return 0, false
	}
	changed = changedLists(l.lists, lists)
	l.lists = lists
	return changed, true
}

// capabilities is what the last run declared.
func (l *lifecycle) capabilities() Capabilities {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.caps
}

// instructions is what the last run said to read first.
func (l *lifecycle) instructions() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.about
}

// status is Upstream.Status but for its call count.
func (l *lifecycle) status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := Status{
		Name: l.name, State: l.state, Restarts: l.restarts, Tools: len(l.lists.Tools),
		Prompts: len(l.lists.Prompts), Resources: len(l.lists.Resources), Templates: len(l.lists.Templates),
		LastExit: l.lastExit, LastError: l.lastError, Era: l.era,
	}
	if l.cur != nil {
		st.PID = l.cur.pid()
		st.StartedAt = l.cur.started
		st.Protocol = l.cur.protocol
		st.Transport = l.cur.transportName()
	}
	return st
}

// setSpec is Upstream.SetSpec.
func (l *lifecycle) setSpec(spec adapters.LaunchSpec) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.spec.Equal(spec) {
		l.spec.Tools, l.spec.Prompts = spec.Tools, spec.Prompts // a choice alone needs no restart
		return false
	}
	l.spec = spec
	l.prepared = false
	return true
}

// adopted takes, for a warm server adopted by Configure, the environment
// later runs start from and the config's choice of tools and prompts.
func (l *lifecycle) adopted(base []string, spec adapters.LaunchSpec) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.baseEnv = base
	l.spec.Tools, l.spec.Prompts = spec.Tools, spec.Prompts
}

// choice is the spec's choice of tools and prompts (Upstream.Choice).
func (l *lifecycle) choice() (tools, prompts choice.Choice) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.spec.Tools, l.spec.Prompts
}

// adoption is the live run and the spec, for Configure's adoption.
func (l *lifecycle) adoption() (*run, adapters.LaunchSpec) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur, l.spec
}

// stop is Upstream.Stop.
func (l *lifecycle) stop(ctx context.Context) {
	r := l.current()
	if r == nil {
		return
	}
	r.halt(ctx, l.opts.Stop)
	<-r.done
}

// retire stops the server for good, the calls its run ends failing with
// why, and waits for every run's end.
func (l *lifecycle) retire(ctx context.Context, why string) {
	l.mu.Lock()
	l.stopped = true
	l.state = StateStopped
	if l.cur != nil {
		l.cur.stopReason.Store(ptr(why))
	}
	l.mu.Unlock()
	l.stop(ctx)
	l.starter.wait()
}

// acquireRun is acquire for CallRun: num 0 is any run, another must be
// the live one.
func (l *lifecycle) acquireRun(ctx context.Context, num uint64) (*run, error) {
	if num == 0 {
		return l.acquire(ctx)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.cur
	if r == nil || r.num != num || r.conn.Failure() != nil {
		return nil, fmt.Errorf("server %q: call run %d: %w", l.name, num, ErrRunEnded)
	}
	r.active.Add(1)
	return r, nil
}

// acquire returns the live run with the call counted in its active
// group, so that a graceful restart waits for it. A run taken out of
// service between liveRun and the count is not used: the call waits for
// its successor instead.
func (l *lifecycle) acquire(ctx context.Context) (*run, error) {
	for {
		r, err := l.liveRun(ctx)
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.cur == r {
			r.active.Add(1)
			l.mu.Unlock()
			return r, nil
		}
		l.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// liveRun returns the live run, starting one if needed. Concurrent
// callers share one start; a run that is ending is waited out and
// replaced; while the server backs off, the call fails at once.
func (l *lifecycle) liveRun(ctx context.Context) (*run, error) {
	for {
		l.mu.Lock()
		if l.stopped {
			l.mu.Unlock()
			return nil, l.errShuttingDown()
		}
		if r := l.cur; r != nil {
			l.mu.Unlock()
			ended, err := awaitEnd(ctx, r)
			if err != nil {
				return nil, err
			}
			if ended {
				continue
			}
			return r, nil
		}
		if wait := l.starting; wait != nil {
			l.mu.Unlock()
			return l.joinStart(ctx, wait)
		}
		if err := l.backingOff(); err != nil {
			l.mu.Unlock()
			return nil, err
		}
		return l.startRun()
	}
}

func (l *lifecycle) errShuttingDown() error {
	return fmt.Errorf("server %q: the gateway is shutting down", l.name)
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
func (l *lifecycle) joinStart(ctx context.Context, wait <-chan struct{}) (*run, error) {
	for {
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		l.mu.Lock()
		r, lastErr, next := l.cur, l.lastError, l.starting
		l.mu.Unlock()
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
		return nil, fmt.Errorf("server %q: %s", l.name, lastErr)
	}
}

// backingOff says, as an error, when the next start may be tried if the
// server is backing off (SPEC §7.3); nil if it may start now. Call with
// l.mu held.
func (l *lifecycle) backingOff() error {
	wait := time.Until(l.nextTry)
	if wait <= 0 {
		return nil
	}
	return fmt.Errorf("server %q: failed %d times in a row (last: %s); backing off, next start in %s (at %s)",
		l.name, l.failures, l.lastError, wait.Round(100*time.Millisecond), l.nextTry.UTC().Format(time.TimeOnly))
}

// startRun starts a new run and makes it the current one. Call it with
// l.mu held and no start in flight; it unlocks l.mu. Callers that come
// meanwhile wait on l.starting.
func (l *lifecycle) startRun() (*run, error) {
	done := make(chan struct{})
	l.starting = done
	l.state = StateStarting
	if l.lastNum > 0 {
		l.restarts++
	}
	l.lastNum++
	spec, base, prepared, num := l.spec, l.baseEnv, l.prepared, l.lastNum
	l.mu.Unlock()

	st, err := l.starter.start(spec, base, prepared, num)
	if err != nil {
		return nil, l.startFailed(done, err)
	}
	return l.startSucceeded(done, spec, st)
}

// startFailed records a failed start (it counts for the back-off), lets
// the callers waiting on done go, and returns the start's error.
func (l *lifecycle) startFailed(done chan struct{}, err error) error {
	l.mu.Lock()
	l.starting = nil
	l.state = StateFailed
	l.lastError = err.Error()
	if exit := (*ExitError)(nil); errors.As(err, &exit) {
		l.lastExit = exit.Status // the process of this start ended: its status is the last exit
	}
	l.failures++
	l.nextTry = time.Now().Add(backoffDelay(l.failures))
	l.mu.Unlock()
	close(done)
	l.opts.Logger.Warn("server failed to start", "server", l.name, "error", err)
	return &StartError{Server: l.name, Err: err}
}

// startSucceeded makes the new run current, lets the callers waiting on
// done go, and announces changed lists (SPEC §4.5). If shutdown began while the
// run started, it found nothing to stop: the run is stopped here instead,
// or it would outlive the daemon.
func (l *lifecycle) startSucceeded(done chan struct{}, spec adapters.LaunchSpec, st started) (*run, error) {
	l.mu.Lock()
	l.starting = nil
	if spec.Prepare != nil {
		l.prepared = true
	}
	if l.stopped {
		l.mu.Unlock()
		close(done)
		st.run.halt(context.Background(), l.opts.Stop)
		<-st.run.done
		return nil, l.errShuttingDown()
	}
	changed := changedLists(l.lists, st.lists)
	if l.caps != st.run.caps {
		changed |= ListTools // what the gateway offers may change with them
	}
	l.lists = st.lists
	l.cur = st.run
	l.era, l.caps, l.about = st.run.era, st.run.caps, st.run.instructions
	l.state = StateRunning
	l.lastError = ""
	l.mu.Unlock()
	close(done)
	l.opts.Logger.Info("server ready", "server", l.name, "pid", st.run.pid(), "transport", st.run.transportName(), "tools", len(st.lists.Tools),
		"prompts", len(st.lists.Prompts), "resources", len(st.lists.Resources), "resourceTemplates", len(st.lists.Templates),
		"protocolVersion", st.run.protocol, "era", st.run.era)
	if changed != 0 && l.opts.OnListChanged != nil {
		l.opts.OnListChanged(l.name)
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

// recordEnd records the end of run r, if it is still the current one:
// its child's exit status (if it had a child) and why it ended, and a
// failure for the back-off unless it served or ran long. It reports
// whether the end is news to log: the run was current and the gateway did
// not stop it for good.
func (l *lifecycle) recordEnd(r *run, status string, why error) bool {
	l.mu.Lock()
	wasCurrent := l.cur == r
	if wasCurrent {
		l.cur = nil
		if status != "" {
			l.lastExit = status
		}
		if !l.stopped {
			l.state = StateExited
			l.lastError = why.Error()
		}
		if r.served.Load() || time.Since(r.started) >= BackoffReset {
			l.failures = 0
		} else {
			l.failures++
			l.nextTry = time.Now().Add(backoffDelay(l.failures))
		}
	}
	stopped := l.stopped
	l.mu.Unlock()
	return wasCurrent && !stopped
}
