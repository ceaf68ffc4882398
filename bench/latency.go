package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// timedCall is one call a figure times.
type timedCall func(ctx context.Context) error

// echoTimed is the echo call with call, failing unless it echoed.
func echoTimed(call callFunc) timedCall {
	return func(ctx context.Context) error { return echoed(call(ctx, "tools/call", echoParams)) }
}

// sequentialCalls makes n calls one after another and returns their
// latencies in µs.
func sequentialCalls(ctx context.Context, call timedCall, n int) ([]float64, error) {
	lat := make([]float64, n)
	for i := range n {
		t0 := time.Now()
		err := call(ctx)
		lat[i] = micros(time.Since(t0))
		if err != nil {
			return nil, err
		}
	}
	return lat, nil
}

// seqCaller is one caller interleaved compares: its call, and the
// processes whose CPU its calls cost (beside this one's).
type seqCaller struct {
	call timedCall
	pids []int
}

// interleaved makes n timed sequential calls with each of callers, in
// blocks that alternate between them (the first caller rotates), so that
// noise on the shared machine hits every caller alike. It returns each
// caller's latencies (µs) and its CPU per call: this process first, then
// each of its pids.
func interleaved(ctx context.Context, callers []seqCaller, n int) ([][]float64, [][]float64, error) {
	lat := make([][]float64, len(callers))
	cpu := make([][]time.Duration, len(callers))
	for k, c := range callers {
		lat[k] = make([]float64, 0, n)
		cpu[k] = make([]time.Duration, 1+len(c.pids))
	}
	for b := range seqBlocks {
		size := blockSize(n, b)
		for j := range callers {
			k := (b + j) % len(callers)
			c := callers[k]
			self0, p0 := SelfCPU(), procCPUs(c.pids)
			l, err := sequentialCalls(ctx, c.call, size)
			if err != nil {
				return nil, nil, err
			}
			self1, p1 := SelfCPU(), procCPUs(c.pids)
			lat[k] = append(lat[k], l...)
			cpu[k][0] += self1 - self0
			for i := range c.pids {
				cpu[k][1+i] += p1[i] - p0[i]
			}
		}
	}
	per := make([][]float64, len(callers))
	for k := range callers {
		per[k] = make([]float64, len(cpu[k]))
		for i, d := range cpu[k] {
			per[k][i] = perCall(d, n)
		}
	}
	return lat, per, nil
}

// seqBlocks is how many blocks interleaved splits each caller's calls
// into.
const seqBlocks = 50

// blockSize is the size of block b of n calls: n/seqBlocks, and the rest
// in the last.
func blockSize(n, b int) int {
	size := n / seqBlocks
	if b == seqBlocks-1 {
		size = n - size*(seqBlocks-1)
	}
	return size
}

// blockP50s is the p50 of each block of lat, the latencies of one of
// interleaved's callers: the samples of the A/B verdicts, each measured
// back to back with the same block of every other caller.
func blockP50s(lat []float64) []float64 {
	var out []float64
	i := 0
	for b := range seqBlocks {
		if size := blockSize(len(lat), b); size > 0 {
			out = append(out, percentile(lat[i:i+size], 50))
			i += size
		}
	}
	return out
}

// measure makes Warmup untimed calls with each of callers, then n timed
// ones, interleaved.
func (r *runner) measure(ctx context.Context, callers []seqCaller, n int) ([][]float64, [][]float64, error) {
	if err := r.warmUp(ctx, callers); err != nil {
		return nil, nil, err
	}
	return interleaved(ctx, callers, n)
}

// warmUp makes Warmup untimed calls with each of callers.
func (r *runner) warmUp(ctx context.Context, callers []seqCaller) error {
	for _, c := range callers {
		if _, err := sequentialCalls(ctx, c.call, r.cfg.Warmup); err != nil {
			return err
		}
	}
	return nil
}

// sequential is figure 1: Calls sequential tools/call after Warmup, direct
// then through a gateway with that one server (each gateway side of an
// A/B run, all at once, interleaved). With detailed (the Go echo), it
// also measures the floor proxy, modern (MCP 2026-07-28) calls beside
// legacy ones through the floor and the gateway (interleaved, same
// process), splits the CPU per call between client, daemon and upstream,
// and measures the TCPSession and go-sdk clients.
func (r *runner) sequential(ctx context.Context, name string, argv []string, detailed bool) error {
	if err := r.sequentialDirect(ctx, name, argv, detailed); err != nil {
		return err
	}
	if detailed {
		if err := r.sequentialFloor(ctx, name, argv); err != nil {
			return err
		}
	}
	return r.sequentialGateway(ctx, name, argv, detailed)
}

