package bench

// In-process benchmarks, for profiling the gateway: the daemon is a
// separate process in Run, so these build the same pieces it does
// (StartInproc, inproc.go) behind an httptest server, with the Go echo as
// the upstream. The load generator runs in the same process, so
// its frames (net/http client, HTTPClient) appear in the profile too.
//
//	go test ./bench/ -run '^$' -bench 'Inproc' -cpuprofile cpu.out
//	go tool pprof -top bench.test cpu.out

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// startInproc starts the in-process gateway for b, closed when b ends.
func startInproc(b *testing.B) *endpoint[*Inproc] {
	b.Helper()
	p, err := startInprocGateway(testBinaries(b).Echo)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.close() })
	return p
}

// caller opens a caller of era on e, or fails b.
func caller(b *testing.B, e httpSide, era era) *Session {
	s, err := e.open(context.Background(), era)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func mustCall(b *testing.B, call callFunc, params []byte, want string) {
	res, err := call(context.Background(), "tools/call", params)
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.Contains(res, []byte(want)) {
		b.Fatalf("unexpected result %s", truncate(res, 200))
	}
}

// BenchmarkInprocDirect is the baseline: the Go echo over stdio.
func BenchmarkInprocDirect(b *testing.B) {
	c, err := StartStdio([]string{testBinaries(b).Echo})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Initialize(context.Background()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		mustCall(b, c.Call, echoParams, "hello")
	}
}

// BenchmarkInprocSupervisor is the gateway's upstream half alone:
// Upstream.Call on the stdio connection, no HTTP, no go-sdk.
func BenchmarkInprocSupervisor(b *testing.B) {
	p := startInproc(b)
	u, _ := p.proc.sup.Upstream("echo")
	params := []byte(`{"name":"echo","arguments":{"message":"hello"}}`)
	for b.Loop() {
		res, err := u.Call(context.Background(), "tools/call", params, nil)
		if err != nil || !bytes.Contains(res, []byte("hello")) {
			b.Fatal(err, string(res))
		}
	}
}

// BenchmarkInprocHTTP is one sequential tools/call through the whole
// gateway over loopback HTTP, legacy (in a session) and modern (MCP
// 2026-07-28, no session).
func BenchmarkInprocHTTP(b *testing.B) {
	for _, name := range []string{"legacy", "modern"} {
		b.Run(name, func(b *testing.B) {
			p := startInproc(b)
			s := caller(b, p, eraModern)
			if name == "legacy" {
				s = caller(b, p, eraLegacy)
			}
			for b.Loop() {
				mustCall(b, s.Call, echoParams, "hello")
			}
		})
	}
}

// BenchmarkInprocHTTPParallel is 16 concurrent clients: legacy with one
// shared session or one session each, and modern (MCP 2026-07-28, no
// session). The setup (building the binaries on the first run, starting
// the gateway) is not timed.
func BenchmarkInprocHTTPParallel(b *testing.B) {
	for _, name := range []string{"1session", "16sessions", "modern"} {
		b.Run(name, func(b *testing.B) {
			p := startInproc(b)
			var one *Session
			switch name {
			case "1session":
				one = caller(b, p, eraLegacy)
			case "modern":
				one = caller(b, p, eraModern)
			}
			b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				s := one
				if s == nil {
					s = caller(b, p, eraLegacy)
				}
				for pb.Next() {
					mustCall(b, s.Call, echoParams, "hello")
				}
			})
		})
	}
}

// BenchmarkInprocBig is an 8 MiB result and an 8 MiB argument through the
// gateway (and directly, for the ratio).
func BenchmarkInprocBig(b *testing.B) {
	const n = 8 << 20
	result := []byte(fmt.Sprintf(`{"name":"echo","arguments":{"message":"x","bytes":%d}}`, n))
	argument := []byte(`{"name":"echo","arguments":{"bytes":2,"message":"` + strings.Repeat("abcdefgh", n/8) + `"}}`)
	for _, tc := range []struct {
		name   string
		params []byte
		want   string
	}{{"result", result, "abcdefgh"}, {"argument", argument, `"ab"`}} {
		b.Run(tc.name+"/gateway", func(b *testing.B) {
			p := startInproc(b)
			s := caller(b, p, eraLegacy)
			b.SetBytes(n)
			for b.Loop() {
				mustCall(b, s.Call, tc.params, tc.want)
			}
		})
		b.Run(tc.name+"/direct", func(b *testing.B) {
			c, err := StartStdio([]string{testBinaries(b).Echo})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Initialize(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n)
			for b.Loop() {
				mustCall(b, c.Call, tc.params, tc.want)
			}
		})
	}
}

// BenchmarkInprocFloor is the load generator's HTTPClient against the
// floor proxy (a separate process): its profile is the client's cost.
func BenchmarkInprocFloor(b *testing.B) {
	bin := testBinaries(b)
	f, err := StartFloor(bin.Floor, []string{bin.Echo})
	if err != nil {
		b.Fatal(err)
	}
	defer f.Stop()
	hc := NewHTTPClient(f.URL, "")
	defer hc.CloseIdle()
	s, err := hc.NewSession(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		mustCall(b, s.Call, echoParams, "hello")
	}
}
