package chaos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// This file is the fault driver: from its seed, at random intervals, it
// does one of the faults of issue 36 to the running gateway.

// Kinds of fault.
const (
	faultKillServer = "kill_server"    // SIGKILL a server process (a child of the daemon)
	faultKillChild  = "kill_child"     // SIGKILL a server's own child (a grandchild of the daemon)
	faultStopCont   = "stop_cont"      // SIGSTOP a server's process group for 1-4 s, then SIGCONT
	faultHTTP       = "http_restart"   // stop the driver's HTTP server, start it again on its port
	faultReload     = "reload"         // rewrite the template catalog file
	faultDrop       = "drop_conn"      // drop a client's connection mid-call
	faultDelete     = "delete_session" // DELETE a legacy session mid-call
	faultBodies     = "bad_bodies"     // a burst of oversized and malformed bodies
)

var faultWeights = []struct {
	kind   string
	weight int
}{
	{faultKillServer, 3}, {faultKillChild, 1}, {faultStopCont, 2}, {faultHTTP, 1},
	{faultReload, 1}, {faultDrop, 3}, {faultDelete, 2}, {faultBodies, 1},
}

// live is one call in flight, for the faults that hit calls.
type live struct {
	cancel           context.CancelFunc
	session          *session // nil for a modern call
	dropped, deleted atomic.Bool
}

// inflight is the set of calls in flight.
type inflight struct {
	mu    sync.Mutex
	next  int
	calls map[int]*live
}

func (f *inflight) add(l *live) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[int]*live{}
	}
	f.next++
	f.calls[f.next] = l
	return f.next
}

func (f *inflight) remove(id int) {
	f.mu.Lock()
	delete(f.calls, id)
	f.mu.Unlock()
}

