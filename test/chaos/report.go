package chaos

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Report is what one run found.
type Report struct {
	Seed          uint64
	LoadTime      time.Duration
	Outcomes      []outcome
	Faults        map[string]int
	Bodies        map[string]int // bad bodies: what was sent -> the status
	Before, After *sample
	Samples       []sample
	Health        string        // /health just before the stop
	Seen          int           // processes seen under the daemon
	Left          []proc        // of them (and of the marked), those alive stopGrace after the stop
	AtStop        int           // how many were alive when the stop returned
	Gone          time.Duration // how long after the stop the last of them was gone
	Log           logCheck
	Failures      []string
	Soak          bool // a steady load: the samples' slopes mean something
	// Drained is how long after the load the connections to the HTTP
	// servers were back to the baseline's.
	Drained time.Duration
}

// Counts is the calls by outcome.
func (r *Report) Counts() map[string]int {
	m := map[string]int{}
	for _, o := range r.Outcomes {
		m[o.class]++
	}
	return m
}

// Latency is the p50, p99 and max of every call's duration.
func (r *Report) Latency() (p50, p99, worst time.Duration) {
	if len(r.Outcomes) == 0 {
		return 0, 0, 0
	}
	d := make([]time.Duration, len(r.Outcomes))
	for i, o := range r.Outcomes {
		d[i] = o.took
	}
	slices.Sort(d)
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return at(0.50), at(0.99), d[len(d)-1]
}

// Slopes are the least-squares slopes of the samples per hour: goroutines,
// fds and RssAnon (KiB).
func (r *Report) Slopes() (goroutines, fds, rssKiB float64) { return slopes(r.Samples) }

// LateSlopes are Slopes of the second half of the samples: a heap that
// grows to its working size in the first minutes makes the whole run's
// RssAnon slope up without a leak; a leak shows here too.
func (r *Report) LateSlopes() (goroutines, fds, rssKiB float64) {
	return slopes(r.Samples[len(r.Samples)/2:])
}

func slopes(samples []sample) (goroutines, fds, rssKiB float64) {
	xs := make([]float64, len(samples))
	g, f, m := make([]float64, len(samples)), make([]float64, len(samples)), make([]float64, len(samples))
	for i, s := range samples {
		xs[i] = s.At.Hours()
		g[i], f[i], m[i] = float64(s.Goroutines), float64(s.FDs), float64(s.RssAnonKiB)
	}
	return slope(xs, g), slope(xs, f), slope(xs, m)
}

// slope is the least-squares slope of ys over xs (0 for fewer than 2).
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

