package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Config is one run.
type Config struct {
	Gateway     string        // the mcp-gateway binary
	NodeModules string        // test/node_modules, with the pinned servers
	Dir         string        // a fresh directory for the run's files
	Seed        uint64        // the faults' and the mix's random source
	Calls       int           // calls to make (0: until Duration)
	Duration    time.Duration // the most the load may last (0: until Calls)
	Clients     int           // concurrent clients, half legacy, half modern
	Faults      bool          // inject faults (false: a steady load, the soak)
	Rate        float64       // calls per second over all clients (0: as fast as they go)
	SampleEvery time.Duration // sample the daemon's resources this often (0: only before and after)
	CallTimeout time.Duration // each call's deadline
	// SettleWithin is how long resources may take to be back to the
	// baseline after the load (0: 5 s, the bound, as make chaos
	// runs; TestChaosShort allows more on a machine that runs every
	// other package's tests at the same time).
	SettleWithin time.Duration
	Out          io.Writer // progress lines and the report
}

// runState is what the parts of one run share.
type runState struct {
	cfg    Config
	dir    string
	gw     *gateway
	web    *webServer
	admin  *client // the driver's own requests: DELETEs, bad bodies, /metrics
	calls  inflight
	start  time.Time
	issued atomic.Int64
	marker string // CHAOS_RUN=…, in the environment of everything the gateway starts

	mu       sync.Mutex
	outcomes []outcome
	seen     map[string]proc // every process seen under the daemon
	orphans  map[string]proc // processes of the run seen outside the daemon's tree
	samples  []sample
	baseFDs  map[string]int // the daemon's fds at the baseline, by kind
	keeper   proc           // the daemon's parent, when it is the gateway's own
	// upstreamPorts are the HTTP servers' ports (web's, webrun's).
	upstreamPorts []int
}

