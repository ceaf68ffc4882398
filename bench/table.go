package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

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
