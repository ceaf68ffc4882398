// Package bench measures what the gateway adds to a direct stdio call to
// the same server (issue 8): per-call latency, throughput, ready time,
// memory and large messages. Every figure is measured in the same run
// directly over stdio (StdioClient) and through the real gateway binary
// over HTTP (HTTPClient), repeated, and reported as medians with min–max,
// with the gateway/direct ratio and the gateway−direct difference.
//
// `make bench` runs it at full size (bench/cmd/bench); `go test ./bench/`
// runs it at a small size so that it keeps working.
package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Config sizes a run.
type Config struct {
	Reps   int // repetitions of every measurement
	Calls  int // timed sequential calls
	Warmup int // untimed calls before them

	Concurrency        int           // concurrent clients for throughput
	ThroughputDuration time.Duration // timed window per throughput measurement

	ReadyServers []int         // server counts for ready time
	StartDelay   time.Duration // each fake server's start delay

	MemServers, MemSessions, MemCalls int

	BigBytes, BigCalls int // size of the large result/argument; timed calls each

	SDKCalls int // sequential calls with go-sdk's client (client-cost comparison); 0 skips

	HandlerCalls int // timed calls of each era for the handler-CPU figure (handlercpu.go)

	// Everything is the argv of server-everything; nil skips its figures.
	Everything []string

	// Only, if set, runs only these phases: seq, handler, everything,
	// tput, ready, mem, big.
	Only []string
	// GatewayEnv is added to the gateway's environment (experiments such
	// as GOGC=200; the daemon and its servers inherit it).
	GatewayEnv []string

	Bin      Binaries
	TempDir  string
	Progress io.Writer
}

// FullConfig is the size the issue asks for.
func FullConfig() Config {
	return Config{
		Reps: 3, Calls: 2000, Warmup: 300,
		Concurrency: 16, ThroughputDuration: 3 * time.Second,
		ReadyServers: []int{1, 7}, StartDelay: 300 * time.Millisecond,
		MemServers: 3, MemSessions: 100, MemCalls: 10,
		BigBytes: 8 << 20, BigCalls: 5,
		SDKCalls: 1000, HandlerCalls: 10000,
	}
}

// ShortConfig is the size `go test` runs: every code path, small counts.
func ShortConfig() Config {
	return Config{
		Reps: 1, Calls: 50, Warmup: 10,
		Concurrency: 4, ThroughputDuration: 200 * time.Millisecond,
		ReadyServers: []int{1, 3}, StartDelay: 50 * time.Millisecond,
		MemServers: 3, MemSessions: 5, MemCalls: 2,
		BigBytes: 256 << 10, BigCalls: 1,
		SDKCalls: 20, HandlerCalls: 200,
	}
}

// runner collects per-repetition values: id → side → one value a rep.
type runner struct {
	cfg  Config
	mu   sync.Mutex
	vals map[string]map[string][]float64
}

func (r *runner) add(id, side string, v float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.vals[id] == nil {
		r.vals[id] = map[string][]float64{}
	}
	r.vals[id][side] = append(r.vals[id][side], v)
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, "bench: "+format+"\n", args...)
	}
}

// Run measures every figure cfg.Reps times. Repetitions are the outer
// loop, so that each figure's repetitions are spread over the run and a
// burst of noise on the shared machine hits one of them, not all.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	r := &runner{cfg: cfg, vals: map[string]map[string][]float64{}}
	start := time.Now()
	phases := []struct {
		key, name string
		fn        func(context.Context) error
	}{
		{"seq", "sequential calls, Go echo", func(ctx context.Context) error {
			return r.sequential(ctx, "echo", []string{cfg.Bin.Echo}, true)
		}},
		{"handler", "gateway CPU per call, in-process", r.handlerCPU},
		{"everything", "sequential calls, server-everything", func(ctx context.Context) error {
			if cfg.Everything == nil {
				return nil
			}
			return r.sequential(ctx, "everything", cfg.Everything, false)
		}},
		{"tput", "throughput", r.throughput},
		{"ready", "ready time", r.ready},
		{"mem", "memory", r.memory},
		{"big", "large messages", r.big},
	}
	for rep := range cfg.Reps {
		for _, ph := range phases {
			if len(cfg.Only) > 0 && !slices.Contains(cfg.Only, ph.key) {
				continue
			}
			r.logf("repetition %d/%d: %s", rep+1, cfg.Reps, ph.name)
			if err := ph.fn(ctx); err != nil {
				return nil, fmt.Errorf("%s (repetition %d): %w", ph.name, rep+1, err)
			}
		}
	}
	return r.results(time.Since(start)), nil
}

