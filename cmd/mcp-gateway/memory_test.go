package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// The memory ceiling (issue 25, SPEC §3.9): what clients send and what
// servers answer is read under one budget, whatever they send.
//
// The bounds, for a loaded 2-core machine: the daemon's RssAnon is sampled
// every 10 ms (a peak between two samples can be missed, so the bound is
// also checked on VmHWM less the file-backed pages); budget + 64 MiB is
// the ceiling (the runtime's limit is budget + 32 MiB); 32 MiB
// within 30 s is the (the daemon returns its memory one quiet
// second after a burst; idle it holds 3-6 MiB); 2 s for another client's
// call is the (they take milliseconds: small requests never queue
// behind large ones).

const mib = 1 << 20

// procStatus reads a field of /proc/<pid>/status, in KiB.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return -1
}

// rssAnon is the daemon's anonymous resident memory, in bytes.
func rssAnon(pid int) int64 { return procStatus(pid, "RssAnon") << 10 }

// peakSampler records the highest RssAnon of pid until stopped.
type peakSampler struct {
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func samplePeak(pid int) *peakSampler {
	s := &peakSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			if r := rssAnon(pid); r > s.peak.Load() {
				s.peak.Store(r)
			}
			select {
			case <-s.stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return s
}

func (s *peakSampler) end() int64 {
	close(s.stop)
	<-s.done
	return s.peak.Load()
}

// filler yields n bytes of 'x': a body generated as it is sent, so that
// the test holds none of it.
type filler struct{ n int64 }

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), f.n))
	for i := range k {
		p[i] = 'x'
	}
	f.n -= int64(k)
	return k, nil
}

// bigCall posts a tools/call of tool whose argument key holds n bytes,
// generated as it is sent; it returns the status, the head of the answer
// and its size.
func bigCall(client *http.Client, s *session, tool, key string, n int64) (int, string, int64, error) {
	head := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"ms":0,%q:"`, s.next.Add(1), tool, key)
	tail := `"}}}`
	body := io.MultiReader(strings.NewReader(head), &filler{n}, strings.NewReader(tail))
	req, _ := http.NewRequest("POST", s.url, body)
	req.ContentLength = int64(len(head)) + n + int64(len(tail))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", s.id)
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", 0, err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	peek, _ := br.Peek(512)
	size, err := io.Copy(io.Discard, br)
	if resp.StatusCode == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
		return resp.StatusCode, string(peek), size, fmt.Errorf("503 without Retry-After")
	}
	return resp.StatusCode, string(peek), size, err
}

// prober calls a quiet server and /health as another client would, and
// records the slowest answer and any failure.
type prober struct {
	slowest atomic.Int64 // nanoseconds
	calls   atomic.Int64
	mu      sync.Mutex
	fails   []string
	stop    chan struct{}
	done    chan struct{}
}