// sequentialDirect is the direct side of figure 1, and of go-sdk's client
// with detailed.
func (r *runner) sequentialDirect(ctx context.Context, name string, argv []string, detailed bool) error {
	cfg := r.cfg
	c, err := startDirect(ctx, argv)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := sequentialCalls(ctx, echoTimed(c.Call), cfg.Warmup); err != nil {
		return err
	}
	self0, up0 := SelfCPU(), ProcCPU(c.PID())
	lat, err := sequentialCalls(ctx, echoTimed(c.Call), cfg.Calls)
	if err != nil {
		return err
	}
	self1, up1 := SelfCPU(), ProcCPU(c.PID())
	c.Close()
	r.add("seq."+name+".p50", "direct", percentile(lat, 50))
	r.add("seq."+name+".p99", "direct", percentile(lat, 99))
	if !detailed {
		return nil
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
		direct := sdkSide{"direct", func() (*mcp.ClientSession, error) { return sdkStdio(ctx, argv) }}
		if err := r.sdkFigures(ctx, []sdkSide{direct}, false); err != nil {
			return err
		}
		// go-sdk's direct call is legacy stdio in both rows.
		v := r.vals["client.sdk.p50"]["direct"]
		r.add("client.sdk.modern.p50", "direct", v[len(v)-1])
	}
	return nil
}

// sequentialGateway is the gateway side of figure 1: every gateway side
// at once, their calls interleaved.
func (r *runner) sequentialGateway(ctx context.Context, name string, argv []string, detailed bool) error {
	gws, err := r.startGateways(ctx, map[string]string{name: runCmd(argv)})
	if err != nil {
		return err
	}
	defer closeAll(gws)
	if detailed {
		sides := make([]seqSide, len(gws))
		for i, gw := range gws {
			g := gw.proc
			sides[i] = seqSide{e: gw, url: g.URL, token: g.Token, pids: []int{g.PID, g.upstreamPID(0)}, sdk: []string{LegacyVersion, ModernVersion}}
		}
		err = r.sequentialEras(ctx, name, sides)
	} else {
		err = r.sequentialLegacy(ctx, name, gws)
	}
	if err != nil {
		return err
	}
	return closeAll(gws)
}

// sequentialFloor measures the sequential calls through the floor proxy,
// legacy and modern interleaved as through the gateway (the floor forwards
// either without looking at _meta or the headers: what the larger modern
// request costs HTTP itself), and go-sdk's legacy client through it.
func (r *runner) sequentialFloor(ctx context.Context, name string, argv []string) error {
	fl, err := r.startFloor(argv)
	if err != nil {
		return err
	}
	defer fl.close()
	f := fl.proc
	if err := r.sequentialEras(ctx, name, []seqSide{{e: fl, url: f.URL, pids: []int{f.PID()}, sdk: []string{LegacyVersion}}}); err != nil {
		return err
	}
	return fl.close()
}

// sequentialLegacy is the gateway side of figure 1 without detail: Calls
// calls in a legacy session on each of es, after Warmup, interleaved.
func (r *runner) sequentialLegacy(ctx context.Context, name string, es []*endpoint[*Gateway]) error {
	callers := make([]seqCaller, len(es))
	for i, e := range es {
		s, err := e.open(ctx, eraLegacy)
		if err != nil {
			return err
		}
		callers[i] = seqCaller{call: echoTimed(s.Call)}
	}
	lat, _, err := r.measure(ctx, callers, r.cfg.Calls)
	if err != nil {
		return err
	}
	for i, e := range es {
		r.add("seq."+name+".p50", e.name(), percentile(lat[i], 50))
		r.sample("seq."+name+".p50", e.name(), blockP50s(lat[i])...)
		r.add("seq."+name+".p99", e.name(), percentile(lat[i], 99))
	}
	return nil
}

// seqSide is an HTTP side of figure 1 in detail: the floor proxy or a
// gateway.
type seqSide struct {
	e          httpSide
	url, token string
	pids       []int    // the server's (cpu.seq.*.daemon), then the upstream's (cpu.seq.*.upstream), if measured
	sdk        []string // the protocol versions go-sdk's client is measured in
}

// cpuSeqWho names the CPU figures of interleaved's columns: this process,
// then seqSide.pids.
var cpuSeqWho = []string{"client", "daemon", "upstream"}

// seqEras are the eras of figure 1 in detail, as its ids name them.
var seqEras = []struct {
	era era
	id  string
}{{eraLegacy, ""}, {eraModern, ".modern"}}

// sequentialEras is figure 1 in detail through HTTP sides: on each, a
// legacy session and a modern caller, Warmup calls of each, then Calls of
// each, all interleaved, with the CPU per call of this process and of the
// side's pids; then the TCPSession client and go-sdk's client.
func (r *runner) sequentialEras(ctx context.Context, name string, sides []seqSide) error {
	var callers []seqCaller
	for _, side := range sides {
		for _, e := range seqEras {
			s, err := side.e.open(ctx, e.era)
			if err != nil {
				return err
			}
			callers = append(callers, seqCaller{echoTimed(s.Call), side.pids})
		}
	}
	lat, cpu, err := r.measure(ctx, callers, r.cfg.Calls)
	if err != nil {
		return err
	}
	for i, side := range sides {
		for j, e := range seqEras {
			k := i*len(seqEras) + j
			r.add("seq."+name+e.id+".p50", side.e.name(), percentile(lat[k], 50))
			r.sample("seq."+name+e.id+".p50", side.e.name(), blockP50s(lat[k])...)
			r.add("seq."+name+e.id+".p99", side.e.name(), percentile(lat[k], 99))
			for c, who := range cpuSeqWho[:len(cpu[k])] {
				r.add("cpu.seq"+e.id+"."+who, side.e.name(), cpu[k][c])
			}
		}
	}
	if err := r.tcpClientP50(ctx, name, sides); err != nil {
		return err
	}
	return r.sdkVersions(ctx, sides)
}

