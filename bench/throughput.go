package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// throughput is figure 2: Concurrency clients calling as fast as they can,
// directly (all in flight on one pipe, as the gateway multiplexes them),
// and through the floor proxy and the gateway: legacy with one shared
// session, then legacy with one session each and modern (no session).
// The floor proxy and every gateway side run at once, and their windows
// take turns (rates), so that a drift in the machine's load falls on each
// alike: a ratio to the floor's rate is of windows moments apart, as the
// latency figure's blocks are (issue 33).
func (r *runner) throughput(ctx context.Context) error {
	if err := r.throughputDirect(ctx); err != nil {
		return err
	}
	return r.throughputProxies(ctx)
}

// throughputDirect is the direct side of figure 2: every worker's calls
// on one StdioClient. Its rate stands beside each gateway row.
func (r *runner) throughputDirect(ctx context.Context) error {
	c, err := startDirect(ctx, []string{r.cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer c.Close()
	direct, cpu, err := r.rate(ctx, r.cfg.Concurrency, echoCall(c.Call), c.PID())
	if err != nil {
		return err
	}
	r.add("tput.1session", "direct", direct)
	r.add("tput.sessions", "direct", direct)
	r.add("tput.modern", "direct", direct)
	r.add("cpu.tput.client", "direct", cpu[0])
	r.add("cpu.tput.upstream", "direct", cpu[1])
	return nil
}

// throughputProxies is the floor's and the gateway's sides of figure 2,
// all at once: one shared session each first (the floor's one session
// beside each gateway's), then one session per client and modern callers
// (the floor: its one session, and the same modern requests), all taking
// turns.
func (r *runner) throughputProxies(ctx context.Context) error {
	fl, err := r.startFloor([]string{r.cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer fl.close()
	gws, err := r.startGateways(ctx, r.echoServer())
	if err != nil {
		return err
	}
	defer closeAll(gws)
	s, err := fl.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	m, err := fl.open(ctx, eraModern)
	if err != nil {
		return err
	}
	floorPIDs := []int{fl.proc.PID()}
	floorLegacy := rateCall{side: "floor", call: echoCall(s.Call), pids: floorPIDs}
	ones := make([]*Session, len(gws))
	shared := []rateCall{floorLegacy}
	for i, gw := range gws {
		if ones[i], err = gw.open(ctx, eraLegacy); err != nil {
			return err
		}
		shared = append(shared, rateCall{side: gw.side, call: echoCall(ones[i].Call)})
	}
	rate, _, windows, err := r.rates(ctx, r.cfg.Concurrency, shared)
	if err != nil {
		return err
	}
	r.add("tput.1session", "floor", rate[0])
	for i, gw := range gws {
		ones[i].Close()
		r.add("tput.1session", gw.side, rate[1+i])
		r.sample("tput.1session", gw.side, windows[1+i]...)
	}
	calls := []rateCall{floorLegacy, {side: "floor", call: echoCall(m.Call), pids: floorPIDs}}
	for _, gw := range gws {
		each, err := r.sessionCalls(ctx, gw)
		if err != nil {
			return err
		}
		calls = append(calls, each...)
	}
	rate, cpus, windows, err := r.rates(ctx, r.cfg.Concurrency, calls)
	if err != nil {
		return err
	}
	r.add("tput.sessions", "floor", rate[0])
	r.add("cpu.tput.client", "floor", cpus[0][0])
	r.add("cpu.tput.daemon", "floor", cpus[0][1])
	r.add("tput.modern", "floor", rate[1])
	r.add("cpu.tput.modern.daemon", "floor", cpus[1][1])
	for i, gw := range gws {
		each, modern := 2+2*i, 3+2*i
		r.sample("tput.sessions", gw.side, windows[each]...)
		r.sample("tput.modern", gw.side, windows[modern]...)
		r.add("tput.sessions", gw.side, rate[each])
		r.add("cpu.tput.client", gw.side, cpus[each][0])
		r.add("cpu.tput.daemon", gw.side, cpus[each][1])
		r.add("cpu.tput.upstream", gw.side, cpus[each][2])
		r.add("tput.modern", gw.side, rate[modern])
		r.add("cpu.tput.modern.daemon", gw.side, cpus[modern][1])
	}
	return errors.Join(closeAll(gws), fl.close())
}

// sessionCalls are the calls of figure 2 with a session each on gw, and
// modern (no sessions; each client sends its own requests, _meta and
// headers on every one), with the daemon's and the upstream's pids.
func (r *runner) sessionCalls(ctx context.Context, gw *endpoint[*Gateway]) ([]rateCall, error) {
	sessions := make([]*Session, r.cfg.Concurrency)
	for i := range sessions {
		var err error
		if sessions[i], err = gw.open(ctx, eraLegacy); err != nil {
			return nil, err
		}
	}
	m, err := gw.open(ctx, eraModern)
	if err != nil {
		return nil, err
	}
	pids := []int{gw.proc.PID, gw.proc.upstreamPID(0)}
	return []rateCall{
		{gw.side, func(ctx context.Context, w int) error { return echoed(sessions[w].Call(ctx, "tools/call", echoParams)) }, pids},
		{gw.side, echoCall(m.Call), pids},
	}, nil
}

// workerCall is one throughput worker's call.
type workerCall func(ctx context.Context, worker int) error

// echoCall is a worker's echo call with call, whichever the worker.
func echoCall(call callFunc) workerCall {
	return func(ctx context.Context, _ int) error { return echoed(call(ctx, "tools/call", echoParams)) }
}

// rateCall is one of the calls rates compares: the side it calls, the
// call, and the processes whose CPU per call it reports beside this
// one's.
type rateCall struct {
	side string
	call workerCall
	pids []int
}

// rate runs call from n workers for the throughput window (after a warm-up
// of a fifth of it) and returns calls per second and the CPU per call of
// this process and of the pids.
func (r *runner) rate(ctx context.Context, n int, call workerCall, pids ...int) (float64, []float64, error) {
	per, cpu, _, err := r.rates(ctx, n, []rateCall{{call: call, pids: pids}})
	if err != nil {
		return 0, nil, err
	}
	return per[0], cpu[0], nil
}

// rateRounds is how many windows rates splits the throughput window into
// for each of its calls, alternating their order round by round, so that
// a drift in the machine's load falls on each alike; abRounds, when the
// calls are of more than one side (the floor proxy and the gateway, and
// the baseline of an A/B run, whose verdicts pair their windows round by
// round): shorter windows, closer in time, share more of the machine's
// load.
const rateRounds, abRounds = 4, 12

// rates is rate for several calls compared in one run: each warms up,
// then they take turns, rateRounds (or abRounds) windows each that add up
// to the throughput window. It returns each call's calls per second, its
// CPU per call of this process and of its pids, and its calls per second
// in each of its windows (the samples of the A/B verdicts: window i of
// each call is in the same round).
func (r *runner) rates(ctx context.Context, n int, calls []rateCall) ([]float64, [][]float64, [][]float64, error) {
	rounds := 1
	if len(calls) > 1 {
		rounds = rateRounds
	}
	if slices.ContainsFunc(calls, func(c rateCall) bool { return c.side != calls[0].side }) {
		rounds = abRounds
	}
	counts := make([]int64, len(calls))
	elapsed := make([]time.Duration, len(calls))
	cpu := make([][]time.Duration, len(calls))
	windows := make([][]float64, len(calls))
	for k, c := range calls {
		if _, err := rateWindow(ctx, n, c.call, r.cfg.ThroughputDuration/5); err != nil {
			return nil, nil, nil, err
		}
		cpu[k] = make([]time.Duration, 1+len(c.pids))
	}
	for round := range rounds {
		for j := range calls {
			k := (round + j) % len(calls)
			pids := calls[k].pids
			cpu0 := append([]time.Duration{SelfCPU()}, procCPUs(pids)...)
			start := time.Now()
			count, err := rateWindow(ctx, n, calls[k].call, r.cfg.ThroughputDuration/time.Duration(rounds))
			if err != nil {
				return nil, nil, nil, err
			}
			d := time.Since(start)
			elapsed[k] += d
			counts[k] += count
			windows[k] = append(windows[k], float64(count)/d.Seconds())
			cpu1 := append([]time.Duration{SelfCPU()}, procCPUs(pids)...)
			for i := range cpu0 {
				cpu[k][i] += cpu1[i] - cpu0[i]
			}
		}
	}
	rate := make([]float64, len(calls))
	per := make([][]float64, len(calls))
	for k := range calls {
		rate[k] = float64(counts[k]) / elapsed[k].Seconds()
		per[k] = make([]float64, len(cpu[k]))
		for i, d := range cpu[k] {
			per[k][i] = perCall(d, int(counts[k]))
		}
	}
	return rate, per, windows, nil
}

// rateWindow runs call from n workers, each calling again as soon as its
// call returns, for d; it returns how many calls completed, and the first
// error (a worker stops at its first).
func rateWindow(ctx context.Context, n int, call workerCall, d time.Duration) (int64, error) {
	var count atomic.Int64
	var firstErr error
	var once sync.Once
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := call(ctx, w); err != nil {
					once.Do(func() { firstErr = err })
					return
				}
				count.Add(1)
			}
		}()
	}
	wg.Wait()
	return count.Load(), firstErr
}

// throughputDefs are the rows of figure 2.
func (cfg Config) throughputDefs() []figDef {
	n := cfg.Concurrency
	tputFloor := target{on: "floorRatio", max: false, limit: 0.85, text: "≥ 0.85× the floor proxy's"}
	return []figDef{
		{"tput.1session", fmt.Sprintf("Throughput, %d clients, legacy, 1 session", n), "calls/s", []target{tputFloor},
			fmt.Sprintf("direct: %d calls in flight on one stdio pipe", n)},
		{"tput.sessions", fmt.Sprintf("Throughput, %d clients, legacy, %d sessions", n, n), "calls/s", []target{tputFloor},
			"direct: the same measurement as above; floor: one session (it has no others)"},
		{"tput.modern", fmt.Sprintf("Throughput, %d clients, modern (no session)", n), "calls/s", []target{tputFloor},
			"direct: the same measurement as above; floor: the same modern requests"},
		{"cpu.tput.client", fmt.Sprintf("CPU per call at %d clients: load generator, legacy", n), "µs", nil, fmt.Sprintf("gateway side: %d sessions", n)},
		{"cpu.tput.daemon", fmt.Sprintf("CPU per call at %d clients: gateway daemon (floor: the floor proxy), legacy", n), "µs", nil, ""},
		{"cpu.tput.modern.daemon", fmt.Sprintf("CPU per call at %d clients: gateway daemon (floor: the floor proxy), modern", n), "µs", nil, ""},
		{"cpu.tput.upstream", fmt.Sprintf("CPU per call at %d clients: Go echo", n), "µs", nil, ""},
	}
}
