package bench

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// The verdicts of an A/B run (ab.go): each judged figure of each side
// against the side it is compared with, the tree's build and each variant
// against Config.Baseline, and each variant against the tree's build.
//
// The sides are measured interleaved (at once, taking turns), so that the
// machine's load, which moves a figure by more than the differences being
// judged from one repetition to the next, hits both alike. A verdict pairs
// what was measured back to back: for the sequential p50s the p50 of each
// block of calls (interleaved's blocks), for throughput each window
// (rates' rounds), for the large messages each call, and for the figures
// measured once a repetition (ready time, memory) the repetitions. It is
// judged on the median over the pairs of side / against, which drops the
// pairs a burst of noise hit: "same" within 1 ± the figure's tolerance,
// set above what A/A runs (the tree's build as its own baseline) showed
// on the shared 2-core machine; beyond it, "worse" or "better" in the
// figure's direction (lower is better except for a rate), but only if
// the pairs agree on the sign (judge), else "noisy".

// judgedPairs are the pairs a verdict on figure id of side against
// against is judged on: the samples, or else the repetitions' values.
func (r *runner) judgedPairs(id, side, against string) (a, b []float64) {
	a, b = r.samples[id][side], r.samples[id][against]
	if len(a) == 0 || len(a) != len(b) {
		a, b = r.vals[id][side], r.vals[id][against]
	}
	return a, b
}

// abFigure is a figure the verdicts judge, and its tolerance (0.05: a
// median ratio within 1 ± 5 % is the same).
type abFigure struct {
	id  string
	tol float64
}

// abFigures are the figures the verdicts judge: what the open issues
// compare with an older build (the sequential p50s, go-sdk's client,
// throughput, the large messages, the daemon's memory, ready time). The
// handler-CPU figure runs the tree's code in this process and has no
// baseline.
func (cfg Config) abFigures() []abFigure {
	fs := []abFigure{
		{"seq.echo.p50", 0.05}, {"seq.echo.modern.p50", 0.05},
		{"seq.everything.p50", 0.05},
		{"client.sdk.p50", 0.05}, {"client.sdk.modern.p50", 0.05},
		{"tput.1session", 0.10}, {"tput.sessions", 0.10}, {"tput.modern", 0.10},
	}
	for _, n := range cfg.ReadyServers {
		fs = append(fs, abFigure{fmt.Sprintf("ready.%d", n), 0.05})
	}
	return append(fs,
		abFigure{"mem.idle.anon", 0.05}, abFigure{"mem.sessions.anon", 0.15},
		abFigure{"big.result", 0.15}, abFigure{"big.argument", 0.15}, abFigure{"big.objects", 0.15})
}

// Verdict compares one figure of two gateway sides.
type Verdict struct {
	Figure    string `json:"figure"` // the figure's id
	Name      string `json:"name"`
	Unit      string `json:"unit"`
	Side      string `json:"side"`      // "gateway" (the tree's build) or a variant
	Against   string `json:"against"`   // "baseline", or "gateway" for a variant
	Value     *Stat  `json:"value"`     // the side's
	Reference *Stat  `json:"reference"` // the against side's
	Diff      *Stat  `json:"diff"`      // side − against, per repetition
	Ratio     *Stat  `json:"ratio"`     // side / against, per repetition
	// Judged is the ratio the verdict is on: the median of side / against
	// over Pairs pairs measured back to back, Low–High its 95 % interval
	// (medianInterval).
	Judged    float64 `json:"judged"`
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	Pairs     int     `json:"pairs"`
	Better    string  `json:"better"`    // "lower" or "higher"
	Tolerance float64 `json:"tolerance"` // relative: 0.05 is ± 5 %
	Verdict   string  `json:"verdict"`   // "same", "better", "worse", "noisy" (judge); "unjudged" on fewer than minPairs pairs
}

// twins are d's twin rows: one per gateway side other than the tree's
// build that measured it (Figure).
func (r *runner) twins(d figDef) []Figure {
	var out []Figure
	v := r.vals[d.id]
	for _, side := range r.cfg.extraSides() {
		if v[side] == nil {
			continue
		}
		f := Figure{ID: d.id + "@" + side, Side: side, Name: d.name + " — gateway (" + side + ")", Unit: d.unit,
			Direct: stat(v["direct"]), Gateway: stat(v[side])}
		f.Diff, f.Ratio = pairs(v[side], v["direct"])
		out = append(out, f)
	}
	return out
}

// comparisons are the pairs of sides the verdicts compare: side, against.
func (cfg Config) comparisons() [][2]string {
	var cs [][2]string
	if cfg.Baseline != "" {
		cs = append(cs, [2]string{sideGateway, sideBaseline})
		for _, v := range cfg.Variants {
			cs = append(cs, [2]string{v.Name, sideBaseline})
		}
	}
	for _, v := range cfg.Variants {
		cs = append(cs, [2]string{v.Name, sideGateway})
	}
	return cs
}

