package toolsearch

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// benchQueries are the tuning tasks: what agents ask.
func benchQueries() []Query {
	var qs []Query
	for _, task := range tasks {
		qs = append(qs, Query{Text: task.ask})
	}
	return qs
}

// BenchmarkSearchTools is search_tools' search over 1,000 tools (the real
// set ×10 and a little, distinct names; SPEC §4.10's target: under 1 ms),
// one query per op, cycling through the tasks; it reports p50 and p99 per
// query, and the Result bytes are built too (what the call returns).
func BenchmarkSearchTools(b *testing.B) {
	ix := New(thousand(b, 1000))
	qs := benchQueries()
	ds := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		q := qs[i%len(qs)]
		_ = Result(q, ix.Search(q))
		ds = append(ds, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Nanoseconds())/1e3, "p50-µs")
	b.ReportMetric(float64(ds[len(ds)*99/100].Nanoseconds())/1e3, "p99-µs")
}

// BenchmarkIndexBuild is New over 1,000 tools: what a list change costs.
func BenchmarkIndexBuild(b *testing.B) {
	tools := thousand(b, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = New(tools)
	}
}

// BenchmarkToolsListBytes reports the bytes of tools/list's tools for the
// real set in both modes (SPEC §4.10): every definition, against
// search_tools and call_tool alone.
func BenchmarkToolsListBytes(b *testing.B) {
	tools := realSet(b)
	var all bytes.Buffer
	for i := 0; i < b.N; i++ {
		all.Reset()
		all.WriteString(`{"tools":[`)
		for j, t := range tools {
			if j > 0 {
				all.WriteByte(',')
			}
			all.Write(t.Definition)
		}
		all.WriteString(`]}`)
	}
	ix := New(tools)
	servers, _ := ix.Servers()
	search := `{"tools":[` + string(SearchToolsDefinition(len(tools), servers)) + `,` + string(CallToolDefinition) + `]}`
	b.ReportMetric(float64(all.Len()), "all-bytes")
	b.ReportMetric(float64(len(search)), "search-bytes")
	b.ReportMetric(float64(len(tools)), "tools")
}