func startProber(t *testing.T, e *env, tool string) *prober {
	p := &prober{stop: make(chan struct{}), done: make(chan struct{})}
	s := openSession(t, e.url(), "t")
	s.client.Timeout = 10 * time.Second
	go func() {
		defer close(p.done)
		for i := 0; ; i++ {
			start := time.Now()
			res, err := s.call(tool, fmt.Sprintf(`{"text":"probe %d"}`, i))
			if err == nil && !strings.Contains(res, fmt.Sprintf("probe %d", i)) {
				err = fmt.Errorf("answer %.200s", res)
			}
			if err == nil {
				var resp *http.Response
				if resp, err = s.client.Get(e.url() + "/health"); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			if d := time.Since(start); d > time.Duration(p.slowest.Load()) {
				p.slowest.Store(int64(d))
			}
			p.calls.Add(1)
			if err != nil {
				p.mu.Lock()
				p.fails = append(p.fails, err.Error())
				p.mu.Unlock()
			}
			select {
			case <-p.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return p
}

func (p *prober) end() (time.Duration, int64, []string) {
	close(p.stop)
	<-p.done
	return time.Duration(p.slowest.Load()), p.calls.Load(), p.fails
}

// TestMemoryCeilingUnderLargePosts sends three rounds of 100 concurrent
// 60 MiB POSTs (half echoed back whole, half to a tool that answers in a
// word) while another client calls another server: the daemon stays
// under its budget, gives the memory back after each round, and the other
// client never waits.
func TestMemoryCeilingUnderLargePosts(t *testing.T) {
	e := newEnv(t)
	tools := `MCP_FAKE_TOOLS=[{"name":"echo","inputSchema":{"type":"object"}},{"name":"sleep","inputSchema":{"type":"object"}}]`
	if code, _, errOut := e.launch(fakeConfig(map[string][]string{"big": {tools}, "quiet": {`MCP_FAKE_TOOLS=[{"name":"echo","inputSchema":{"type":"object"}}]`}}),
		"GATEWAY_ACCESS_TOKEN=t"); code != 0 {
		t.Fatal(errOut)
	}
	pid := e.daemonPID()
	const budget, n, size = 256 * mib, 100, 60 * mib
	sessions := make([]*session, 10)
	for i := range sessions {
		sessions[i] = openSession(t, e.url(), "t")
	}
	client := &http.Client{Timeout: 2 * time.Minute}
	probe := startProber(t, e, "quiet_echo")
	for round := 1; round <= 3; round++ {
		peak := samplePeak(pid)
		var wg sync.WaitGroup
		var ok, refused atomic.Int64
		var mu sync.Mutex
		var other []string
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tool, key := "echo", "text"
				if i%2 == 1 {
					tool, key = "sleep", "pad"
				}
				status, head, got, err := bigCall(client, sessions[i%len(sessions)], tool, key, size)
				switch {
				case err == nil && status == 200 && strings.Contains(head, `"result"`) && (tool == "sleep" || got > size):
					ok.Add(1)
				case err == nil && status == 503:
					refused.Add(1)
				case raceEnabled && (errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)):
					// Under the race detector the 503 and its close can
					// overtake the client still sending its 60 MiB: its
					// write fails before it reads the refusal.
					refused.Add(1)
				default:
					mu.Lock()
					other = append(other, fmt.Sprintf("%s: status %d, %d bytes, %v: %.300s", tool, status, got, err, head))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		high := peak.end()
		t.Logf("round %d: %d answered, %d refused with 503; RssAnon peak %d MiB", round, ok.Load(), refused.Load(), high>>20)
		for _, o := range other {
			t.Errorf("round %d: %s", round, o)
		}
		if ok.Load() == 0 {
			t.Errorf("round %d: no large call was served", round)
		}
		if high > budget+64*mib {
			t.Errorf("round %d: RssAnon peaked at %d MiB, over the budget (%d MiB) + 64 MiB", round, high>>20, budget>>20)
		}
		start := time.Now()
		if !testwait.Until(30*time.Second, func() bool { return rssAnon(pid) < 32*mib }) {
			t.Errorf("round %d: RssAnon still %d MiB 30 s after the round, want under 32 MiB", round, rssAnon(pid)>>20)
		} else {
			t.Logf("round %d: RssAnon under 32 MiB %v after the round", round, time.Since(start).Round(10*time.Millisecond))
		}
	}
	if hwm := (procStatus(pid, "VmHWM") - procStatus(pid, "RssFile") - procStatus(pid, "RssShmem")) << 10; hwm > budget+64*mib {
		t.Errorf("VmHWM less file pages: %d MiB, over the budget + 64 MiB", hwm>>20)
	}
	slowest, calls, fails := probe.end()
	t.Logf("other client: %d calls and health probes, slowest %v", calls, slowest)
	// Issue 25's bound: no call of another client's takes over 2 s while
	// the large posts are read (unloaded, the slowest is ~0.45 s). Under
	// the race detector, 10 s (3.4 s seen on 2 CPUs).
	bound := 2 * time.Second
	if raceEnabled {
		bound = 10 * time.Second
	}
	if slowest > bound {
		t.Errorf("another client's call took %v, want under %v", slowest, bound)
	}
	for _, f := range fails {
		t.Errorf("another client's call failed: %s", f)
	}
}

// TestOversizedBodyIsRefusedUnread: a 200 MiB POST gets 413 before its
// body is read, and costs the daemon no memory; a 100 MiB stdout line is
// skipped, and its memory goes back to the system.
func TestOversizedBodyIsRefusedUnread(t *testing.T) {
	e := newEnv(t)
	if code, _, errOut := e.launch(fakeConfig(map[string][]string{"s": {`MCP_FAKE_TOOLS=[{"name":"big","inputSchema":{"type":"object"}},{"name":"echo","inputSchema":{"type":"object"}}]`}}),
		"GATEWAY_ACCESS_TOKEN=t"); code != 0 {
		t.Fatal(errOut)
	}
	pid := e.daemonPID()
	s := openSession(t, e.url(), "t")
	before := rssAnon(pid)
	peak := samplePeak(pid)
	status, head, _, err := bigCall(&http.Client{Timeout: time.Minute}, s, "echo", "text", 200*mib)
	high := peak.end()
	if err != nil || status != 413 || !strings.Contains(head, "exceeds the gateway's limit") {
		t.Fatalf("200 MiB POST: status %d, %v: %.300s", status, err, head)
	}
	t.Logf("200 MiB POST: %d, RssAnon %d → %d MiB", status, before>>20, high>>20)
	if high-before > 16*mib {
		t.Errorf("RssAnon grew by %d MiB (%d → %d) for a refused 200 MiB body, want at most 16", (high-before)>>20, before>>20, high>>20)
	}
	// A 100 MiB answer: a line over the 64 MiB limit, skipped.
	res, err := s.call("big", fmt.Sprintf(`{"bytes":%d}`, 100*mib))
	if err != nil || !strings.Contains(res, "larger than the gateway's 64 MiB message limit") {
		t.Fatalf("100 MiB line: %v %.300s", err, res)
	}
	start := time.Now()
	if !testwait.Until(30*time.Second, func() bool { return rssAnon(pid) < 32*mib }) {
		t.Errorf("RssAnon %d MiB 30 s after a skipped 100 MiB line, want under 32", rssAnon(pid)>>20)
	}
	t.Logf("100 MiB line: RssAnon %d MiB %v after the call", rssAnon(pid)>>20, time.Since(start).Round(10*time.Millisecond))
	if res, err := s.call("echo", `{"text":"still serving"}`); err != nil || !strings.Contains(res, "still serving") {
		t.Errorf("after: %v %s", err, res)
	}
}

// launchFlags is launch with more flags.
func (e *env) launchFlags(config string, flags []string, extraEnv ...string) (int, string, string) {
	e.t.Helper()
	code, out, errOut := e.run(extraEnv, append(append([]string{"--config", config}, e.flags()...), flags...)...)
	e.t.Cleanup(func() {
		if pid := e.daemonPID(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			waitExit(e.t, pid, 15*time.Second)
		}
	})
	return code, out, errOut
}

// TestStalledBodyGets408: a body that stops after 1 MiB of 10 MiB is
// answered 408 when the body timeout ends, with no socket address.
func TestStalledBodyGets408(t *testing.T) {
	e := newEnv(t)
	if code, _, errOut := e.launchFlags(fakeConfig(map[string][]string{"s": nil}), []string{"--body-timeout", "2s"}, "GATEWAY_ACCESS_TOKEN=t"); code != 0 {
		t.Fatal(errOut)
	}
	conn, err := (&net.Dialer{}).DialContext(context.Background(), "tcp", strings.TrimPrefix(e.url(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 10*mib)
	if _, err := conn.Write(bytes.Repeat([]byte(" "), mib)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to a stalled body within 20 s: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	waited := time.Since(start)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"error"`) {
		t.Errorf("stalled body: %d %s, want 408 with a JSON-RPC error", resp.StatusCode, b)
	}
	local, remote := conn.LocalAddr().String(), conn.RemoteAddr().String()
	for _, addr := range []string{"127.0.0.1", local[strings.LastIndexByte(local, ':')+1:], remote[strings.LastIndexByte(remote, ':')+1:]} {
		if strings.Contains(string(b), addr) {
			t.Errorf("the answer names a socket address (%s): %s", addr, b)
		}
	}
	if waited > 10*time.Second {
		t.Errorf("answered after %v, want at the 2 s body timeout", waited)
	}
}