// verdicts judges every abFigure measured on both sides of each
// comparison.
func (r *runner) verdicts() []Verdict {
	defs := map[string]figDef{}
	for _, d := range r.cfg.figDefs() {
		defs[d.id] = d
	}
	var out []Verdict
	for _, c := range r.cfg.comparisons() {
		for _, f := range r.cfg.abFigures() {
			d, ok := defs[f.id]
			side, against := r.vals[f.id][c[0]], r.vals[f.id][c[1]]
			diff, ratio := pairs(side, against)
			q := ratios(r.judgedPairs(f.id, c[0], c[1]))
			if !ok || ratio == nil || len(q) == 0 {
				continue
			}
			v := Verdict{Figure: f.id, Name: d.name, Unit: d.unit, Side: c[0], Against: c[1],
				Value: stat(side), Reference: stat(against), Diff: diff, Ratio: ratio,
				Pairs: len(q), Better: "lower", Tolerance: f.tol}
			if d.unit == "calls/s" {
				v.Better = "higher"
			}
			v.Judged, v.Low, v.High = medianInterval(q)
			v.Verdict = judge(v.Judged, v.Low, v.High, f.tol, v.Better == "higher")
			if v.Pairs < minPairs {
				v.Verdict = "unjudged"
			}
			out = append(out, v)
		}
	}
	return out
}

// ratios is a[i] / b[i] for each pair; nil unless a and b pair up with
// no zero in b.
func ratios(a, b []float64) []float64 {
	if len(a) != len(b) || slices.Contains(b, 0) {
		return nil
	}
	q := make([]float64, len(a))
	for i := range a {
		q[i] = a[i] / b[i]
	}
	return q
}

// medianInterval returns the median of v and an interval around it of
// about 95 %, free of any assumption on v's distribution: the order
// statistics k and n+1−k, k = ⌊(n − 1.96√n) / 2⌋ (at least the first),
// as the sign test gives it. Rounded as a Stat is.
func medianInterval(v []float64) (med, lo, hi float64) {
	s := slices.Sorted(slices.Values(v))
	k := max(1, int(math.Floor((float64(len(s))-1.96*math.Sqrt(float64(len(s))))/2)))
	return round(percentile(s, 50)), round(s[k-1]), round(s[len(s)-k])
}

// minPairs is the fewest pairs a verdict is given on: a run of one
// repetition (-short) judges nothing measured once a repetition.
const minPairs = 3

// judge is the verdict on the median ratio (side / against) of the pairs
// and its interval lo–hi, with tolerance tol: "same" within 1 ± tol;
// beyond it, "worse" or "better" in the figure's direction if the
// interval is all on that side of 1 (the pairs agree on the sign), else
// "noisy": the pairs scatter too much to tell.
func judge(med, lo, hi, tol float64, higherIsBetter bool) string {
	up, down := med > 1+tol, med < 1-tol
	switch {
	case up && lo <= 1, down && hi >= 1:
		return "noisy"
	case up && higherIsBetter, down && !higherIsBetter:
		return "better"
	case up, down:
		return "worse"
	}
	return "same"
}

// verdictHeader and row are the columns of the verdicts' table.
var verdictHeader = []string{"figure", "unit", "side", "against", "side value", "against value",
	"side − against", "side / against", "judged: median (95 % interval) of pairs", "better", "same within", "verdict"}

func (v Verdict) row() []string {
	verdict := v.Verdict
	if verdict == "worse" {
		verdict = "WORSE"
	}
	return []string{v.Name, v.Unit, v.Side, v.Against, fmtStat(v.Value), fmtStat(v.Reference), fmtStat(v.Diff), fmtRatio(v.Ratio),
		fmt.Sprintf("%.3f× (%.3f–%.3f) of %d", v.Judged, v.Low, v.High, v.Pairs), v.Better, fmt.Sprintf("±%.0f %%", v.Tolerance*100), verdict}
}

// sidesText names the gateway sides of an A/B run other than the tree's
// build, a line each, and what their OTLP receivers got; "" when there
// are none.
func (res *Results) sidesText() string {
	sz := res.Sizes
	var b strings.Builder
	if sz.BaselineBinary != "" {
		fmt.Fprintf(&b, "baseline: %s (%s)", sz.BaselineBinary, sz.BaselineVersion)
		if len(sz.BaselineEnv) > 0 {
			fmt.Fprintf(&b, " with %s", strings.Join(sz.BaselineEnv, " "))
		}
		b.WriteString("\n")
	}
	for _, v := range sz.Variants {
		fmt.Fprintf(&b, "variant %s: the tree's build with %s\n", v.Name, strings.Join(v.Env, " "))
	}
	for _, side := range slices.Sorted(maps.Keys(res.OTLP)) {
		o := res.OTLP[side]
		got := "no requests"
		if len(o.Requests) > 0 {
			var by []string
			for _, p := range slices.Sorted(maps.Keys(o.Requests)) {
				by = append(by, fmt.Sprintf("%d to %s", o.Requests[p], p))
			}
			got = strings.Join(by, ", ") + fmt.Sprintf(" (%d bytes)", o.Bytes)
		}
		fmt.Fprintf(&b, "OTLP receiver of %s (%s): %s\n", side, o.URL, got)
	}
	return b.String()
}

// writeVerdicts prints the verdicts as a table, or as Markdown after a
// blank line.
func (res *Results) writeVerdicts(w io.Writer, markdown bool) {
	if len(res.Verdicts) == 0 {
		return
	}
	if markdown {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "A/B: each side against another, in the same run; the verdict is on the median of side / against over the pairs measured back to back\n\n")
	if markdown {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(verdictHeader, " | "), strings.Repeat(" --- |", len(verdictHeader)))
		for _, v := range res.Verdicts {
			fmt.Fprintf(w, "| %s |\n", strings.Join(v.row(), " | "))
		}
		fmt.Fprintln(w)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(verdictHeader, "\t")+"\t")
	for _, v := range res.Verdicts {
		fmt.Fprintln(tw, strings.Join(v.row(), "\t")+"\t")
	}
	tw.Flush()
	fmt.Fprintln(w)
}