func (r *runState) logf(format string, args ...any) {
	fmt.Fprintf(r.cfg.Out, "%7.2fs  %s\n", time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}

// Run runs the gateway under load (and faults) as cfg says, checks it,
// writes the report to cfg.Out and returns it; the error lists every
// check that failed.
func Run(cfg Config) (*Report, error) {
	if cfg.Clients <= 0 {
		cfg.Clients = 16
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = 30 * time.Second
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	r := &runState{cfg: cfg, dir: cfg.Dir, start: time.Now(), seen: map[string]proc{}, orphans: map[string]proc{},
		marker: fmt.Sprintf("CHAOS_RUN=%d-%d", os.Getpid(), time.Now().UnixNano())}
	rep := &Report{Seed: cfg.Seed, Faults: map[string]int{}, Soak: !cfg.Faults}
	err := r.run(rep)
	rep.print(cfg.Out)
	return rep, err
}

func (r *runState) run(rep *Report) (err error) {
	nm := r.cfg.NodeModules
	data := filepath.Join(r.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return fmt.Errorf("make the data dir: %w", err)
	}
	if err := os.WriteFile(filepath.Join(data, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		return fmt.Errorf("write data: %w", err)
	}
	if err := r.writeCatalog(0, false); err != nil {
		return err
	}
	ports, err := freePorts(3) // the gateway's, web's, webrun's
	if err != nil {
		return err
	}
	r.upstreamPorts = ports[1:]
	everything := filepath.Join(nm, ".bin", "mcp-server-everything")
	r.web = &webServer{node: "node", script: everything, port: ports[1], logPath: filepath.Join(r.dir, "web.log")}
	if err := r.web.start(); err != nil {
		return err
	}
	defer r.web.stop()
	// everything runs under /bin/sh (no exec), so that it is a server with
	// a child of its own.
	config := fmt.Sprintf(`{"everything": {"runCmd": "node %s"}, "filesystem": {"paths": [%q]}, "memory": {}, "thinking": {},
	  "web": {"url": "http://127.0.0.1:%d/mcp"},
	  "webrun": {"url": "http://127.0.0.1:%d/mcp", "runCmd": "PORT=%d exec node %s streamableHttp"}}`,
		everything, data, ports[1], ports[2], ports[2], everything)
	r.logf("chaos: seed %d, %d clients, calls %d, duration %v, faults %v", r.cfg.Seed, r.cfg.Clients, r.cfg.Calls, r.cfg.Duration, r.cfg.Faults)
	if r.gw, err = launchGateway(r.cfg.Gateway, r.dir, config, ports[0], []string{r.marker}); err != nil {
		return err
	}
	r.admin = newClient(r.gw.url, r.gw.token)
	stopped := false
	defer func() {
		if !stopped {
			_ = r.gw.stop()
		}
	}()
	// The launcher leaves a keeper process above the daemon; it is the
	// gateway's too, and must be gone after the stop like the rest.
	if p, err := readProc(r.gw.pid); err == nil && hasEnv(p.ppid, r.marker) {
		if k, err := readProc(p.ppid); err == nil {
			r.keeper = k
			r.seen[k.key()] = k
		}
	}
	r.logf("gateway pid %d (under %d %s) on %s", r.gw.pid, r.keeper.pid, r.keeper.comm, r.gw.url)

	// Warm up: every kind of call once in each era, the two eras side by
	// side, so that what is made lazily exists before the baseline is
	// taken.
	var warm sync.WaitGroup
	for _, legacy := range []bool{true, false} {
		w := r.newWorker(-1, legacy)
		warm.Go(func() {
			defer w.end()
			for _, m := range mix(data) {
				_ = w.one(context.Background(), m.pick(w.rng, w), false)
			}
		})
	}
	warm.Wait()
	if rep.Before, err = r.settle(nil, 0); err != nil {
		return err
	}
	r.baseFDs = fdKinds(r.gw.pid)
	r.logf("baseline: %s", rep.Before)

	trackStop, trackDone := make(chan struct{}), make(chan struct{})
	go r.track(trackStop, trackDone)

	// The load, and the faults beside it.
	ctx := context.Background()
	if r.cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.cfg.Duration)
		defer cancel()
	}
	var lim *rate.Limiter
	if r.cfg.Rate > 0 {
		lim = rate.NewLimiter(rate.Limit(r.cfg.Rate), 1)
	}
	f := &faulter{rng: rand.New(rand.NewPCG(r.cfg.Seed, 1)), run: r, count: map[string]int{}, bodies: map[string]int{}}
	faultStop, faultDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(faultDone)
		if r.cfg.Faults {
			f.loop(faultStop)
		}
	}()
	loadStart := time.Now()
	var wg sync.WaitGroup
	for n := range r.cfg.Clients {
		w := r.newWorker(n, n%2 == 0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.end()
			w.loop(ctx, lim)
		}()
	}
	wg.Wait()
	rep.LoadTime = time.Since(loadStart)
	close(faultStop)
	<-faultDone
	close(trackStop)
	<-trackDone
	r.logf("load over after %v", rep.LoadTime.Round(time.Millisecond))

	// Whatever the faults left down is up again (the HTTP server is
	// restarted by its fault); the daemon's resources must come back.
	before := *rep.Before
	within := r.cfg.SettleWithin
	if within <= 0 {
		within = 5 * time.Second
	}
	if rep.After, err = r.settle(&before, within); err != nil {
		rep.Failures = append(rep.Failures, err.Error())
	}
	r.logf("after: %s", rep.After)
	if rep.Drained, err = r.drained(&before, 20*time.Second); err != nil {
		rep.Failures = append(rep.Failures, err.Error())
	}

	rep.Outcomes, rep.Faults, rep.Bodies = r.outcomes, f.count, f.bodies
	rep.Failures = append(rep.Failures, f.failures...)
	rep.Samples = r.samples
	for _, o := range r.outcomes {
		if failing(o.class) {
			rep.Failures = append(rep.Failures, fmt.Sprintf("call %s (%s, %s) after %v: %s: %s", o.kind, o.server, o.era, o.took.Round(time.Millisecond), o.class, o.detail))
		}
	}
	if h, err := r.health(); err == nil {
		rep.Health = h
	}

	// Stop, then: nothing the daemon started is left, and the log kept
	// every server's lines.
	stopped = true
	if err := r.gw.stop(); err != nil {
		rep.Failures = append(rep.Failures, err.Error())
	}
	rep.Seen = len(r.seen)
	// stop returns once the daemon is gone; its keeper exits just after
	// (it reaps what was below the daemon first): what is still alive
	// stopGrace later is left.
	stopAt := time.Now()
	left := func() []proc {
		var l []proc
		for _, p := range r.seen {
			if running(p) {
				l = append(l, p)
			}
		}
		for _, p := range marked(r.marker) {
			if _, dup := r.seen[p.key()]; !dup {
				l = append(l, p)
			}
		}
		return l
	}
	rep.AtStop = len(left())
	testwait.Until(stopGrace, func() bool { rep.Left = left(); return len(rep.Left) == 0 })
	rep.Gone = time.Since(stopAt)
	for _, p := range rep.Left {
		rep.Failures = append(rep.Failures, fmt.Sprintf("process %d (%s) outlived mcp-gateway stop by %v", p.pid, p.comm, stopGrace))
	}
	for _, p := range r.orphans {
		rep.Failures = append(rep.Failures, fmt.Sprintf("process %d (%s) of the run lived outside the daemon's tree for more than 5 s", p.pid, p.comm))
	}
	lines, err := logLines(r.dir)
	if err != nil {
		rep.Failures = append(rep.Failures, err.Error())
	}
	rep.Log = checkLog(lines)
	rep.Failures = append(rep.Failures, rep.Log.failures...)
	if len(rep.Failures) > 0 {
		return fmt.Errorf("%d checks failed; the first: %s", len(rep.Failures), rep.Failures[0])
	}
	return nil
}