// sdkVersions measures go-sdk's client on sides in each of their versions,
// the sides of one version interleaved.
func (r *runner) sdkVersions(ctx context.Context, sides []seqSide) error {
	if r.cfg.SDKCalls == 0 {
		return nil
	}
	for _, v := range []string{LegacyVersion, ModernVersion} {
		var on []sdkSide
		for _, side := range sides {
			if slices.Contains(side.sdk, v) {
				on = append(on, sdkSide{side.e.name(), func() (*mcp.ClientSession, error) { return sdkHTTP(ctx, side.url, side.token, v) }})
			}
		}
		if len(on) == 0 {
			continue
		}
		if err := r.sdkFigures(ctx, on, v == ModernVersion); err != nil {
			return err
		}
	}
	return nil
}

// tcpClientP50 is the sequential p50 through each of sides with
// TCPSession, the client without net/http's Transport, interleaved.
func (r *runner) tcpClientP50(ctx context.Context, name string, sides []seqSide) error {
	callers := make([]seqCaller, len(sides))
	for i, side := range sides {
		s, err := DialSession(ctx, side.url, side.token)
		if err != nil {
			return err
		}
		defer s.Close()
		callers[i] = seqCaller{call: echoTimed(s.Call)}
	}
	lat, _, err := r.measure(ctx, callers, r.cfg.Calls)
	if err != nil {
		return err
	}
	for i, side := range sides {
		r.add("seq."+name+".tcpclient.p50", side.e.name(), percentile(lat[i], 50))
	}
	return nil
}

// seqP50Defs are the rows of figure 1 that its targets are judged on;
// they open the table.
func (cfg Config) seqP50Defs() []figDef {
	vsFloor := target{on: "floorDiff", max: true, limit: 60, text: "added p50 ≤ floor proxy's added + 60 µs"}
	return []figDef{
		{"seq.echo.p50", cfg.seqCalls() + ", Go echo, legacy (" + LegacyVersion + " session): p50", "µs", []target{vsFloor}, ""},
		{"seq.echo.modern.p50", cfg.seqCalls() + ", Go echo, modern (" + ModernVersion + ", no session): p50", "µs", []target{vsFloor},
			"_meta and MCP-Protocol-Version, Mcp-Method, Mcp-Name on every request; interleaved with the legacy calls in blocks of a fiftieth, " +
				"through the same gateway (and floor) process. The request is larger than a legacy one (+130 bytes of _meta, one more header): " +
				"compare modern − legacy through the gateway with the same through the floor proxy, which treats both alike"},
	}
}

// seqDefs are the other rows of figure 1: p99s, the TCPSession client,
// server-everything, and the CPU per call of each process.
func (cfg Config) seqDefs() []figDef {
	return []figDef{
		{"seq.echo.p99", cfg.seqCalls() + ", Go echo, legacy: p99", "µs", nil, ""},
		{"seq.echo.modern.p99", cfg.seqCalls() + ", Go echo, modern: p99", "µs", nil, ""},
		{"seq.echo.tcpclient.p50", cfg.seqCalls() + ", Go echo, legacy: p50 with TCPSession (no net/http Transport)", "µs", nil,
			"the same calls from a client that reads and writes its connection itself: the part of the added latency that is net/http's client"},
		{"seq.everything.p50", cfg.seqCalls() + ", server-everything echo: p50", "µs", nil, ""},
		{"seq.everything.p99", cfg.seqCalls() + ", server-everything echo: p99", "µs", nil, ""},
		{"cpu.seq.client", "CPU per sequential call: load generator, legacy", "µs", nil,
			"direct: StdioClient; gateway: raw net/http HTTPClient (keep-alive, SSE or JSON)"},
		{"cpu.seq.modern.client", "CPU per sequential call: load generator, modern", "µs", nil, ""},
		{"cpu.seq.daemon", "CPU per sequential call: gateway daemon (floor: the floor proxy), legacy", "µs", nil, "from /proc/<pid>/task/*/schedstat"},
		{"cpu.seq.modern.daemon", "CPU per sequential call: gateway daemon (floor: the floor proxy), modern", "µs", nil, ""},
		{"cpu.seq.upstream", "CPU per sequential call: Go echo, legacy", "µs", nil, "from /proc/<pid>/task/*/schedstat"},
		{"cpu.seq.modern.upstream", "CPU per sequential call: Go echo, modern", "µs", nil, ""},
	}
}

// seqCalls names figure 1's measurement in its rows.
func (cfg Config) seqCalls() string { return fmt.Sprintf("%d sequential tools/call", cfg.Calls) }
