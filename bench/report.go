package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Results is what a run produced; it is written as JSON to
// bench/results/latest.json.
type Results struct {
	Time           string      `json:"time"`
	Tree           string      `json:"tree"` // git describe --always --dirty, and the changed files outside bench/
	Host           Host        `json:"host"`
	Client         string      `json:"client"`
	Sizes          Sizes       `json:"sizes"`
	ElapsedSeconds float64     `json:"elapsedSeconds"`
	Figures        []Figure    `json:"figures"`
	Targets        []TargetRow `json:"targets"`
}

// Host describes the machine.
type Host struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpuModel"`
	GoVersion string `json:"goVersion"`
	Kernel    string `json:"kernel"`
}

// Sizes are the run's sizes (Config without the paths).
type Sizes struct {
	Reps               int      `json:"reps"`
	Calls              int      `json:"calls"`
	Warmup             int      `json:"warmup"`
	Concurrency        int      `json:"concurrency"`
	ThroughputDuration string   `json:"throughputDuration"`
	ReadyServers       []int    `json:"readyServers"`
	StartDelay         string   `json:"startDelay"`
	MemServers         int      `json:"memServers"`
	MemSessions        int      `json:"memSessions"`
	MemCalls           int      `json:"memCalls"`
	BigBytes           int      `json:"bigBytes"`
	BigCalls           int      `json:"bigCalls"`
	SDKCalls           int      `json:"sdkCalls"`
	Everything         bool     `json:"everything"`
	Only               []string `json:"only,omitempty"`
	GatewayEnv         []string `json:"gatewayEnv,omitempty"`
	GatewayBinary      string   `json:"gatewayBinary"`
}