func (r *Report) print(w io.Writer) {
	fmt.Fprintf(w, "\n== chaos report (seed %d) ==\n", r.Seed)
	n := len(r.Outcomes)
	rate := 0.0
	if r.LoadTime > 0 {
		rate = float64(n) / r.LoadTime.Seconds()
	}
	fmt.Fprintf(w, "calls: %d in %v (%.0f/s)\n", n, r.LoadTime.Round(time.Millisecond), rate)
	counts := r.Counts()
	fmt.Fprintf(w, "  by outcome:")
	for _, k := range sortedKeys(counts) {
		fmt.Fprintf(w, " %s %d", k, counts[k])
	}
	fmt.Fprintln(w)
	byKind := map[string]map[string]int{}
	for _, o := range r.Outcomes {
		k := o.kind + " " + o.era
		if byKind[k] == nil {
			byKind[k] = map[string]int{}
		}
		byKind[k][o.class]++
	}
	for _, k := range sortedKeys(byKind) {
		fmt.Fprintf(w, "  %-28s", k)
		for _, c := range sortedKeys(byKind[k]) {
			fmt.Fprintf(w, " %s %d", c, byKind[k][c])
		}
		fmt.Fprintln(w)
	}
	p50, p99, worst := r.Latency()
	fmt.Fprintf(w, "latency: p50 %v, p99 %v, max %v\n", p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond), worst.Round(time.Millisecond))
	if len(r.Faults) > 0 {
		total := 0
		for _, v := range r.Faults {
			total += v
		}
		fmt.Fprintf(w, "faults: %d:", total)
		for _, k := range sortedKeys(r.Faults) {
			fmt.Fprintf(w, " %s %d", k, r.Faults[k])
		}
		fmt.Fprintln(w)
	}
	if len(r.Bodies) > 0 {
		fmt.Fprintf(w, "bad bodies:")
		for _, k := range sortedKeys(r.Bodies) {
			fmt.Fprintf(w, " [%s] %d", k, r.Bodies[k])
		}
		fmt.Fprintln(w)
	}
	type seen struct {
		n           int
		first, last time.Duration
	}
	errs := map[string]*seen{}
	for _, o := range r.Outcomes {
		if o.class == outErrNamed || o.class == outToolError {
			code, rest, _ := strings.Cut(o.detail, " ") // the code stays
			k := fmt.Sprintf("%s %s %s: %s", o.class, o.era, o.server, shorten(code+" "+digits.ReplaceAllString(rest, "#")))
			if errs[k] == nil {
				errs[k] = &seen{first: o.at}
			}
			errs[k].n++
			errs[k].first, errs[k].last = min(errs[k].first, o.at), max(errs[k].last, o.at)
		}
	}
	if len(errs) > 0 {
		fmt.Fprintln(w, "errors and tool errors, by era, server and message (first and last seen, since the run's start):")
		keys := sortedKeys(errs)
		slices.SortStableFunc(keys, func(a, b string) int { return errs[b].n - errs[a].n })
		for i, k := range keys {
			if i == 20 {
				fmt.Fprintf(w, "  … %d more kinds\n", len(keys)-i)
				break
			}
			e := errs[k]
			fmt.Fprintf(w, "  %5d  %s (%.0fs-%.0fs)\n", e.n, k, e.first.Seconds(), e.last.Seconds())
		}
	}
	fmt.Fprintf(w, "resources: before %s\n", r.Before)
	if r.After != nil {
		fmt.Fprintf(w, "           after  %s (back within %v of the load's end; connections to the HTTP servers back within %v)\n",
			r.After, r.After.settledIn.Round(time.Millisecond), r.Drained.Round(time.Millisecond))
	}
	if len(r.Samples) > 0 {
		peak := r.Samples[0]
		for _, s := range r.Samples {
			peak.Goroutines, peak.FDs, peak.RssAnonKiB = max(peak.Goroutines, s.Goroutines), max(peak.FDs, s.FDs), max(peak.RssAnonKiB, s.RssAnonKiB)
		}
		fmt.Fprintf(w, "           peak   %s (%d samples)\n", &peak, len(r.Samples))
		if r.Soak {
			g, f, m := r.Slopes()
			fmt.Fprintf(w, "slopes per hour: goroutines %+.2f, fds %+.2f, RssAnon %+.2f MiB\n", g, f, m/1024)
			g, f, m = r.LateSlopes()
			fmt.Fprintf(w, "  second half:   goroutines %+.2f, fds %+.2f, RssAnon %+.2f MiB\n", g, f, m/1024)
		}
	}
	fmt.Fprintf(w, "processes: %d seen under the daemon, %d alive as the stop returned, %d left %v after it (all gone within %v)\n",
		r.Seen, r.AtStop, len(r.Left), stopGrace, r.Gone.Round(time.Millisecond))
	fmt.Fprintf(w, "log: %s\n", r.Log.summary)
	if len(r.Failures) == 0 {
		fmt.Fprintln(w, "checks: all passed")
		return
	}
	fmt.Fprintf(w, "checks: %d FAILED\n", len(r.Failures))
	for i, f := range r.Failures {
		if i == 40 {
			fmt.Fprintf(w, "  … %d more\n", len(r.Failures)-i)
			break
		}
		fmt.Fprintf(w, "  - %s\n", shorten(f))
	}
}

// digits are the numbers in an error message (ports, times, ids), put
// aside to count messages by kind.
var digits = regexp.MustCompile(`[0-9]+`)

// shorten keeps a message to one line of at most 240 bytes.
func shorten(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 240 {
		return s[:240] + "…"
	}
	return s
}

// logCheck is what the log says about the servers' lines (SPEC §7.4).
type logCheck struct {
	summary  string
	failures []string
}

// banners is the stderr line each gateway-started server writes at every
// start.
var banners = map[string]string{
	srvEverything: "Starting default (STDIO) server",
	srvFilesystem: "Secure MCP Filesystem Server running on stdio",
	srvMemory:     "Knowledge Graph MCP Server running on stdio",
	srvThinking:   "Sequential Thinking MCP Server running on stdio",
	srvWebrun:     "MCP Streamable HTTP Server listening on port",
}

// checkLog checks that every start of a server the gateway reported ready
// has that server's banner in the log, prefixed with its name, and that no
// server's lines were dropped for its share.
func checkLog(lines []string) logCheck {
	ready, seen := map[string]int{}, map[string]int{}
	drops := 0
	for _, l := range lines {
		for s, b := range banners {
			if strings.Contains(l, "["+s+"] "+b) {
				seen[s]++
			}
			if strings.Contains(l, `msg="server ready" server=`+s+" ") {
				ready[s]++
			}
		}
		if strings.Contains(l, `msg="dropped `) {
			drops++
		}
	}
	var c logCheck
	var parts []string
	for _, s := range sortedKeys(banners) {
		parts = append(parts, fmt.Sprintf("%s %d ready/%d banners", s, ready[s], seen[s]))
		if seen[s] < ready[s] || ready[s] == 0 {
			c.failures = append(c.failures, fmt.Sprintf("log: %s was ready %d times but its banner is in the log %d times", s, ready[s], seen[s]))
		}
	}
	if drops > 0 {
		c.failures = append(c.failures, fmt.Sprintf("log: %d reports of dropped lines", drops))
	}
	c.summary = fmt.Sprintf("%d lines; %s; %d drop reports", len(lines), strings.Join(parts, ", "), drops)
	return c
}
