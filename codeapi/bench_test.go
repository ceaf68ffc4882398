package codeapi

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// synthetic is n tools over n/100 servers, each definition shaped like a
// reference server's (a paragraph of description, four parameters of
// which two required, an enum, an array, a nested object): about 900
// bytes each.
func synthetic(n int) Input {
	var in Input
	in.URL, in.TokenFile = "http://127.0.0.1:50005/mcp", "/etc/mcp-gateway/.token"
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			in.Servers = append(in.Servers, Server{Name: fmt.Sprintf("server-%d", i/100), Description: "A server of the benchmark."})
		}
		name := fmt.Sprintf("tool_%d_read_thing", i)
		def := fmt.Sprintf(`{"name":%q,"description":"Read the complete contents of a thing from the store. Handles various encodings and provides detailed error messages if the thing cannot be read. Use this tool when you need to examine the contents of a single thing. Only works within allowed directories.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"The path of the thing."},"encoding":{"type":"string","enum":["utf-8","latin-1","base64"],"description":"How to decode it."},"lines":{"type":"array","items":{"type":"integer"},"description":"Line numbers to return."},"options":{"type":"object","properties":{"follow":{"type":"boolean"},"limit":{"type":"integer"}}}},"required":["path","encoding"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"},"annotations":{"readOnlyHint":true}}`, name)
		s := &in.Servers[len(in.Servers)-1]
		s.Tools = append(s.Tools, Tool{Name: name, Definition: []byte(def)})
	}
	return in
}

// BenchmarkGenerate1000: the tree for 1,000 tools, in memory.
func BenchmarkGenerate1000(b *testing.B) {
	in := synthetic(1000)
	b.ReportAllocs()
	for b.Loop() {
		Generate(in, "/opt/mcp-gateway/code")
	}
}

// benchDir is where the write benchmarks write: a temporary directory,
// or under $CODEAPI_BENCH_DIR (e.g. /dev/shm, to take the disk out).
func benchDir(b *testing.B) string {
	if d := os.Getenv("CODEAPI_BENCH_DIR"); d != "" {
		d, err := os.MkdirTemp(d, "codeapi-bench-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(d) })
		return filepath.Join(d, "code")
	}
	return filepath.Join(b.TempDir(), "code")
}

// BenchmarkWrite1000: regenerating the tree for 1,000 tools on disk, as
// the daemon does at a change of the merged list (SPEC §12.1), until the
// new tree is in place. Target: 50 ms.
//   - Fresh: every file new (the first write at ready; a one-shot Write,
//     the old tree's removal included);
//   - OneServerChanged: one server of ten has new definitions (a reload),
//     with the daemon's Writer (Spare); the work after each write (the
//     replaced tree made the spare again, the pool refilled) is untimed,
//     and reported as after-ms/op;
//   - Unchanged: the same list again (a restart that changed nothing).
func BenchmarkWrite1000(b *testing.B) {
	in := synthetic(1000)
	changed := synthetic(1000)
	for i := range changed.Servers[0].Tools {
		changed.Servers[0].Tools[i].Definition = bytes.Replace(changed.Servers[0].Tools[i].Definition, []byte("Read the"), []byte("Read a"), 1)
	}
	b.Run("Fresh", func(b *testing.B) {
		dir := benchDir(b)
		for b.Loop() {
			if err := Write(dir, in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("OneServerChanged", func(b *testing.B) {
		w := &Writer{Dir: benchDir(b), Spare: true}
		b.Cleanup(func() { _ = w.Close() })
		if err := errors.Join(w.Write(in), w.Wait()); err != nil {
			b.Fatal(err)
		}
		inputs := []Input{changed, in}
		var after time.Duration
		i := 0
		for b.Loop() {
			if err := w.Write(inputs[i%2]); err != nil {
				b.Fatal(err)
			}
			i++
			b.StopTimer()
			start := time.Now()
			if err := w.Wait(); err != nil {
				b.Fatal(err)
			}
			after += time.Since(start)
			b.StartTimer()
		}
		b.ReportMetric(float64(after.Milliseconds())/float64(i), "after-ms/op")
	})
	b.Run("Unchanged", func(b *testing.B) {
		w := &Writer{Dir: benchDir(b), Spare: true}
		b.Cleanup(func() { _ = w.Close() })
		if err := errors.Join(w.Write(in), w.Wait()); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := w.Write(in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