// newWorker makes client n (-1: the warm-up's) of era legacy.
func (r *runState) newWorker(n int, legacy bool) *worker {
	return &worker{n: n, legacy: legacy, c: newClient(r.gw.url, r.gw.token),
		rng: rand.New(rand.NewPCG(r.cfg.Seed, uint64(n+2))), run: r}
}

// loop makes calls until the run's calls are made or ctx ends.
func (w *worker) loop(ctx context.Context, lim *rate.Limiter) {
	m := mix(filepath.Join(w.run.dir, "data"))
	total := 0
	for _, x := range m {
		total += x.weight
	}
	for ctx.Err() == nil {
		if lim != nil && lim.Wait(ctx) != nil {
			return
		}
		if n := w.run.issued.Add(1); w.run.cfg.Calls > 0 && n > int64(w.run.cfg.Calls) {
			return
		}
		k := w.rng.IntN(total)
		for _, x := range m {
			if k -= x.weight; k < 0 {
				w.run.record(w.one(ctx, x.pick(w.rng, w), true))
				break
			}
		}
	}
}

// one makes call o within the call deadline (not bounded by the run's
// end: a call the run's end interrupted would say nothing) and returns its
// outcome; inFlight registers it for the faults.
func (w *worker) one(_ context.Context, o op, inFlight bool) outcome {
	start := time.Now()
	out := outcome{kind: o.kind, server: o.server, era: w.era(), at: start.Sub(w.run.start)}
	ctx, cancel := context.WithTimeout(context.Background(), w.run.cfg.CallTimeout)
	defer cancel()
	if w.legacy && w.s == nil {
		s, err := w.c.initialize(ctx)
		if err != nil {
			out.kind, out.class, out.detail, out.took = "initialize", outBroken, err.Error(), time.Since(start)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				out.class = outDeadline
			}
			return out
		}
		w.s = s
	}
	l := &live{cancel: cancel, session: w.s}
	id := -1
	if inFlight {
		id = w.run.calls.add(l)
	}
	a, err := o.run(ctx, w)
	if inFlight {
		w.run.calls.remove(id)
	}
	out.took = time.Since(start)
	out.class, out.detail = classify(o.server, a, err, ctx, l)
	if w.legacy && (out.class == outDeleted || isSessionGone(a)) {
		w.s.end(context.Background())
		w.s = nil
	}
	return out
}

