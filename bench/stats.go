package bench

import (
	"math"
	"slices"
	"time"
)

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

// diffs is a − b per repetition; nil when the sides were not measured
// the same number of times.
func diffs(a, b []float64) []float64 {
	if len(a) != len(b) || len(a) == 0 {
		return nil
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
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

func micros(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
func millis(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
func mib(kib int64) float64          { return float64(kib) / 1024 }

func perCall(d time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return micros(d) / float64(n)
}