var echoParams = []byte(`{"name":"echo","arguments":{"message":"hello"}}`)

type callFunc func(ctx context.Context, method string, params []byte) ([]byte, error)

// sequentialCalls makes n calls one after another and returns their
// latencies in µs.
func sequentialCalls(ctx context.Context, call callFunc, params []byte, n int) ([]float64, error) {
	lat := make([]float64, n)
	for i := range n {
		t0 := time.Now()
		res, err := call(ctx, "tools/call", params)
		lat[i] = micros(time.Since(t0))
		if err != nil {
			return nil, err
		}
		if !bytes.Contains(res, []byte("hello")) {
			return nil, fmt.Errorf("unexpected result %s", truncate(res, 200))
		}
	}
	return lat, nil
}

// interleaved makes n timed sequential calls with each of calls, in
// blocks that alternate between them (the first caller rotates), so that
// noise on the shared machine hits every caller alike. It returns each
// caller's latencies (µs) and its CPU per call: this process first, then
// each of pids.
func interleaved(ctx context.Context, calls []callFunc, n int, pids ...int) ([][]float64, [][]float64, error) {
	const blocks = 50
	lat := make([][]float64, len(calls))
	cpu := make([][]time.Duration, len(calls))
	for k := range calls {
		lat[k] = make([]float64, 0, n)
		cpu[k] = make([]time.Duration, 1+len(pids))
	}
	for b := range blocks {
		size := n / blocks
		if b == blocks-1 {
			size = n - size*(blocks-1)
		}
		for j := range calls {
			k := (b + j) % len(calls)
			self0, p0 := SelfCPU(), procCPUs(pids)
			l, err := sequentialCalls(ctx, calls[k], echoParams, size)
			if err != nil {
				return nil, nil, err
			}
			self1, p1 := SelfCPU(), procCPUs(pids)
			lat[k] = append(lat[k], l...)
			cpu[k][0] += self1 - self0
			for i := range pids {
				cpu[k][1+i] += p1[i] - p0[i]
			}
		}
	}
	per := make([][]float64, len(calls))
	for k := range calls {
		per[k] = make([]float64, len(cpu[k]))
		for i, d := range cpu[k] {
			per[k][i] = perCall(d, n)
		}
	}
	return lat, per, nil
}

// sequential is figure 1: Calls sequential tools/call after Warmup, direct
// then through a gateway with that one server. With detailed (the Go
// echo), it also measures the floor proxy, modern (MCP 2026-07-28) calls
// beside legacy ones through the floor and the gateway (interleaved, same
// process), splits the CPU per call between client, daemon and upstream,
// and measures the TCPSession and go-sdk clients.
func (r *runner) sequential(ctx context.Context, name string, argv []string, detailed bool) error {
	cfg := r.cfg
	// Direct.
	c, err := StartStdio(argv)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Initialize(ctx); err != nil {
		return err
	}
	if _, err := sequentialCalls(ctx, c.Call, echoParams, cfg.Warmup); err != nil {
		return err
	}
	self0, up0 := SelfCPU(), ProcCPU(c.PID())
	lat, err := sequentialCalls(ctx, c.Call, echoParams, cfg.Calls)
	if err != nil {
		return err
	}
	self1, up1 := SelfCPU(), ProcCPU(c.PID())
	c.Close()
	r.add("seq."+name+".p50", "direct", percentile(lat, 50))
	r.add("seq."+name+".p99", "direct", percentile(lat, 99))
	if !detailed {
		return r.sequentialGateway(ctx, name, argv, false)
	}
	// The direct call is the same in both eras: the gateway speaks legacy
	// JSON-RPC to a legacy server either way.
	for _, id := range []string{"seq." + name + ".modern.p50", "seq." + name + ".tcpclient.p50"} {
		r.add(id, "direct", percentile(lat, 50))
	}
	r.add("seq."+name+".modern.p99", "direct", percentile(lat, 99))
	r.add("cpu.seq.client", "direct", perCall(self1-self0, cfg.Calls))
	r.add("cpu.seq.upstream", "direct", perCall(up1-up0, cfg.Calls))
	if cfg.SDKCalls > 0 {
		if err := r.sdkFigures(ctx, "direct", func() (*mcp.ClientSession, error) { return sdkStdio(ctx, argv) }, false); err != nil {
			return err
		}
		// go-sdk's direct call is legacy stdio in both rows.
		v := r.vals["client.sdk.p50"]["direct"]
		r.add("client.sdk.modern.p50", "direct", v[len(v)-1])
	}
	if err := r.sequentialFloor(ctx, name, argv); err != nil {
		return err
	}
	return r.sequentialGateway(ctx, name, argv, true)
}

