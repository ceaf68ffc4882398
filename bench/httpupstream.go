package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
)

// httpUpstream is the HTTP upstream figure (issue 23, SPEC §5.6): a
// tools/call to the Go echo served over Streamable HTTP (echo --http:
// a legacy session, JSON answers), called directly by HTTPClient and
// through the gateway, which reaches it over HTTP; beside it the same
// echo over stdio, directly (StdioClient) and through the same gateway
// process, its other server. The two paths are interleaved (sequential
// calls in blocks, throughput in alternating windows), so that the added
// p50 of each is measured in the same run and under the same noise; the
// target is that HTTP adds no more than stdio does.
func (r *runner) httpUpstream(ctx context.Context) error {
	if err := r.httpUpstreamDirect(ctx); err != nil {
		return err
	}
	return r.httpUpstreamGateway(ctx)
}

// webParams call the HTTP echo through the gateway: the config's server
// "web" offers echo too, so its tool is exported as web_echo (SPEC §4.1).
var webParams = []byte(`{"name":"web_echo","arguments":{"message":"hello"}}`)

// httpUpstreamDirect is the direct side: the HTTP echo and a stdio echo.
func (r *runner) httpUpstreamDirect(ctx context.Context) error {
	cfg := r.cfg
	he, err := r.startHTTPEcho()
	if err != nil {
		return err
	}
	defer he.close()
	st, err := startDirect(ctx, []string{cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer st.Close()
	hs, err := he.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	calls := []callFunc{hs.Call, st.Call}
	lat, err := r.warmAndInterleave(ctx, calls)
	if err != nil {
		return err
	}
	r.add("http.seq.p50", "direct", percentile(lat[0], 50))
	r.add("http.stdio.p50", "direct", percentile(lat[1], 50))
	per, _, _, err := r.rates(ctx, cfg.Concurrency, []rateCall{{call: echoCall(hs.Call)}, {call: echoCall(st.Call)}})
	if err != nil {
		return err
	}
	r.add("http.tput", "direct", per[0])
	r.add("http.stdio.tput", "direct", per[1])
	st.Close()
	return he.close()
}

// httpUpstreamGateway is the gateway side: one gateway with both echoes.
func (r *runner) httpUpstreamGateway(ctx context.Context) error {
	cfg := r.cfg
	config, err := r.httpEchoConfig()
	if err != nil {
		return err
	}
	gw, err := r.startGatewayWith(ctx, config, LaunchOptions{})
	if err != nil {
		return err
	}
	defer gw.close()
	s, err := gw.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	web := func(ctx context.Context, method string, _ []byte) ([]byte, error) {
		return s.Call(ctx, method, webParams)
	}
	lat, err := r.warmAndInterleave(ctx, []callFunc{web, s.Call})
	if err != nil {
		return err
	}
	r.add("http.seq.p50", "gateway", percentile(lat[0], 50))
	r.add("http.stdio.p50", "gateway", percentile(lat[1], 50))
	sessions := make([]*Session, cfg.Concurrency)
	for i := range sessions {
		if sessions[i], err = gw.open(ctx, eraLegacy); err != nil {
			return err
		}
	}
	pids := []int{gw.proc.PID}
	per, cpus, _, err := r.rates(ctx, cfg.Concurrency, []rateCall{
		{call: func(ctx context.Context, w int) error { return echoed(sessions[w].Call(ctx, "tools/call", webParams)) }, pids: pids},
		{call: func(ctx context.Context, w int) error { return echoed(sessions[w].Call(ctx, "tools/call", echoParams)) }, pids: pids},
	})
	if err != nil {
		return err
	}
	r.add("http.tput", "gateway", per[0])
	r.add("http.stdio.tput", "gateway", per[1])
	r.add("cpu.http.tput.daemon", "gateway", cpus[0][1])
	r.add("cpu.http.stdio.tput.daemon", "gateway", cpus[1][1])
	return gw.close()
}

// warmAndInterleave warms each of calls up, then makes Calls sequential
// calls with each, interleaved, and returns their latencies (µs).
func (r *runner) warmAndInterleave(ctx context.Context, calls []callFunc) ([][]float64, error) {
	callers := make([]seqCaller, len(calls))
	for i, c := range calls {
		callers[i] = seqCaller{call: echoTimed(c)}
	}
	lat, _, err := r.measure(ctx, callers, r.cfg.Calls)
	return lat, err
}

// httpEchoConfig is the gateway config of the figure: "echo", the Go echo
// over stdio, and "web", the Go echo over HTTP on a free port, started by
// the gateway (runCmd) and reached at its url.
func (r *runner) httpEchoConfig() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	b, err := json.Marshal(map[string]map[string]string{
		"echo": {"runCmd": runCmd([]string{r.cfg.Bin.Echo})},
		"web":  {"url": "http://" + addr + "/mcp", "runCmd": runCmd([]string{r.cfg.Bin.Echo, "--http", addr})},
	})
	return string(b), err
}

// httpDefs are the figure's rows.
func (cfg Config) httpDefs() []figDef {
	vsStdio := target{on: "refDiff", ref: "http.stdio.p50", max: true, limit: 0, text: "added p50 ≤ the stdio path's added p50"}
	tput := fmt.Sprintf("Throughput, %d clients (a session each), Go echo", cfg.Concurrency)
	return []figDef{
		{"http.seq.p50", cfg.seqCalls() + ", Go echo over Streamable HTTP (legacy session, JSON answers): p50", "µs", []target{vsStdio},
			"direct: the same HTTPClient calls the echo's own HTTP endpoint; gateway: through the gateway, which reaches the echo over HTTP " +
				"(runCmd + url); interleaved in blocks with the stdio path's calls, through the same gateway process"},
		{"http.stdio.p50", cfg.seqCalls() + ", Go echo over stdio, the same run: p50", "µs", nil,
			"direct: StdioClient; gateway: the same gateway process, its other server"},
		{"http.tput", tput + " over HTTP", "calls/s", nil, "direct: one session on the echo's HTTP endpoint; windows alternate with the stdio path's"},
		{"http.stdio.tput", tput + " over stdio, the same run", "calls/s", nil, "direct: every call on one pipe"},
		{"cpu.http.tput.daemon", fmt.Sprintf("CPU per call at %d clients: gateway daemon, HTTP upstream", cfg.Concurrency), "µs", nil, ""},
		{"cpu.http.stdio.tput.daemon", fmt.Sprintf("CPU per call at %d clients: gateway daemon, stdio upstream", cfg.Concurrency), "µs", nil, ""},
	}
}
