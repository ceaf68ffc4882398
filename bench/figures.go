package bench

import "fmt"

// A target is judged on the median over repetitions of one per-repetition
// value (on):
//
//	"diff", "ratio"            gateway − direct, gateway / direct
//	"gateway"                  the gateway's value
//	"floorDiff", "floorRatio"  gateway − floor, gateway / floor
//	"refRatio"                 gateway / the gateway value of figure ref
type target struct {
	on    string
	max   bool // true: ≤ limit; false: ≥ limit
	limit float64
	text  string
	ref   string
}

type figDef struct {
	id, name, unit string
	ts             []target
	note           string
}

func (cfg Config) figDefs() []figDef {
	n := cfg.Concurrency
	seq := fmt.Sprintf("%d sequential tools/call", cfg.Calls)
	vsFloor := target{on: "floorDiff", max: true, limit: 60, text: "added p50 ≤ floor proxy's added + 60 µs"}
	tputFloor := target{on: "floorRatio", max: false, limit: 0.85, text: "≥ 0.85× the floor proxy's"}
	var defs []figDef
	defs = append(defs,
		figDef{"seq.echo.p50", seq + ", Go echo, legacy (" + LegacyVersion + " session): p50", "µs", []target{vsFloor}, ""},
		figDef{"seq.echo.modern.p50", seq + ", Go echo, modern (" + ModernVersion + ", no session): p50", "µs", []target{vsFloor},
			"_meta and MCP-Protocol-Version, Mcp-Method, Mcp-Name on every request; interleaved with the legacy calls in blocks of a fiftieth, " +
				"through the same gateway (and floor) process. The request is larger than a legacy one (+130 bytes of _meta, one more header): " +
				"compare modern − legacy through the gateway with the same through the floor proxy, which treats both alike"},
		figDef{"cpu.handler", fmt.Sprintf("Gateway CPU per tools/call, legacy: %d calls on the serving thread, in-process", cfg.HandlerCalls), "µs", nil,
			"from the client's request bytes (parsed by net/http) to the written response, Go echo upstream; CLOCK_THREAD_CPUTIME_ID; median (handlercpu.go)"},
		figDef{"cpu.handler.modern", fmt.Sprintf("Gateway CPU per tools/call, modern (%s): %d calls on the serving thread, in-process", ModernVersion, cfg.HandlerCalls), "µs", nil,
			"alternating with the legacy calls: legacy, modern, modern, legacy, …"},
		figDef{"cpu.handler.modern.diff", "Gateway CPU per tools/call, modern − legacy: median of the differences of calls made back to back", "µs",
			[]target{{on: "gateway", max: true, limit: 0, text: "a modern call costs the gateway no more than a legacy one (≤ 0)"}},
			"the pairs of the two figures above"},
		figDef{"cpu.handler.askable", fmt.Sprintf("Gateway CPU per tools/call, modern, client declaring %s: %d calls on the serving thread, in-process", AskableCaps, cfg.HandlerCalls), "µs", nil,
			"its calls to a legacy server could park (MRTR); alternating with legacy calls of its own"},
		figDef{"cpu.handler.askable.diff", "Gateway CPU per tools/call, modern declaring capabilities − legacy: median of the differences of calls made back to back", "µs", nil,
			"the pairs of the figure above and its legacy calls; its request repeats the capabilities (+40 bytes of _meta) that a legacy client sends once, at initialize"},
		figDef{"seq.echo.p99", seq + ", Go echo, legacy: p99", "µs", nil, ""},
		figDef{"seq.echo.modern.p99", seq + ", Go echo, modern: p99", "µs", nil, ""},
		figDef{"seq.echo.tcpclient.p50", seq + ", Go echo, legacy: p50 with TCPSession (no net/http Transport)", "µs", nil,
			"the same calls from a client that reads and writes its connection itself: the part of the added latency that is net/http's client"},
		figDef{"seq.everything.p50", seq + ", server-everything echo: p50", "µs", nil, ""},
		figDef{"seq.everything.p99", seq + ", server-everything echo: p99", "µs", nil, ""},
		figDef{"cpu.seq.client", "CPU per sequential call: load generator, legacy", "µs", nil,
			"direct: StdioClient; gateway: raw net/http HTTPClient (keep-alive, SSE or JSON)"},
		figDef{"cpu.seq.modern.client", "CPU per sequential call: load generator, modern", "µs", nil, ""},
		figDef{"cpu.seq.daemon", "CPU per sequential call: gateway daemon (floor: the floor proxy), legacy", "µs", nil, "from /proc/<pid>/task/*/schedstat"},
		figDef{"cpu.seq.modern.daemon", "CPU per sequential call: gateway daemon (floor: the floor proxy), modern", "µs", nil, ""},
		figDef{"cpu.seq.upstream", "CPU per sequential call: Go echo, legacy", "µs", nil, "from /proc/<pid>/task/*/schedstat"},
		figDef{"cpu.seq.modern.upstream", "CPU per sequential call: Go echo, modern", "µs", nil, ""},
		figDef{"client.sdk.p50", fmt.Sprintf("%d sequential calls with go-sdk's client, legacy (%s): p50", cfg.SDKCalls, LegacyVersion), "µs", nil,
			"direct: go-sdk's client over stdio (CommandTransport) to the Go echo; floor, gateway: its Streamable HTTP client"},
		figDef{"client.sdk.modern.p50", fmt.Sprintf("%d sequential calls with go-sdk's client, modern (%s): p50", cfg.SDKCalls, ModernVersion), "µs", nil,
			"direct: the legacy stdio figure above (the Go echo does not serve server/discover)"},
		figDef{"client.sdk.cpu", "CPU per call of go-sdk's client, legacy", "µs", nil,
			"compare with cpu.seq.client: the reason the load generator uses raw net/http"},
		figDef{"client.sdk.modern.cpu", "CPU per call of go-sdk's client, modern", "µs", nil, ""},
		figDef{"tput.1session", fmt.Sprintf("Throughput, %d clients, legacy, 1 session", n), "calls/s", []target{tputFloor},
			fmt.Sprintf("direct: %d calls in flight on one stdio pipe", n)},
		figDef{"tput.sessions", fmt.Sprintf("Throughput, %d clients, legacy, %d sessions", n, n), "calls/s", []target{tputFloor},
			"direct: the same measurement as above; floor: one session (it has no others)"},
		figDef{"tput.modern", fmt.Sprintf("Throughput, %d clients, modern (no session)", n), "calls/s", []target{tputFloor},
			"direct: the same measurement as above; floor: the same modern requests"},
		figDef{"cpu.tput.client", fmt.Sprintf("CPU per call at %d clients: load generator, legacy", n), "µs", nil, fmt.Sprintf("gateway side: %d sessions", n)},
		figDef{"cpu.tput.daemon", fmt.Sprintf("CPU per call at %d clients: gateway daemon (floor: the floor proxy), legacy", n), "µs", nil, ""},
		figDef{"cpu.tput.modern.daemon", fmt.Sprintf("CPU per call at %d clients: gateway daemon (floor: the floor proxy), modern", n), "µs", nil, ""},
		figDef{"cpu.tput.upstream", fmt.Sprintf("CPU per call at %d clients: Go echo", n), "µs", nil, ""},
	)
	for i, s := range cfg.ReadyServers {
		d := figDef{fmt.Sprintf("ready.%d", s), fmt.Sprintf("Ready time, %d server(s) with a %s start delay", s, cfg.StartDelay), "ms", nil,
			"direct: slowest of the servers spawned in parallel, spawn → initialize response; gateway: `mcp-gateway --config` start → exit 0"}
		if i == len(cfg.ReadyServers)-1 {
			d.ts = []target{{on: "diff", max: true, limit: 50, text: "≤ slowest server + 50 ms"}}
		}
		defs = append(defs, d)
	}
	defs = append(defs,
		figDef{"mem.idle.rss", fmt.Sprintf("Daemon VmRSS, idle, %d servers", cfg.MemServers), "MiB", nil, ""},
		figDef{"mem.idle.hwm", fmt.Sprintf("Daemon VmHWM, idle, %d servers", cfg.MemServers), "MiB", nil, ""},
		figDef{"mem.idle.anon", fmt.Sprintf("Daemon RssAnon, idle, %d servers", cfg.MemServers), "MiB", []target{{on: "gateway", max: true, limit: 4, text: "≤ 4 MiB"}},
			"VmRSS minus the mapped pages of the executable (RssFile), which every mcp-gateway process shares"},
		figDef{"mem.sessions.rss", fmt.Sprintf("Daemon VmRSS after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", nil,
			"sessions opened at once and still open when measured"},
		figDef{"mem.sessions.hwm", fmt.Sprintf("Daemon VmHWM after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", nil, ""},
		figDef{"mem.sessions.anon", fmt.Sprintf("Daemon RssAnon after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", []target{{on: "gateway", max: true, limit: 24, text: "≤ 24 MiB"}}, ""},
		figDef{"mem.sessions.retries", "503s retried while opening those sessions, 16 at a time", "count", nil,
			"a 503 below the cap: sessionCap counts a session twice while its initialize is in flight"},
		figDef{"mem.shim.rss", "Shim VmRSS, per server (not the daemon's)", "MiB", nil, "one `mcp-gateway __shim` process per server"},
		figDef{"mem.shim.anon", "Shim RssAnon, per server: its own memory", "MiB", nil, "the rest of its VmRSS is the shared executable"},
		figDef{"mem.upstream.rss", "Go echo VmRSS, per server", "MiB", nil, ""},
		figDef{"big.result", fmt.Sprintf("%s result, round trip", size(cfg.BigBytes)), "ms", []target{{on: "ratio", max: true, limit: 2, text: "≤ 2× direct"}}, ""},
		figDef{"big.argument", fmt.Sprintf("%s argument, round trip", size(cfg.BigBytes)), "ms", []target{{on: "ratio", max: true, limit: 2, text: "≤ 2× direct"}}, ""},
	)
	return defs
}

func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
