package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// throughput is figure 2: Concurrency clients calling as fast as they can,
// directly (all in flight on one pipe, as the gateway multiplexes them),
// and through the floor proxy and the gateway: legacy with one shared
// session, then legacy with one session each and modern (no session)
// taking turns (rates), so that the two eras are compared in one run.
func (r *runner) throughput(ctx context.Context) error {
	for _, side := range []func(context.Context) error{r.throughputDirect, r.throughputFloor, r.throughputGateway} {
		if err := side(ctx); err != nil {
			return err
		}
	}
	return nil
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

// throughputFloor is the floor side of figure 2: its one session, and
// modern requests, taking turns.
func (r *runner) throughputFloor(ctx context.Context) error {
	fl, err := r.startFloor([]string{r.cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer fl.close()
	s, err := fl.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	m, err := fl.open(ctx, eraModern)
	if err != nil {
		return err
	}
	floor, cpus, err := r.rates(ctx, r.cfg.Concurrency, []workerCall{echoCall(s.Call), echoCall(m.Call)}, fl.proc.PID())
	if err != nil {
		return err
	}
	r.add("tput.1session", "floor", floor[0])
	r.add("tput.sessions", "floor", floor[0])
	r.add("cpu.tput.client", "floor", cpus[0][0])
	r.add("cpu.tput.daemon", "floor", cpus[0][1])
	r.add("tput.modern", "floor", floor[1])
	r.add("cpu.tput.modern.daemon", "floor", cpus[1][1])
	return fl.close()
}

// throughputGateway is the gateway side of figure 2: one shared session
// first, then one session each and modern callers taking turns.
func (r *runner) throughputGateway(ctx context.Context) error {
	cfg := r.cfg
	gw, err := r.startGateway(ctx, r.echoServer())
	if err != nil {
		return err
	}
	defer gw.close()
	one, err := gw.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	upPID := gw.proc.upstreamPID(0)
	shared, _, err := r.rate(ctx, cfg.Concurrency, echoCall(one.Call))
	if err != nil {
		return err
	}
	one.Close()
	r.add("tput.1session", "gateway", shared)
	sessions := make([]*Session, cfg.Concurrency)
	for i := range sessions {
		if sessions[i], err = gw.open(ctx, eraLegacy); err != nil {
			return err
		}
	}
	// One session each, and modern (no sessions; each client sends its
	// own requests, _meta and headers on every one), taking turns.
	m, err := gw.open(ctx, eraModern)
	if err != nil {
		return err
	}
	each, cpus, err := r.rates(ctx, cfg.Concurrency, []workerCall{
		func(ctx context.Context, w int) error { return echoed(sessions[w].Call(ctx, "tools/call", echoParams)) },
		echoCall(m.Call),
	}, gw.proc.PID, upPID)
	if err != nil {
		return err
	}
	r.add("tput.sessions", "gateway", each[0])
	r.add("cpu.tput.client", "gateway", cpus[0][0])
	r.add("cpu.tput.daemon", "gateway", cpus[0][1])
	r.add("cpu.tput.upstream", "gateway", cpus[0][2])
	r.add("tput.modern", "gateway", each[1])
	r.add("cpu.tput.modern.daemon", "gateway", cpus[1][1])
	return gw.close()
}

// workerCall is one throughput worker's call.
type workerCall func(ctx context.Context, worker int) error

// echoCall is a worker's echo call with call, whichever the worker.
func echoCall(call callFunc) workerCall {
	return func(ctx context.Context, _ int) error { return echoed(call(ctx, "tools/call", echoParams)) }
}

// rate runs call from n workers for the throughput window (after a warm-up
// of a fifth of it) and returns calls per second and the CPU per call of
// this process and of the pids.
func (r *runner) rate(ctx context.Context, n int, call workerCall, pids ...int) (float64, []float64, error) {
	per, cpu, err := r.rates(ctx, n, []workerCall{call}, pids...)
	if err != nil {
		return 0, nil, err
	}
	return per[0], cpu[0], nil
}

// rateRounds is how many windows rates splits the throughput window into
// for each of its calls, alternating their order round by round, so that
// a drift in the machine's load falls on each alike.
const rateRounds = 4

// rates is rate for several calls compared in one run: each warms up,
// then they take turns, rateRounds windows each that add up to the
// throughput window. It returns each call's calls per second and CPU per
// call of this process and of the pids.
func (r *runner) rates(ctx context.Context, n int, calls []workerCall, pids ...int) ([]float64, [][]float64, error) {
	rounds := 1
	if len(calls) > 1 {
		rounds = rateRounds
	}
	counts := make([]int64, len(calls))
	elapsed := make([]time.Duration, len(calls))
	cpu := make([][]time.Duration, len(calls))
	for k, call := range calls {
		if _, err := rateWindow(ctx, n, call, r.cfg.ThroughputDuration/5); err != nil {
			return nil, nil, err
		}
		cpu[k] = make([]time.Duration, 1+len(pids))
	}
	for round := range rounds {
		for j := range calls {
			k := (round + j) % len(calls)
			cpu0 := append([]time.Duration{SelfCPU()}, procCPUs(pids)...)
			start := time.Now()
			count, err := rateWindow(ctx, n, calls[k], r.cfg.ThroughputDuration/time.Duration(rounds))
			if err != nil {
				return nil, nil, err
			}
			elapsed[k] += time.Since(start)
			counts[k] += count
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
	return rate, per, nil
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
