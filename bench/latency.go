package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sequentialCalls makes n calls one after another and returns their
// latencies in µs.
func sequentialCalls(ctx context.Context, call callFunc, params []byte, n int) ([]float64, error) {
	lat := make([]float64, n)
	for i := range n {
		t0 := time.Now()
		res, err := call(ctx, "tools/call", params)
		lat[i] = micros(time.Since(t0))
		if err := echoed(res, err); err != nil {
			return nil, err
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
		if err := r.sdkFigures(ctx, "direct", func() (*mcp.ClientSession, error) { return sdkStdio(ctx, argv) }, false); err != nil {
			return err
		}
		// go-sdk's direct call is legacy stdio in both rows.
		v := r.vals["client.sdk.p50"]["direct"]
		r.add("client.sdk.modern.p50", "direct", v[len(v)-1])
	}
	return nil
}

// sequentialGateway is the gateway side of figure 1.
func (r *runner) sequentialGateway(ctx context.Context, name string, argv []string, detailed bool) error {
	gw, err := r.startGateway(ctx, map[string]string{name: runCmd(argv)})
	if err != nil {
		return err
	}
	defer gw.close()
	if detailed {
		g := gw.proc
		err = r.sequentialEras(ctx, name, gw, seqSide{side: "gateway", url: g.URL, token: g.Token,
			pids: []int{g.PID, g.upstreamPID(0)}, sdk: []string{LegacyVersion, ModernVersion}})
	} else {
		err = r.sequentialLegacy(ctx, name, gw)
	}
	if err != nil {
		return err
	}
	return gw.close()
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
	if err := r.sequentialEras(ctx, name, fl, seqSide{side: "floor", url: f.URL, pids: []int{f.PID()}, sdk: []string{LegacyVersion}}); err != nil {
		return err
	}
	return fl.close()
}

// sequentialLegacy is the gateway side of figure 1 without detail: Calls
// calls in a legacy session, after Warmup.
func (r *runner) sequentialLegacy(ctx context.Context, name string, e httpSide) error {
	s, err := e.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	if _, err := sequentialCalls(ctx, s.Call, echoParams, r.cfg.Warmup); err != nil {
		return err
	}
	lat, err := sequentialCalls(ctx, s.Call, echoParams, r.cfg.Calls)
	if err != nil {
		return err
	}
	r.add("seq."+name+".p50", "gateway", percentile(lat, 50))
	r.add("seq."+name+".p99", "gateway", percentile(lat, 99))
	return nil
}

// seqSide is an HTTP side of figure 1 in detail: the floor proxy or the
// gateway.
type seqSide struct {
	side       string // "floor" or "gateway"
	url, token string
	pids       []int    // the server's (cpu.seq.*.daemon), then the upstream's (cpu.seq.*.upstream), if measured
	sdk        []string // the protocol versions go-sdk's client is measured in
}

// cpuSeqWho names the CPU figures of interleaved's columns: this process,
// then seqSide.pids.
var cpuSeqWho = []string{"client", "daemon", "upstream"}

// sequentialEras is figure 1 in detail through one HTTP side: a legacy
// session and a modern caller, Warmup calls of each, then Calls of each
// interleaved, with the CPU per call of this process and of side.pids;
// then the TCPSession client and go-sdk's client.
func (r *runner) sequentialEras(ctx context.Context, name string, e httpSide, side seqSide) error {
	cfg := r.cfg
	s, err := e.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	m, err := e.open(ctx, eraModern)
	if err != nil {
		return err
	}
	for _, call := range []callFunc{s.Call, m.Call} {
		if _, err := sequentialCalls(ctx, call, echoParams, cfg.Warmup); err != nil {
			return err
		}
	}
	lat, cpu, err := interleaved(ctx, []callFunc{s.Call, m.Call}, cfg.Calls, side.pids...)
	if err != nil {
		return err
	}
	for k, era := range []string{"", ".modern"} {
		r.add("seq."+name+era+".p50", side.side, percentile(lat[k], 50))
		r.add("seq."+name+era+".p99", side.side, percentile(lat[k], 99))
		for i, who := range cpuSeqWho[:len(cpu[k])] {
			r.add("cpu.seq"+era+"."+who, side.side, cpu[k][i])
		}
	}
	p50, err := tcpClientP50(ctx, side.url, side.token, cfg)
	if err != nil {
		return err
	}
	r.add("seq."+name+".tcpclient.p50", side.side, p50)
	if cfg.SDKCalls == 0 {
		return nil
	}
	for _, v := range side.sdk {
		connect := func() (*mcp.ClientSession, error) { return sdkHTTP(ctx, side.url, side.token, v) }
		if err := r.sdkFigures(ctx, side.side, connect, v == ModernVersion); err != nil {
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