// Figure is one measured quantity. Direct is absent where there is no
// direct counterpart (the daemon's memory). Diff and Ratio are computed
// per repetition (gateway − direct, gateway / direct), each pair measured
// back to back, then summarised.
type Figure struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Unit    string `json:"unit"`
	Direct  *Stat  `json:"direct,omitempty"`
	Gateway *Stat  `json:"gateway,omitempty"`
	Diff    *Stat  `json:"diff,omitempty"`
	Ratio   *Stat  `json:"ratio,omitempty"`
	// Floor is the same measurement through bench/floor, the minimal
	// net/http-to-stdio proxy: what HTTP itself costs. FloorDiff and
	// FloorRatio are floor − direct and floor / direct per repetition.
	Floor      *Stat  `json:"floor,omitempty"`
	FloorDiff  *Stat  `json:"floorDiff,omitempty"`
	FloorRatio *Stat  `json:"floorRatio,omitempty"`
	Target     string `json:"target,omitempty"`
	Met        *bool  `json:"met,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Stat is the median, min and max of the repetitions.
type Stat struct {
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Reps   []float64 `json:"reps"`
}

// TargetRow is one of the targets with the figure it was judged on.
type TargetRow struct {
	Target   string  `json:"target"`
	Figure   string  `json:"figure"`
	Measured float64 `json:"measured"`
	Unit     string  `json:"unit"`
	Met      bool    `json:"met"`
	// Detail gives the medians the measured value was computed from.
	Detail string `json:"detail,omitempty"`
}

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

func (r *runner) results(elapsed time.Duration) *Results {
	cfg := r.cfg
	res := &Results{
		Time:   time.Now().UTC().Format(time.RFC3339),
		Host:   host(),
		Tree:   tree(),
		Client: "raw net/http (keep-alive; Accept: application/json, text/event-stream; SSE or JSON parsed by hand)",
		Sizes: Sizes{Reps: cfg.Reps, Calls: cfg.Calls, Warmup: cfg.Warmup, Concurrency: cfg.Concurrency,
			ThroughputDuration: cfg.ThroughputDuration.String(), ReadyServers: cfg.ReadyServers, StartDelay: cfg.StartDelay.String(),
			MemServers: cfg.MemServers, MemSessions: cfg.MemSessions, MemCalls: cfg.MemCalls,
			BigBytes: cfg.BigBytes, BigCalls: cfg.BigCalls, SDKCalls: cfg.SDKCalls, Everything: cfg.Everything != nil,
			Only: cfg.Only, GatewayEnv: cfg.GatewayEnv, GatewayBinary: cfg.Bin.Gateway},
		ElapsedSeconds: math.Round(elapsed.Seconds()*10) / 10,
	}
	for _, d := range cfg.figDefs() {
		v := r.vals[d.id]
		if v == nil {
			continue
		}
		f := Figure{ID: d.id, Name: d.name, Unit: d.unit, Direct: stat(v["direct"]), Gateway: stat(v["gateway"]), Note: d.note}
		f.Diff, f.Ratio = pairs(v["gateway"], v["direct"])
		f.Floor = stat(v["floor"])
		f.FloorDiff, f.FloorRatio = pairs(v["floor"], v["direct"])
		var texts []string
		for _, t := range d.ts {
			s, detail := r.judged(t, f)
			if s == nil {
				continue
			}
			met := s.Median <= t.limit
			if !t.max {
				met = s.Median >= t.limit
			}
			texts = append(texts, t.text)
			if f.Met == nil || !met {
				f.Met = &met
			}
			unit := d.unit
			if strings.HasSuffix(t.on, "atio") {
				unit = "×"
			}
			res.Targets = append(res.Targets, TargetRow{Target: d.name + ": " + t.text, Figure: d.id, Measured: round(s.Median), Unit: unit, Met: met, Detail: detail})
		}
		f.Target = strings.Join(texts, "; ")
		res.Figures = append(res.Figures, f)
	}
	return res
}

// pairs returns a − b and a / b per repetition, summarised; nil when the
// sides were not measured the same number of times (or b has a zero).
func pairs(a, b []float64) (diff, ratio *Stat) {
	if len(a) != len(b) || len(a) == 0 || slices.Contains(b, 0) {
		return nil, nil
	}
	d, q := make([]float64, len(a)), make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
		q[i] = a[i] / b[i]
	}
	return stat(d), stat(q)
}

// judged returns the per-repetition values target t is judged on, and the
// medians they come from.
func (r *runner) judged(t target, f Figure) (*Stat, string) {
	v := r.vals[f.ID]
	med := func(s *Stat) string {
		if s == nil {
			return "–"
		}
		return fmtNum(s.Median)
	}
	switch t.on {
	case "diff":
		return f.Diff, ""
	case "ratio":
		return f.Ratio, ""
	case "gateway":
		return f.Gateway, ""
	case "floorDiff":
		d, _ := pairs(v["gateway"], v["floor"])
		return d, fmt.Sprintf("gateway − direct %s, floor − direct %s; gateway − floor per repetition", med(f.Diff), med(f.FloorDiff))
	case "floorRatio":
		_, q := pairs(v["gateway"], v["floor"])
		return q, fmt.Sprintf("gateway %s, floor %s, direct %s", med(f.Gateway), med(f.Floor), med(f.Direct))
	case "refRatio":
		ref := r.vals[t.ref]["gateway"]
		d, q := pairs(v["gateway"], ref)
		return q, fmt.Sprintf("%s %s, %s %s; ratio per repetition (difference %s µs)", f.ID, med(f.Gateway), t.ref, med(stat(ref)), med(d))
	}
	return nil, ""
}

func stat(v []float64) *Stat {
	if len(v) == 0 {
		return nil
	}
	s := slices.Clone(v)
	slices.Sort(s)
	reps := make([]float64, len(v))
	for i, x := range v {
		reps[i] = round(x)
	}
	return &Stat{Median: round(percentile(s, 50)), Min: round(s[0]), Max: round(s[len(s)-1]), Reps: reps}
}

// percentile returns the p-th percentile (nearest rank) of v.
func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if p == 50 && len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(k, len(s)-1))]
}

// round keeps 3 significant decimals for small values, fewer for large.
func round(x float64) float64 {
	switch a := math.Abs(x); {
	case a >= 100:
		return math.Round(x*10) / 10
	case a >= 1:
		return math.Round(x*1000) / 1000
	default:
		return math.Round(x*100000) / 100000
	}
}

func host() Host {
	h := Host{CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	return h
}

// tree names the gateway source measured: the commit, and the files that
// differ from it (other work in progress is measured too).
func tree() string {
	root, err := moduleRoot()
	if err != nil {
		return ""
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		out, _ := cmd.Output()
		return strings.TrimRight(string(out), "\n")
	}
	desc := git("describe", "--always", "--dirty")
	var changed []string
	for _, line := range strings.Split(git("status", "--porcelain", "--", ".", ":!bench"), "\n") {
		if len(line) > 3 {
			changed = append(changed, line[3:])
		}
	}
	if len(changed) > 0 {
		desc += "; changed: " + strings.Join(changed, " ")
	}
	return desc
}

// WriteJSON writes the results, indented.
func (res *Results) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// tableHeader and tableRow are the columns of both tables.
var tableHeader = []string{"figure", "unit", "direct", "gateway", "gateway − direct", "gateway / direct",
	"floor proxy", "floor − direct", "floor / direct", "target"}

func tableRow(f Figure) []string {
	status := ""
	if f.Met != nil {
		status = f.Target + ": "
		if *f.Met {
			status += "met"
		} else {
			status += "MISSED"
		}
	}
	return []string{f.Name, f.Unit, fmtStat(f.Direct), fmtStat(f.Gateway), fmtStat(f.Diff), fmtRatio(f.Ratio),
		fmtStat(f.Floor), fmtStat(f.FloorDiff), fmtRatio(f.FloorRatio), status}
}

func (res *Results) heading() string {
	return fmt.Sprintf("mcp-gateway benchmark, %s; %d CPUs (%s), %s; %d repetition(s): median (min–max)",
		res.Time, res.Host.CPUs, res.Host.CPUModel, res.Host.GoVersion, res.Sizes.Reps)
}

func (t TargetRow) line() string {
	status := "met"
	if !t.Met {
		status = "MISSED"
	}
	s := fmt.Sprintf("%s: %s (measured %s %s", status, t.Target, fmtNum(t.Measured), t.Unit)
	if t.Detail != "" {
		s += "; " + t.Detail
	}
	return s + ")"
}

// WriteTable prints the figures and the targets.
func (res *Results) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "%s\ntree: %s\nclient: %s\n\n", res.heading(), res.Tree, res.Client)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(tableHeader, "\t")+"\t")
	for _, f := range res.Figures {
		fmt.Fprintln(tw, strings.Join(tableRow(f), "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, t := range res.Targets {
		fmt.Fprintln(w, "target "+t.line())
	}
	fmt.Fprintf(w, "\n%.1f s\n", res.ElapsedSeconds)
}

// WriteMarkdown prints the figures and the targets as Markdown, for
// bench/README.md.
func (res *Results) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "%s; tree `%s`; %.0f s.\n\n", res.heading(), res.Tree, res.ElapsedSeconds)
	fmt.Fprintf(w, "| %s |\n|", strings.Join(tableHeader, " | "))
	for range tableHeader {
		fmt.Fprint(w, " --- |")
	}
	fmt.Fprintln(w)
	for _, f := range res.Figures {
		fmt.Fprintf(w, "| %s |\n", strings.ReplaceAll(strings.Join(tableRow(f), " | "), "`", ""))
	}
	fmt.Fprintln(w)
	for _, t := range res.Targets {
		fmt.Fprintf(w, "- %s\n", t.line())
	}
}

func fmtStat(s *Stat) string {
	if s == nil {
		return "–"
	}
	if len(s.Reps) == 1 {
		return fmtNum(s.Median)
	}
	return fmt.Sprintf("%s (%s–%s)", fmtNum(s.Median), fmtNum(s.Min), fmtNum(s.Max))
}

func fmtRatio(s *Stat) string {
	if s == nil {
		return "–"
	}
	if len(s.Reps) == 1 {
		return fmt.Sprintf("%.2f×", s.Median)
	}
	return fmt.Sprintf("%.2f× (%.2f–%.2f)", s.Median, s.Min, s.Max)
}

func fmtNum(x float64) string {
	switch a := math.Abs(x); {
	case a >= 1000:
		return fmt.Sprintf("%.0f", x)
	case a >= 100:
		return fmt.Sprintf("%.0f", x)
	case a >= 10:
		return fmt.Sprintf("%.1f", x)
	default:
		return fmt.Sprintf("%.2f", x)
	}
}
