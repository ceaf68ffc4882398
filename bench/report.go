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
	// net/http-to-stdio proxy: what HTTP itself costs. FloorRatio is
	// floor / direct per repetition.
	Floor      *Stat  `json:"floor,omitempty"`
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
}

type target struct {
	on    string // "diff", "ratio" or "gateway": which median is judged
	max   bool   // true: ≤ limit; false: ≥ limit
	limit float64
	text  string
}

type figDef struct {
	id, name, unit string
	t              *target
	note           string
}

func (cfg Config) figDefs() []figDef {
	n := cfg.Concurrency
	seq := fmt.Sprintf("%d sequential tools/call", cfg.Calls)
	var defs []figDef
	defs = append(defs,
		figDef{"seq.echo.p50", seq + ", Go echo: p50", "µs", &target{"diff", true, 150, "added p50 ≤ 150 µs"}, ""},
		figDef{"seq.echo.p99", seq + ", Go echo: p99", "µs", nil, ""},
		figDef{"seq.echo.tcpclient.p50", seq + ", Go echo: p50 with TCPSession (no net/http Transport)", "µs", nil,
			"the same calls from a client that reads and writes its connection itself: the part of the added latency that is net/http's client"},
		figDef{"seq.everything.p50", seq + ", server-everything echo: p50", "µs", nil, ""},
		figDef{"seq.everything.p99", seq + ", server-everything echo: p99", "µs", nil, ""},
		figDef{"cpu.seq.client", "CPU per sequential call: load generator", "µs", nil,
			"direct: StdioClient; gateway: raw net/http HTTPClient (keep-alive, SSE or JSON)"},
		figDef{"cpu.seq.daemon", "CPU per sequential call: gateway daemon (floor: the floor proxy)", "µs", nil, "from /proc/<pid>/task/*/schedstat"},
		figDef{"cpu.seq.upstream", "CPU per sequential call: Go echo", "µs", nil, "from /proc/<pid>/task/*/schedstat"},
		figDef{"client.sdk.cpu", "CPU per call of go-sdk's client (instead of HTTPClient)", "µs", nil,
			"compare with cpu.seq.client gateway: the reason the load generator uses raw net/http"},
		figDef{"client.sdk.p50", "p50 through the gateway with go-sdk's client, Go echo", "µs", nil, ""},
		figDef{"tput.1session", fmt.Sprintf("Throughput, %d clients, 1 session", n), "calls/s", &target{"ratio", false, 0.6, "≥ 60% of direct"},
			fmt.Sprintf("direct: %d calls in flight on one stdio pipe", n)},
		figDef{"tput.sessions", fmt.Sprintf("Throughput, %d clients, %d sessions", n, n), "calls/s", &target{"ratio", false, 0.6, "≥ 60% of direct"},
			"direct: the same measurement as above"},
		figDef{"cpu.tput.client", fmt.Sprintf("CPU per call at %d clients: load generator", n), "µs", nil, fmt.Sprintf("gateway side: %d sessions", n)},
		figDef{"cpu.tput.daemon", fmt.Sprintf("CPU per call at %d clients: gateway daemon (floor: the floor proxy)", n), "µs", nil, ""},
		figDef{"cpu.tput.upstream", fmt.Sprintf("CPU per call at %d clients: Go echo", n), "µs", nil, ""},
	)
	for i, s := range cfg.ReadyServers {
		d := figDef{fmt.Sprintf("ready.%d", s), fmt.Sprintf("Ready time, %d server(s) with a %s start delay", s, cfg.StartDelay), "ms", nil,
			"direct: slowest of the servers spawned in parallel, spawn → initialize response; gateway: `mcp-gateway --config` start → exit 0"}
		if i == len(cfg.ReadyServers)-1 {
			d.t = &target{"diff", true, 50, "≤ slowest server + 50 ms"}
		}
		defs = append(defs, d)
	}
	defs = append(defs,
		figDef{"mem.idle.rss", fmt.Sprintf("Daemon VmRSS, idle, %d servers", cfg.MemServers), "MiB", &target{"gateway", true, 15, "≤ 15 MiB"}, ""},
		figDef{"mem.idle.hwm", fmt.Sprintf("Daemon VmHWM, idle, %d servers", cfg.MemServers), "MiB", nil, ""},
		figDef{"mem.idle.anon", fmt.Sprintf("Daemon RssAnon, idle, %d servers", cfg.MemServers), "MiB", nil,
			"VmRSS minus the mapped pages of the executable (RssFile), which every mcp-gateway process shares"},
		figDef{"mem.sessions.rss", fmt.Sprintf("Daemon VmRSS after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", &target{"gateway", true, 40, "≤ 40 MiB"},
			"sessions opened at once and still open when measured"},
		figDef{"mem.sessions.hwm", fmt.Sprintf("Daemon VmHWM after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", nil, ""},
		figDef{"mem.sessions.anon", fmt.Sprintf("Daemon RssAnon after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", nil, ""},
		figDef{"mem.sessions.retries", "503s retried while opening those sessions, 16 at a time", "count", nil,
			"a 503 below the cap: sessionCap counts a session twice while its initialize is in flight"},
		figDef{"mem.shim.rss", "Shim VmRSS, per server (not the daemon's)", "MiB", nil, "one `mcp-gateway __shim` process per server"},
		figDef{"mem.shim.anon", "Shim RssAnon, per server: its own memory", "MiB", nil, "the rest of its VmRSS is the shared executable"},
		figDef{"mem.upstream.rss", "Go echo VmRSS, per server", "MiB", nil, ""},
		figDef{"big.result", fmt.Sprintf("%s result, round trip", size(cfg.BigBytes)), "ms", &target{"ratio", true, 2, "≤ 2× direct"}, ""},
		figDef{"big.argument", fmt.Sprintf("%s argument, round trip", size(cfg.BigBytes)), "ms", &target{"ratio", true, 2, "≤ 2× direct"}, ""},
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
		if dv, gv := v["direct"], v["gateway"]; len(dv) == len(gv) && len(dv) > 0 && !slices.Contains(dv, 0) {
			diff, ratio := make([]float64, len(dv)), make([]float64, len(dv))
			for i := range dv {
				diff[i] = gv[i] - dv[i]
				ratio[i] = gv[i] / dv[i]
			}
			f.Diff, f.Ratio = stat(diff), stat(ratio)
		}
		f.Floor = stat(v["floor"])
		if dv, fv := v["direct"], v["floor"]; len(dv) == len(fv) && len(dv) > 0 && !slices.Contains(dv, 0) {
			ratio := make([]float64, len(dv))
			for i := range dv {
				ratio[i] = fv[i] / dv[i]
			}
			f.FloorRatio = stat(ratio)
		}
		if d.t != nil {
			var s *Stat
			switch d.t.on {
			case "diff":
				s = f.Diff
			case "ratio":
				s = f.Ratio
			default:
				s = f.Gateway
			}
			if s != nil {
				met := s.Median <= d.t.limit
				if !d.t.max {
					met = s.Median >= d.t.limit
				}
				f.Target, f.Met = d.t.text, &met
				unit := d.unit
				if d.t.on == "ratio" {
					unit = "×"
				}
				res.Targets = append(res.Targets, TargetRow{Target: d.name + ": " + d.t.text, Figure: d.id, Measured: round(s.Median), Unit: unit, Met: met})
			}
		}
		res.Figures = append(res.Figures, f)
	}
	return res
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

// WriteTable prints the figures and the targets.
func (res *Results) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "mcp-gateway benchmark, %s; %d CPUs (%s), %s; %d repetition(s): median (min–max)\n",
		res.Time, res.Host.CPUs, res.Host.CPUModel, res.Host.GoVersion, res.Sizes.Reps)
	fmt.Fprintf(w, "tree: %s\nclient: %s\n\n", res.Tree, res.Client)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tunit\tdirect\tgateway\tgateway − direct\tgateway / direct\ttarget\tfloor proxy (/ direct)\t")
	for _, f := range res.Figures {
		status := ""
		if f.Met != nil {
			status = f.Target + ": "
			if *f.Met {
				status += "met"
			} else {
				status += "MISSED"
			}
		}
		floor := fmtStat(f.Floor)
		if f.FloorRatio != nil {
			floor += fmt.Sprintf(" (%.2f×)", f.FloorRatio.Median)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", f.Name, f.Unit, fmtStat(f.Direct), fmtStat(f.Gateway), fmtStat(f.Diff), fmtRatio(f.Ratio), status, floor)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, t := range res.Targets {
		status := "met"
		if !t.Met {
			status = "MISSED"
		}
		fmt.Fprintf(w, "target %-6s %s (measured %s %s)\n", status, t.Target, fmtNum(t.Measured), t.Unit)
	}
	fmt.Fprintf(w, "\n%.1f s\n", res.ElapsedSeconds)
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