// sequentialGateway is the gateway side of figure 1.
func (r *runner) sequentialGateway(ctx context.Context, name string, argv []string, detailed bool) error {
	cfg := r.cfg
	g, err := r.launch(ctx, config(map[string]string{name: runCmd(argv)}), cfg.TempDir)
	if err != nil {
		return err
	}
	defer g.Stop()
	hc := NewHTTPClient(g.URL, g.Token)
	defer hc.CloseIdle()
	s, err := hc.NewSession(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if _, err := sequentialCalls(ctx, s.Call, echoParams, cfg.Warmup); err != nil {
		return err
	}
	if !detailed {
		lat, err := sequentialCalls(ctx, s.Call, echoParams, cfg.Calls)
		if err != nil {
			return err
		}
		r.add("seq."+name+".p50", "gateway", percentile(lat, 50))
		r.add("seq."+name+".p99", "gateway", percentile(lat, 99))
		s.Close()
		return g.Stop()
	}
	m := hc.Modern()
	if _, err := sequentialCalls(ctx, m.Call, echoParams, cfg.Warmup); err != nil {
		return err
	}
	lat, cpu, err := interleaved(ctx, []callFunc{s.Call, m.Call}, cfg.Calls, g.PID, g.upstreamPID(0))
	if err != nil {
		return err
	}
	for k, era := range []string{"", ".modern"} {
		r.add("seq."+name+era+".p50", "gateway", percentile(lat[k], 50))
		r.add("seq."+name+era+".p99", "gateway", percentile(lat[k], 99))
		r.add("cpu.seq"+era+".client", "gateway", cpu[k][0])
		r.add("cpu.seq"+era+".daemon", "gateway", cpu[k][1])
		r.add("cpu.seq"+era+".upstream", "gateway", cpu[k][2])
	}
	p50, err := tcpClientP50(ctx, g.URL, g.Token, cfg)
	if err != nil {
		return err
	}
	r.add("seq."+name+".tcpclient.p50", "gateway", p50)
	if cfg.SDKCalls > 0 {
		for _, v := range []string{LegacyVersion, ModernVersion} {
			connect := func() (*mcp.ClientSession, error) { return sdkHTTP(ctx, g.URL, g.Token, v) }
			if err := r.sdkFigures(ctx, "gateway", connect, v == ModernVersion); err != nil {
				return err
			}
		}
	}
	s.Close()
	return g.Stop()
}

// sequentialFloor measures the sequential calls through the floor proxy,
// legacy and modern interleaved as through the gateway (the floor forwards
// either without looking at _meta or the headers: what the larger modern
// request costs HTTP itself), and go-sdk's legacy client through it.
func (r *runner) sequentialFloor(ctx context.Context, name string, argv []string) error {
	f, err := StartFloor(r.cfg.Bin.Floor, argv)
	if err != nil {
		return err
	}
	defer f.Stop()
	hc := NewHTTPClient(f.URL, "")
	defer hc.CloseIdle()
	s, err := hc.NewSession(ctx)
	if err != nil {
		return err
	}
	m := hc.Modern()
	for _, call := range []callFunc{s.Call, m.Call} {
		if _, err := sequentialCalls(ctx, call, echoParams, r.cfg.Warmup); err != nil {
			return err
		}
	}
	lat, cpu, err := interleaved(ctx, []callFunc{s.Call, m.Call}, r.cfg.Calls, f.PID())
	if err != nil {
		return err
	}
	for k, era := range []string{"", ".modern"} {
		r.add("seq."+name+era+".p50", "floor", percentile(lat[k], 50))
		r.add("seq."+name+era+".p99", "floor", percentile(lat[k], 99))
		r.add("cpu.seq"+era+".client", "floor", cpu[k][0])
		r.add("cpu.seq"+era+".daemon", "floor", cpu[k][1])
	}
	p50, err := tcpClientP50(ctx, f.URL, "", r.cfg)
	if err != nil {
		return err
	}
	r.add("seq."+name+".tcpclient.p50", "floor", p50)
	if r.cfg.SDKCalls > 0 {
		connect := func() (*mcp.ClientSession, error) { return sdkHTTP(ctx, f.URL, "", LegacyVersion) }
		if err := r.sdkFigures(ctx, "floor", connect, false); err != nil {
			return err
		}
	}
	return nil
}

// tcpClientP50 is the sequential p50 through url with TCPSession, the
// client without net/http's Transport.
func tcpClientP50(ctx context.Context, url, token string, cfg Config) (float64, error) {
	s, err := DialSession(ctx, url, token)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if _, err := sequentialCalls(ctx, s.Call, echoParams, cfg.Warmup); err != nil {
		return 0, err
	}
	lat, err := sequentialCalls(ctx, s.Call, echoParams, cfg.Calls)
	if err != nil {
		return 0, err
	}
	return percentile(lat, 50), nil
}

// workerCall is one throughput worker's call.
type workerCall func(ctx context.Context, worker int) error

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
	window := func(call workerCall, d time.Duration) (int64, error) {
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
	rounds := 1
	if len(calls) > 1 {
		rounds = rateRounds
	}
	counts := make([]int64, len(calls))
	elapsed := make([]time.Duration, len(calls))
	cpu := make([][]time.Duration, len(calls))
	for k, call := range calls {
		if _, err := window(call, r.cfg.ThroughputDuration/5); err != nil {
			return nil, nil, err
		}
		cpu[k] = make([]time.Duration, 1+len(pids))
	}
	for round := range rounds {
		for j := range calls {
			k := (round + j) % len(calls)
			cpu0 := append([]time.Duration{SelfCPU()}, procCPUs(pids)...)
			start := time.Now()
			count, err := window(calls[k], r.cfg.ThroughputDuration/time.Duration(rounds))
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

func procCPUs(pids []int) []time.Duration {
	out := make([]time.Duration, len(pids))
	for i, p := range pids {
		out[i] = ProcCPU(p)
	}
	return out
}

// throughput is figure 2: Concurrency clients calling as fast as they can,
// directly (all in flight on one pipe, as the gateway multiplexes them),
// and through the floor proxy and the gateway: legacy with one shared
// session, then legacy with one session each and modern (no session)
// taking turns (rates), so that the two eras are compared in one run.
func (r *runner) throughput(ctx context.Context) error {
	cfg := r.cfg
	check := func(res []byte, err error) error {
		if err == nil && !bytes.Contains(res, []byte("hello")) {
			err = fmt.Errorf("unexpected result %s", truncate(res, 200))
		}
		return err
	}
	c, err := StartStdio([]string{cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Initialize(ctx); err != nil {
		return err
	}
	direct, cpu, err := r.rate(ctx, cfg.Concurrency, func(ctx context.Context, _ int) error {
		return check(c.Call(ctx, "tools/call", echoParams))
	}, c.PID())
	if err != nil {
		return err
	}
	c.Close()
	r.add("tput.1session", "direct", direct)
	r.add("tput.sessions", "direct", direct)
	r.add("tput.modern", "direct", direct)
	r.add("cpu.tput.client", "direct", cpu[0])
	r.add("cpu.tput.upstream", "direct", cpu[1])

	f, err := StartFloor(cfg.Bin.Floor, []string{cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer f.Stop()
	fc := NewHTTPClient(f.URL, "")
	defer fc.CloseIdle()
	fs, err := fc.NewSession(ctx)
	if err != nil {
		return err
	}
	fm := fc.Modern()
	floor, cpus, err := r.rates(ctx, cfg.Concurrency, []workerCall{
		func(ctx context.Context, _ int) error { return check(fs.Call(ctx, "tools/call", echoParams)) },
		func(ctx context.Context, _ int) error { return check(fm.Call(ctx, "tools/call", echoParams)) },
	}, f.PID())
	if err != nil {
		return err
	}
	f.Stop()
	r.add("tput.1session", "floor", floor[0])
	r.add("tput.sessions", "floor", floor[0])
	r.add("cpu.tput.client", "floor", cpus[0][0])
	r.add("cpu.tput.daemon", "floor", cpus[0][1])
	r.add("tput.modern", "floor", floor[1])
	r.add("cpu.tput.modern.daemon", "floor", cpus[1][1])

	g, err := r.launch(ctx, config(map[string]string{"echo": runCmd([]string{cfg.Bin.Echo})}), cfg.TempDir)
	if err != nil {
		return err
	}
	defer g.Stop()
	hc := NewHTTPClient(g.URL, g.Token)
	defer hc.CloseIdle()
	one, err := hc.NewSession(ctx)
	if err != nil {
		return err
	}
	upPID := g.upstreamPID(0)
	shared, _, err := r.rate(ctx, cfg.Concurrency, func(ctx context.Context, _ int) error {
		return check(one.Call(ctx, "tools/call", echoParams))
	})
	if err != nil {
		return err
	}
	one.Close()
	r.add("tput.1session", "gateway", shared)
	sessions := make([]*Session, cfg.Concurrency)
	for i := range sessions {
		if sessions[i], err = hc.NewSession(ctx); err != nil {
			return err
		}
		defer sessions[i].Close()
	}
	// One session each, and modern (no sessions; each client sends its
	// own requests, _meta and headers on every one), taking turns.
	m := hc.Modern()
	each, cpus, err := r.rates(ctx, cfg.Concurrency, []workerCall{
		func(ctx context.Context, w int) error { return check(sessions[w].Call(ctx, "tools/call", echoParams)) },
		func(ctx context.Context, _ int) error { return check(m.Call(ctx, "tools/call", echoParams)) },
	}, g.PID, upPID)
	if err != nil {
		return err
	}
	r.add("tput.sessions", "gateway", each[0])
	r.add("cpu.tput.client", "gateway", cpus[0][0])
	r.add("cpu.tput.daemon", "gateway", cpus[0][1])
	r.add("cpu.tput.upstream", "gateway", cpus[0][2])
	r.add("tput.modern", "gateway", each[1])
	r.add("cpu.tput.modern.daemon", "gateway", cpus[1][1])
	for _, s := range sessions {
		s.Close()
	}
	return g.Stop()
}

// ready is figure 3: `mcp-gateway --config` with n fake servers that each
// take StartDelay to answer initialize (launcher start → exit 0), against
// the slowest of n such servers spawned directly in parallel
// (spawn → initialize response).
func (r *runner) ready(ctx context.Context) error {
	cfg := r.cfg
	argv := []string{cfg.Bin.Echo, "--start-delay", cfg.StartDelay.String()}
	for _, n := range cfg.ReadyServers {
		times := make([]time.Duration, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := StartStdio(argv)
				if err != nil {
					errs[i] = err
					return
				}
				defer c.Close()
				at, err := c.Initialize(ctx)
				times[i], errs[i] = at.Sub(c.Started()), err
			}()
		}
		wg.Wait()
		slowest := time.Duration(0)
		for i := range n {
			if errs[i] != nil {
				return errs[i]
			}
			slowest = max(slowest, times[i])
		}
		servers := map[string]string{}
		for i := range n {
			servers[fmt.Sprintf("s%d", i+1)] = runCmd(argv)
		}
		g, err := r.launch(ctx, config(servers), cfg.TempDir)
		if err != nil {
			return err
		}
		if err := g.Stop(); err != nil {
			return err
		}
		id := fmt.Sprintf("ready.%d", n)
		r.add(id, "direct", millis(slowest))
		r.add(id, "gateway", millis(g.Ready))
	}
	return nil
}

// memory is figure 4: the daemon's VmRSS and VmHWM idle with MemServers
// servers, then after MemSessions sessions (open at once, and kept open)
// have each made MemCalls calls, spread over the servers.
func (r *runner) memory(ctx context.Context) error {
	cfg := r.cfg
	servers := map[string]string{}
	for i := range cfg.MemServers {
		servers[string(rune('a'+i))] = runCmd([]string{cfg.Bin.Echo})
	}
	g, err := r.launch(ctx, config(servers), cfg.TempDir)
	if err != nil {
		return err
	}
	defer g.Stop()
	time.Sleep(500 * time.Millisecond) // let the daemon settle after start
	idle, err := ReadMem(g.PID)
	if err != nil {
		return err
	}
	r.add("mem.idle.rss", "gateway", mib(idle.RSS))
	r.add("mem.idle.hwm", "gateway", mib(idle.HWM))
	r.add("mem.idle.anon", "gateway", mib(idle.Anon))
	shims, _ := g.ServerPIDs()
	var shimRSS, shimAnon, upRSS float64
	for i, p := range shims {
		m, _ := ReadMem(p)
		shimRSS += mib(m.RSS) / float64(len(shims))
		shimAnon += mib(m.Anon) / float64(len(shims))
		u, _ := ReadMem(g.upstreamPID(i))
		upRSS += mib(u.RSS) / float64(len(shims))
	}
	r.add("mem.shim.rss", "gateway", shimRSS)
	r.add("mem.shim.anon", "gateway", shimAnon)
	r.add("mem.upstream.rss", "gateway", upRSS)

	hc := NewHTTPClient(g.URL, g.Token)
	defer hc.CloseIdle()
	first, err := hc.NewSession(ctx)
	if err != nil {
		return err
	}
	tools, err := toolNames(ctx, first)
	if err != nil {
		return err
	}
	sessions := make([]*Session, cfg.MemSessions)
	sessions[0] = first
	// Sessions are opened by up to 16 clients at once. Concurrent
	// initializes near the cap can get a 503 although fewer than
	// MaxSessions sessions exist (sessionCap counts a session that go-sdk
	// has registered but whose initialize is still in flight twice), so a
	// 503 is retried and counted.
	var retries atomic.Int64
	errs := make([]error, cfg.MemSessions)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range sessions {
		if sessions[i] != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			for try := 0; ; try++ {
				sessions[i], errs[i] = hc.NewSession(ctx)
				if errs[i] == nil || !strings.Contains(errs[i].Error(), "HTTP 503") || try == 50 {
					return
				}
				retries.Add(1)
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	r.add("mem.sessions.retries", "gateway", float64(retries.Load()))
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range cfg.MemCalls {
				tool := tools[(i+j)%len(tools)]
				params := []byte(`{"name":"` + tool + `","arguments":{"message":"hello"}}`)
				res, err := sessions[i].Call(ctx, "tools/call", params)
				if err == nil && !bytes.Contains(res, []byte("hello")) {
					err = fmt.Errorf("unexpected result %s", truncate(res, 200))
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	after, err := ReadMem(g.PID)
	if err != nil {
		return err
	}
	r.add("mem.sessions.rss", "gateway", mib(after.RSS))
	r.add("mem.sessions.hwm", "gateway", mib(after.HWM))
	r.add("mem.sessions.anon", "gateway", mib(after.Anon))
	for _, s := range sessions {
		s.Close()
	}
	return g.Stop()
}

func toolNames(ctx context.Context, s *Session) ([]string, error) {
	res, err := s.Call(ctx, "tools/list", []byte(`{}`))
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, err
	}
	var names []string
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("tools/list is empty")
	}
	return names, nil
}

// big is figure 5: a BigBytes result (from a small request) and a
// BigBytes argument (with a small result), median of BigCalls round
// trips each, after one untimed call each.
func (r *runner) big(ctx context.Context) error {
	cfg := r.cfg
	resultParams := []byte(fmt.Sprintf(`{"name":"echo","arguments":{"message":"x","bytes":%d}}`, cfg.BigBytes))
	var b strings.Builder
	b.Grow(cfg.BigBytes + 64)
	b.WriteString(`{"name":"echo","arguments":{"bytes":2,"message":"`)
	for i := range cfg.BigBytes {
		b.WriteByte('a' + byte(i%26))
	}
	b.WriteString(`"}}`)
	argParams := []byte(b.String())

	measure := func(side string, call callFunc) error {
		for _, m := range []struct {
			id     string
			params []byte
			check  func([]byte) bool
		}{
			{"big.result", resultParams, func(res []byte) bool { return len(res) >= cfg.BigBytes }},
			{"big.argument", argParams, func(res []byte) bool { return bytes.Contains(res, []byte(`"ab"`)) }},
		} {
			times := make([]float64, 0, cfg.BigCalls)
			for i := range cfg.BigCalls + 1 {
				t0 := time.Now()
				res, err := call(ctx, "tools/call", m.params)
				d := time.Since(t0)
				if err != nil {
					return fmt.Errorf("%s: %w", m.id, err)
				}
				if !m.check(res) {
					return fmt.Errorf("%s: unexpected result of %d bytes: %s", m.id, len(res), truncate(res, 200))
				}
				if i > 0 {
					times = append(times, millis(d))
				}
			}
			r.add(m.id, side, percentile(times, 50))
		}
		return nil
	}

	c, err := StartStdio([]string{cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Initialize(ctx); err != nil {
		return err
	}
	if err := measure("direct", c.Call); err != nil {
		return err
	}
	c.Close()

	f, err := StartFloor(cfg.Bin.Floor, []string{cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer f.Stop()
	fc := NewHTTPClient(f.URL, "")
	defer fc.CloseIdle()
	fs, err := fc.NewSession(ctx)
	if err != nil {
		return err
	}
	if err := measure("floor", fs.Call); err != nil {
		return err
	}
	f.Stop()

	g, err := r.launch(ctx, config(map[string]string{"echo": runCmd([]string{cfg.Bin.Echo})}), cfg.TempDir)
	if err != nil {
		return err
	}
	defer g.Stop()
	hc := NewHTTPClient(g.URL, g.Token)
	defer hc.CloseIdle()
	s, err := hc.NewSession(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := measure("gateway", s.Call); err != nil {
		return err
	}
	s.Close()
	return g.Stop()
}

func (r *runner) launch(ctx context.Context, config string, dir string) (*Gateway, error) {
	return LaunchGateway(ctx, r.cfg.Bin.Gateway, config, dir, r.cfg.GatewayEnv...)
}

// config renders a gateway config of local servers: name → runCmd.
func config(servers map[string]string) string {
	m := map[string]map[string]string{}
	for name, cmd := range servers {
		m[name] = map[string]string{"runCmd": cmd}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// upstreamPID returns the pid of the i-th server's own process: /health
// shows the shim's pid, and the server runs below it (through sh -c).
func (g *Gateway) upstreamPID(i int) int {
	pids, err := g.ServerPIDs()
	if err != nil || i >= len(pids) {
		return 0
	}
	pid := pids[i]
	for {
		kids := Children(pid)
		if len(kids) != 1 {
			return pid
		}
		pid = kids[0]
	}
}

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func millis(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
func mib(kib int64) float64          { return float64(kib) / 1024 }

func perCall(d time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return micros(d) / float64(n)
}
