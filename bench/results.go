package bench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
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
	case "refDiff":
		ref := r.vals[t.ref]
		d := stat(diffs(diffs(v["gateway"], v["direct"]), diffs(ref["gateway"], ref["direct"])))
		return d, fmt.Sprintf("%s added %s µs, %s added %s µs; the difference per repetition", f.ID, med(f.Diff), t.ref, med(stat(diffs(ref["gateway"], ref["direct"]))))
	case "refRatio":
		ref := r.vals[t.ref]["gateway"]
		d, q := pairs(v["gateway"], ref)
		return q, fmt.Sprintf("%s %s, %s %s; ratio per repetition (difference %s µs)", f.ID, med(f.Gateway), t.ref, med(stat(ref)), med(d))
	}
	return nil, ""
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