// end ends the worker's session and drops its connections.
func (w *worker) end() {
	if w.s != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		w.s.end(ctx)
		cancel()
		w.s = nil
	}
	w.c.close()
}

func (r *runState) record(o outcome) {
	r.mu.Lock()
	r.outcomes = append(r.outcomes, o)
	n := len(r.outcomes)
	r.mu.Unlock()
	if n%1000 == 0 {
		r.logf("%d calls", n)
	}
}

// stopGrace is how long after `mcp-gateway stop` returned a process of
// the run may still be alive: the keeper's exit after the daemon's.
const stopGrace = 2 * time.Second

// track records every process under the daemon, every 100 ms, until stop
// closes; once a second it also looks for the run's processes (by the
// marker in their environment) that are outside the daemon's tree, and
// keeps those seen there for more than 5 s: orphans. It also samples the
// daemon's resources each SampleEvery.
func (r *runState) track(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	outside := map[string]time.Time{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	lastScan, lastSample := time.Now(), time.Now()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		in := map[string]bool{}
		r.mu.Lock()
		for _, p := range descendants(r.gw.pid) {
			r.seen[p.key()] = p
			in[p.key()] = true
		}
		r.mu.Unlock()
		if time.Since(lastScan) >= time.Second {
			lastScan = time.Now()
			now := map[string]bool{}
			for _, p := range marked(r.marker) {
				if p.pid == r.gw.pid || p.key() == r.keeper.key() || in[p.key()] {
					continue
				}
				now[p.key()] = true
				if first, ok := outside[p.key()]; !ok {
					outside[p.key()] = time.Now()
				} else if time.Since(first) > 5*time.Second && running(p) {
					r.mu.Lock()
					r.orphans[p.key()] = p
					r.mu.Unlock()
				}
			}
			for k := range outside {
				if !now[k] {
					delete(outside, k)
				}
			}
		}
		if r.cfg.SampleEvery > 0 && time.Since(lastSample) >= r.cfg.SampleEvery {
			lastSample = time.Now()
			if s, err := r.sample(); err == nil {
				r.mu.Lock()
				r.samples = append(r.samples, s)
				r.mu.Unlock()
				r.logf("sample: %s", &s)
			}
		}
	}
}

// sample is the daemon's resources at one moment.
type sample struct {
	At         time.Duration // since the run's start
	Goroutines int           // go_goroutines of /metrics
	MetricFDs  int           // process_open_fds of /metrics
	FDs        int           // entries of /proc/<pid>/fd
	RssAnonKiB int           // /proc/<pid>/status
	PoolFDs    int           // of FDs, connections established to the HTTP servers: the idle pool, and GET streams
	CloseWait  int           // of FDs, sockets the peer has closed and the daemon not (CLOSE_WAIT)
	settledIn  time.Duration // how long after the load it was back (settle)
}

func (s *sample) String() string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("goroutines %d, fds %d (%d to HTTP servers, %d CLOSE_WAIT), RssAnon %.1f MiB",
		s.Goroutines, s.FDs, s.PoolFDs, s.CloseWait, float64(s.RssAnonKiB)/1024)
}

