package supervisor

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

// DefaultDrain bounds how long a graceful restart waits for the calls in
// flight on the old run (SPEC §6.3).
const DefaultDrain = 10 * time.Second

// afterStopWait is how long calls on a stopped run may take to return
// before restart logs that it is still waiting for them (they fail at once
// when the run ends, so this should never be seen).
const afterStopWait = 5 * time.Second

// restart restarts a running server on its current spec (after SetSpec),
// gracefully (Upstream.Restart):
//  1. new calls wait (they queue as for a start in progress);
//  2. calls in flight on the old run may finish, for up to drain
//     (DefaultDrain if zero); past that they fail with the exit error;
//  3. the old run is stopped with the stop sequence;
//  4. the new run starts and lists its tools (OnListChanged follows if
//     they differ), and the waiting calls go to it.
//
// A server that is not running is left alone: its next call starts it on
// the new spec. It reports whether the old run was stopped. If ctx ends
// (the daemon is stopping) before the new run starts, the server is left
// stopped and its next call starts it.
func (l *lifecycle) restart(ctx context.Context, drain time.Duration) (bool, error) {
	if drain <= 0 {
		drain = DefaultDrain
	}
	old, gate, err := l.takeOutOfService(ctx)
	if old == nil {
		return false, err
	}
	defer close(gate)
	l.drainAndStop(ctx, old, drain)

	l.mu.Lock()
	l.starting = nil
	l.failures, l.nextTry = 0, time.Time{} // a new spec gets a fresh start
	if l.stopped || ctx.Err() != nil {
		if !l.stopped {
			l.state = StateExited
			l.lastError = "restart interrupted; the next call starts it"
		}
		l.mu.Unlock()
		return true, fmt.Errorf("server %q: restart interrupted: the gateway is stopping", l.name)
	}
	l.mu.Unlock()

	if _, err := l.liveRun(l.opts.ctx); err != nil {
		return true, err // names the server; a shutdown that began meanwhile stopped the run
	}
	return true, nil
}

// takeOutOfService waits for a start in flight (it may be on the old
// spec), then takes the live run out of service: from then on new
// calls see a start in progress and wait on gate, which the caller closes
// once the new run is up; calls already counted in old.active finish on
// the old run. old is nil if the server is not running (or ctx ended, or
// the gateway is shutting down: then err says so).
func (l *lifecycle) takeOutOfService(ctx context.Context) (old *run, gate chan struct{}, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.cur == nil && l.starting != nil && !l.stopped {
		wait := l.starting
		l.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			l.mu.Lock()
			return nil, nil, fmt.Errorf("server %q: restart: %w", l.name, ctx.Err())
		}
		l.mu.Lock()
	}
	if l.stopped {
		return nil, nil, l.errShuttingDown()
	}
	if l.cur == nil {
		return nil, nil, nil
	}
	old, gate = l.cur, make(chan struct{})
	l.starting = gate
	l.cur = nil
	l.state = StateStarting
	return old, gate, nil
}

// drainAndStop lets the calls in flight on old finish, for up to drain
// (less if ctx or the supervisor ends first), stops old with the stop
// sequence, and returns once every call on it has returned.
func (l *lifecycle) drainAndStop(ctx context.Context, old *run, drain time.Duration) {
	log := l.opts.Logger.With("server", l.name, "pid", old.pid())
	log.Info("restarting server: its launch spec changed; letting calls in flight finish", "drain", drain)
	drained := make(chan struct{})
	go func() { old.active.Wait(); close(drained) }() // waited for below
	timer := time.NewTimer(drain)
	select {
	case <-drained:
	case <-timer.C:
		log.Warn("calls still in flight after the drain time; stopping the old run anyway", "inFlight", old.conn.InFlight())
	case <-ctx.Done():
	case <-l.opts.ctx.Done():
	}
	timer.Stop()
	old.stopReason.Store(ptr(fmt.Sprintf("stopped by the gateway to restart it on its new launch spec (catalog reload), after a %s drain", drain)))
	old.halt(l.opts.ctx, l.opts.Stop)
	<-old.done
	// The run is over and its pending calls have failed, so each caller
	// leaves the active group at once; the drain goroutine ends with the
	// last of them and is waited for here, never left behind.
	after := time.NewTimer(afterStopWait)
	defer after.Stop()
	select {
	case <-drained:
	case <-after.C:
		log.Warn("calls on the old run have not returned since it stopped; still waiting for them", "waited", afterStopWait)
		<-drained
	}
}

// Update is what Reload did to one server.
type Update struct {
	Server    string
	Changed   bool  // its launch spec changed
	Restarted bool  // it was running and runs again on the new spec
	Err       error // the restart failed; names the server
}

// Reload gives the servers named in specs their new launch spec, and
// restarts gracefully (see Restart) each running server whose spec changed,
// all in parallel. Servers whose spec is unchanged, or not named, are not
// touched. It returns one Update per named server, in config-key order.
// The caller rebuilds the aggregated tool list afterwards.
func (s *Supervisor) Reload(ctx context.Context, specs map[string]adapters.LaunchSpec, drain time.Duration) []Update {
	ups := s.Upstreams()
	updates := make([]Update, len(ups))
	named := make([]bool, len(ups))
	var wg sync.WaitGroup
	for i, u := range ups {
		spec, ok := specs[u.name]
		if !ok {
			continue
		}
		named[i] = true
		updates[i].Server = u.name
		s.opts.Log.AddSecrets(spec.Secrets...)
		if !u.SetSpec(spec) {
			continue
		}
		updates[i].Changed = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			restarted, err := u.Restart(ctx, drain)
			updates[i].Restarted = restarted && err == nil
			updates[i].Err = err
		}()
	}
	wg.Wait()
	var out []Update
	for i, up := range updates {
		if named[i] {
			out = append(out, up)
		}
	}
	return out
}