// pick returns a random call in flight that ok accepts, or nil.
func (f *inflight) pick(r *rand.Rand, ok func(*live) bool) *live {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]int, 0, len(f.calls))
	for id, l := range f.calls {
		if ok(l) {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Ints(ids) // map order is random; the seed decides
	return f.calls[ids[r.IntN(len(ids))]]
}

// faulter injects faults into one run.
type faulter struct {
	rng   *rand.Rand
	run   *runState
	mu    sync.Mutex
	count map[string]int
	// bodies counts the bad-body answers by what was sent and the status.
	bodies map[string]int
	// failures are what a fault found wrong (a 5xx, a hang).
	failures []string
	reloads  int
}

// loop injects faults until stop closes, one every 100-900 ms.
func (f *faulter) loop(stop <-chan struct{}) {
	total := 0
	for _, w := range faultWeights {
		total += w.weight
	}
	for {
		t := time.NewTimer(time.Duration(100+f.rng.IntN(800)) * time.Millisecond)
		select {
		case <-stop:
			t.Stop()
			return
		case <-t.C:
		}
		n := f.rng.IntN(total)
		kind := ""
		for _, w := range faultWeights {
			if n -= w.weight; n < 0 {
				kind = w.kind
				break
			}
		}
		if what := f.do(kind); what != "" {
			f.mu.Lock()
			f.count[kind]++
			f.mu.Unlock()
			f.run.logf("fault %-14s %s", kind, what)
		}
	}
}

// do injects one fault of kind and says what it did ("" for nothing to do).
func (f *faulter) do(kind string) string {
	g := f.run.gw
	switch kind {
	case faultKillServer, faultKillChild, faultStopCont:
		var cands []proc
		for _, p := range descendants(g.pid) {
			if (p.ppid == g.pid) == (kind != faultKillChild) {
				cands = append(cands, p)
			}
		}
		if kind == faultStopCont && f.run.web.pid() > 0 {
			if p, err := readProc(f.run.web.pid()); err == nil {
				cands = append(cands, p)
			}
		}
		if len(cands) == 0 {
			return ""
		}
		sort.Slice(cands, func(i, j int) bool { return cands[i].pid < cands[j].pid })
		p := cands[f.rng.IntN(len(cands))]
		if kind != faultStopCont {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
			return fmt.Sprintf("pid %d (%s)", p.pid, p.comm)
		}
		d := time.Duration(1000+f.rng.IntN(3000)) * time.Millisecond
		_ = syscall.Kill(-p.pgid, syscall.SIGSTOP)
		time.Sleep(d) // the pause is the fault itself, not a wait for a condition
		_ = syscall.Kill(-p.pgid, syscall.SIGCONT)
		return fmt.Sprintf("group %d (%s) for %v", p.pgid, p.comm, d)
	case faultHTTP:
		down := time.Duration(100+f.rng.IntN(1500)) * time.Millisecond
		f.run.web.stop()
		time.Sleep(down) // how long the server stays away is the fault
		if err := f.run.web.start(); err != nil {
			f.fail("restart the HTTP server: " + err.Error())
		}
		return fmt.Sprintf("port %d, down %v", f.run.web.port, down)
	case faultReload:
		f.reloads++
		rename := f.rng.IntN(2) == 0
		if err := f.run.writeCatalog(f.reloads, rename); err != nil {
			f.fail(err.Error())
		}
		return fmt.Sprintf("generation %d (rename %v)", f.reloads, rename)
	case faultDrop:
		l := f.run.calls.pick(f.rng, func(*live) bool { return true })
		if l == nil {
			return ""
		}
		l.dropped.Store(true)
		l.cancel()
		return "a call"
	case faultDelete:
		l := f.run.calls.pick(f.rng, func(l *live) bool { return l.session != nil })
		if l == nil {
			return ""
		}
		l.deleted.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := f.run.admin.deleteSession(ctx, l.session.id); err != nil {
			f.fail("DELETE mid-call: " + err.Error())
		}
		return "session " + l.session.id[:8]
	case faultBodies:
		return f.badBodies()
	}
	return ""
}

func (f *faulter) fail(msg string) {
	f.mu.Lock()
	f.failures = append(f.failures, msg)
	f.mu.Unlock()
}

// repeat is an endless reader of one byte.
type repeat byte

func (b repeat) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// badBodies sends a burst of bodies, each expected to end in time with
// an answer below 500: a 9 MiB call (past SPEC §3.9's 8 MiB floor, within
// the gateway's limit: it must pass), a body past the gateway's limit
// (413), and malformed ones (a JSON-RPC error).
func (f *faulter) badBodies() string {
	modernHdr := func(name string) http.Header {
		return http.Header{"Mcp-Protocol-Version": {modernVersion}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {name}}
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"chaos","version":"1"}}`
	big := func(tool string) io.Reader {
		return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"`+tool+`","arguments":{"message":"`),
			io.LimitReader(repeat('x'), 9<<20), strings.NewReader(`"}}}`))
	}
	type body struct {
		what, ctype string
		hdr         http.Header
		r           func() io.Reader
	}
	bodies := []body{
		{"9MiB echo stdio", "application/json", modernHdr("echo"), func() io.Reader { return big("echo") }},
		{"9MiB echo http", "application/json", modernHdr("webrun_echo"), func() io.Reader { return big("webrun_echo") }},
		{"65MiB", "application/json", modernHdr("echo"), func() io.Reader {
			return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`),
				io.LimitReader(repeat('y'), 65<<20), strings.NewReader(`"}}}`))
		}},
		{"truncated", "application/json", nil, func() io.Reader {
			return strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-`)
		}},
		{"garbage", "application/json", nil, func() io.Reader { return bytes.NewReader([]byte{0xff, 0xfe, 0, 1, '{', '}', 0x80}) }},
		{"empty", "application/json", nil, func() io.Reader { return strings.NewReader("") }},
		{"empty batch", "application/json", nil, func() io.Reader { return strings.NewReader("[]") }},
		{"no method", "application/json", nil, func() io.Reader { return strings.NewReader(`{"jsonrpc":"2.0","id":7}`) }},
		{"a string", "application/json", nil, func() io.Reader { return strings.NewReader(`"tools/call"`) }},
		{"text/plain", "text/plain", nil, func() io.Reader { return strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`) }},
		{"header mismatch", "application/json", modernHdr("get-sum"), func() io.Reader {
			return strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"echo","arguments":{"message":"m"}}}`)
		}},
	}
	f.rng.Shuffle(len(bodies), func(i, j int) { bodies[i], bodies[j] = bodies[j], bodies[i] })
	c := newClient(f.run.gw.url, f.run.gw.token) // its own connections, closed after the burst
	defer c.close()
	var wg sync.WaitGroup
	for _, b := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			status, answer, err := c.raw(ctx, b.r(), b.ctype, b.hdr)
			f.mu.Lock()
			defer f.mu.Unlock()
			switch {
			case err != nil && strings.Contains(b.what, "65MiB") && !errors.Is(ctx.Err(), context.DeadlineExceeded):
				// The gateway may answer 413 and close before the client has
				// sent it all: the client then sees a broken pipe or reset.
				f.bodies[b.what+" -> closed early"]++
			case err != nil:
				f.failures = append(f.failures, fmt.Sprintf("bad body %s: %v", b.what, err))
			case status >= 500 && status != http.StatusServiceUnavailable:
				f.failures = append(f.failures, fmt.Sprintf("bad body %s: HTTP %d: %.200s", b.what, status, answer))
			case status == http.StatusServiceUnavailable && !strings.Contains(string(answer), "memory budget"):
				// 503 is the memory budget's answer while the burst's other
				// bodies hold it (a chunked body is read up to the limit
				// before it is known to be past it); alone, a body past the
				// limit gets 413 (TestChunkedBodyNearTheLimit).
				f.failures = append(f.failures, fmt.Sprintf("bad body %s: HTTP 503 not from the memory budget: %.200s", b.what, answer))
			default:
				f.bodies[fmt.Sprintf("%s -> %d", b.what, status)]++
			}
		}()
	}
	wg.Wait()
	return fmt.Sprintf("%d bodies", len(bodies))
}

// catalogJSON is the template catalog of generation gen: memory and
// filesystem overridden from the pinned installs, thinking named only
// here; what changes between generations is memory's file and thinking's
// environment, so that a reload restarts them (SPEC §6.3).
func (r *runState) catalogJSON(gen int) []byte {
	nm := r.cfg.NodeModules
	mem := filepath.Join(r.dir, fmt.Sprintf("memory-%d.jsonl", gen%2))
	return fmt.Appendf(nil, `{
  "memory": {"description": "pinned memory (generation %d)", "command": [["node", %q]], "env": {"MEMORY_FILE_PATH": %q}},
  "filesystem": {"description": "pinned filesystem", "command": [["node", %q], ["{{paths}}"]], "properties": {"paths": {"type": "array", "required": true}}},
  "thinking": {"description": "sequential thinking, from the template file only", "command": [["node", %q]], "env": {"DISABLE_THOUGHT_LOGGING": %q}}
}
`, gen, filepath.Join(nm, ".bin", "mcp-server-memory"), mem, filepath.Join(nm, ".bin", "mcp-server-filesystem"),
		filepath.Join(nm, ".bin", "mcp-server-sequential-thinking"), fmt.Sprint(gen%2 == 0))
}

// writeCatalog writes generation gen of the catalog, by a rename over the
// file or in place.
func (r *runState) writeCatalog(gen int, rename bool) error {
	path := filepath.Join(r.dir, "catalog.json")
	if !rename {
		if err := os.WriteFile(path, r.catalogJSON(gen), 0o644); err != nil {
			return fmt.Errorf("write catalog: %w", err)
		}
		return nil
	}
	tmp := path + ".new"
	if err := os.WriteFile(tmp, r.catalogJSON(gen), 0o644); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write catalog: %w", err)
	}
	return nil
}