// sample reads the daemon's goroutines from /metrics and its fds and
// RssAnon from /proc. The /metrics connection is the admin client's own
// and kept alive, so it is one fd in every sample.
func (r *runState) sample() (sample, error) {
	s := sample{At: time.Since(r.start)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(r.gw.url, "/mcp")+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+r.gw.token)
	resp, err := r.admin.http.Do(req)
	if err != nil {
		return s, fmt.Errorf("read /metrics: %w", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return s, fmt.Errorf("read /metrics: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		v, _ := strconv.ParseFloat(strings.TrimSpace(value), 64)
		switch name {
		case "go_goroutines":
			s.Goroutines = int(v)
		case "process_open_fds":
			s.MetricFDs = int(v)
		}
	}
	if s.FDs, err = fdCount(r.gw.pid); err != nil {
		return s, err
	}
	if s.RssAnonKiB, err = rssAnonKiB(r.gw.pid); err != nil {
		return s, err
	}
	for k, n := range fdKinds(r.gw.pid) {
		switch {
		case strings.HasSuffix(k, " CLOSE_WAIT"):
			s.CloseWait += n
		case strings.HasSuffix(k, " ESTABLISHED"):
			for _, p := range r.upstreamPorts {
				if strings.Contains(k, fmt.Sprintf("->:%d ", p)) {
					s.PoolFDs += n
				}
			}
		}
	}
	return s, nil
}

// Tolerances of "back to the baseline": a few goroutines and fds come and
// go with timers and the HTTP server's idle connections; the Go runtime
// gives freed heap back to the kernel gradually, not at once.
const (
	slackGoroutines = 5
	slackFDs        = 3
	slackRssKiB     = 16 << 10
)

// settle waits, within bound, for the daemon's resources to be back to
// base (within the slack), and returns the last sample; with base nil it
// takes a baseline: the lowest of a few samples a second apart.
func (r *runState) settle(base *sample, bound time.Duration) (*sample, error) {
	if base == nil {
		var best *sample
		for range 3 {
			s, err := r.sample()
			if err != nil {
				return nil, err
			}
			if best == nil || s.Goroutines < best.Goroutines {
				best = &s
			}
			time.Sleep(time.Second) // samples spread over time, not a wait for a condition
		}
		return best, nil
	}
	start := time.Now()
	for {
		s, err := r.sample()
		if err != nil {
			return nil, err
		}
		// The idle connections to the HTTP servers are not counted: the
		// servers close them after their keep-alive timeout (Node's is
		// 5 s), and the gateway then (drained checks that).
		if s.Goroutines <= base.Goroutines+slackGoroutines && s.FDs-s.PoolFDs <= base.FDs-base.PoolFDs+slackFDs &&
			s.CloseWait == 0 && s.RssAnonKiB <= base.RssAnonKiB+slackRssKiB {
			s.settledIn = time.Since(start)
			return &s, nil
		}
		if time.Since(start) > bound {
			return &s, fmt.Errorf("resources not back to the baseline within %v: %s, baseline %s; fds now %v, at the baseline %v",
				bound, &s, base, fdKinds(r.gw.pid), r.baseFDs)
		}
		time.Sleep(50 * time.Millisecond) // polling the condition
	}
}

// drained waits, within bound, for the daemon's connections to the HTTP
// servers to be back to base's (their idle pool closed: by the servers
// after their keep-alive timeout, then by the gateway), none of them in
// CLOSE_WAIT, and says how long that took after the load.
func (r *runState) drained(base *sample, bound time.Duration) (time.Duration, error) {
	start := time.Now()
	for {
		s, err := r.sample()
		if err != nil {
			return 0, err
		}
		if s.PoolFDs <= base.PoolFDs && s.CloseWait == 0 {
			return time.Since(start), nil
		}
		if time.Since(start) > bound {
			return 0, fmt.Errorf("connections to the HTTP servers not closed within %v of the load: %s, baseline %s; fds %v",
				bound, &s, base, fdKinds(r.gw.pid))
		}
		time.Sleep(100 * time.Millisecond) // polling the condition
	}
}

// health reads /health.
func (r *runState) health() (string, error) {
	resp, err := http.Get(strings.TrimSuffix(r.gw.url, "/mcp") + "/health")
	if err != nil {
		return "", fmt.Errorf("read /health: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
