package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

func TestStartListsTools(t *testing.T) {
	_, u, _ := fake(t, map[string]string{
		"MCP_FAKE_TOOLS": `[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}},{"name":"c","inputSchema":{"type":"object"}}]`,
		"MCP_FAKE_PAGE":  "2",
	})
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range u.Tools() {
		names = append(names, tool.Key)
	}
	if got := strings.Join(names, ","); got != "a,b,c" {
		t.Errorf("tools over two pages = %s, want a,b,c", got)
	}
}

func TestRestartAfterCrash(t *testing.T) {
	_, u, _ := fake(t, nil)
	pid1 := mustText(t, u, "pid", `{}`)
	_, err := callText(t, u, "crash", `{}`)
	if !errors.Is(err, ErrExited) {
		t.Fatalf("crash call error = %v, want ErrExited", err)
	}
	pid2 := mustText(t, u, "pid", `{}`)
	if pid1 == pid2 {
		t.Errorf("pid after crash = %s, want a new process", pid2)
	}
	if st := u.Status(); st.Restarts != 1 || st.State != StateRunning {
		t.Errorf("status = %+v, want running with 1 restart", st)
	}
}

func TestPendingCallsFailAtOnceOnCrash(t *testing.T) {
	_, u, _ := fake(t, nil)
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	ended := make([]time.Time, 3)
	dir := t.TempDir()
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = callText(t, u, "sleep", fmt.Sprintf(`{"ms":15000,"started":"%s/%d"}`, dir, i))
			ended[i] = time.Now()
		}()
	}
	for i := range 3 {
		fakeserver.WaitFile(t, fmt.Sprintf("%s/%d", dir, i)) // all 3 in flight
	}
	crashed := time.Now()
	_, _ = callText(t, u, "crash", `{}`)
	wg.Wait()
	for i, err := range errs {
		var exit *ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("call %d: error = %v, want *ExitError", i, err)
		}
		contains(t, "error", err.Error(), `server "fake"`)
		contains(t, "error", err.Error(), "signal: killed")
		contains(t, "error", err.Error(), "panic: fake crash requested")
		// Generous bound: the calls would otherwise wait 15 s.
		if took := ended[i].Sub(crashed); took > 5*time.Second {
			t.Errorf("call %d failed %v after the crash", i, took)
		}
	}
}

// A server's environment holds neither the token nor any of the
// gateway's own MCP_GATEWAY_* settings (SPEC §7.1), but its own envs, and
// an MCP_GATEWAY_* name its spec sets itself.
func TestGatewayOwnVariablesAbsentFromChildEnvironment(t *testing.T) {
	_, u, _ := fake(t, map[string]string{"OWN_SECRET": "own-value", "MCP_GATEWAY_CODE_DIR": "/code"})
	// Set before its first start, which reads it.
	u.life.baseEnv = append(os.Environ(), TokenEnv+"=tok-should-not-leak", "PATH=/usr/bin:/bin",
		"MCP_GATEWAY_PORT=50123", "MCP_GATEWAY_RUN_DIR=/run/x", "MCP_GATEWAY_LOG_SHARE=64KiB", "MCP_GATEWAY_CODE_DIR=/elsewhere")
	env := mustText(t, u, "env", `{}`)
	for _, kv := range strings.Split(env, "\n") {
		name, _, _ := strings.Cut(kv, "=")
		if name == TokenEnv || strings.HasPrefix(name, "MCP_GATEWAY_") && kv != "MCP_GATEWAY_CODE_DIR=/code" {
			t.Errorf("the child's environment holds %s", name)
		}
	}
	if strings.Contains(env, "tok-should-not-leak") {
		t.Errorf("the child's environment holds the token")
	}
	contains(t, "environ", env, "OWN_SECRET=own-value")
	contains(t, "environ", env, "MCP_GATEWAY_CODE_DIR=/code")
	contains(t, "environ", env, "PATH=")
}

func TestBannerLinesAreSkipped(t *testing.T) {
	_, u, log := fake(t, map[string]string{"MCP_FAKE_BANNER": "1"})
	for i := range 3 {
		if got := mustText(t, u, "echo", fmt.Sprintf(`{"text":"hi %d"}`, i)); got != fmt.Sprintf("hi %d", i) {
			t.Errorf("echo = %q", got)
		}
	}
	contains(t, "log", log.String(), "not JSON-RPC; skipped] Fake server v1 starting")
}

func TestHugeResultArrivesIntact(t *testing.T) {
	_, u, _ := fake(t, nil)
	got := mustText(t, u, "big", `{"bytes":5242880}`)
	if len(got) != 5<<20 || strings.Trim(got, "x") != "" {
		t.Errorf("big result: %d bytes, want %d x's", len(got), 5<<20)
	}
}

func TestHugeRequestPasses(t *testing.T) {
	_, u, _ := fake(t, nil)
	text := strings.Repeat("y", 12<<20)
	if got := mustText(t, u, "echo", `{"text":"`+text+`"}`); got != text {
		t.Errorf("12 MiB echo came back with %d bytes", len(got))
	}
}

func TestStderrFloodNeverBlocks(t *testing.T) {
	_, u, log := fake(t, map[string]string{"MCP_FAKE_STDERR": "1048576"})
	for range 5 {
		if got := mustText(t, u, "stderr", `{"bytes":102400}`); got != "ok" {
			t.Fatalf("stderr call = %q", got)
		}
	}
	// stderr is copied concurrently with the replies; wait for all of it.
	want := 5 * (102400/100 + 1)
	testwait.Until(10*time.Second, func() bool { return strings.Count(log.String(), "[fake] sss") >= want })
	if n := strings.Count(log.String(), "[fake] sss"); n != want {
		t.Errorf("log has %d stderr lines, want %d", n, want)
	}
}

func TestConcurrentFirstCallsSpawnOnce(t *testing.T) {
	count := t.TempDir() + "/starts"
	_, u, _ := fake(t, map[string]string{"MCP_FAKE_COUNT_FILE": count, "MCP_FAKE_START_DELAY": "300"})
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mustText(t, u, "echo", `{"text":"x"}`)
		}()
	}
	wg.Wait()
	b, _ := os.ReadFile(count)
	if n := strings.Count(string(b), "\n"); n != 1 {
		t.Errorf("20 concurrent first calls spawned %d processes, want 1", n)
	}
}

func TestExitDuringInitializeNamesStderr(t *testing.T) {
	_, u, _ := fake(t, map[string]string{"MCP_FAKE_EXIT_AT_START": "3"})
	err := u.Start(context.Background())
	if err == nil {
		t.Fatal("start succeeded")
	}
	contains(t, "error", err.Error(), `server "fake"`)
	contains(t, "error", err.Error(), "exit status 3")
	contains(t, "error", err.Error(), "missing FAKE_API_KEY")
}

func TestCrashLoopBacksOff(t *testing.T) {
	_, u, _ := fake(t, map[string]string{"MCP_FAKE_EXIT_AT_START": "1"})
	if err := u.Start(context.Background()); err == nil {
		t.Fatal("first start succeeded")
	}
	// One failure: the next try is immediate.
	if err := u.Start(context.Background()); err == nil || strings.Contains(err.Error(), "backing off") {
		t.Fatalf("second start: %v, want a fresh failure", err)
	}
	// Two in a row: back off.
	err := u.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "backing off, next start in") {
		t.Fatalf("third start: %v, want a back-off error", err)
	}
}

func TestMissingCommandIsClear(t *testing.T) {
	s := New([]adapters.Server{{Name: "ghost", Spec: adapters.LaunchSpec{Argv: []string{"/nonexistent/mcp-server"}}}}, Options{Log: logfile.New(&syncBuffer{})})
	defer s.Shutdown(context.Background())
	err := s.StartAll(context.Background())
	if err == nil {
		t.Fatal("start succeeded")
	}
	contains(t, "error", err.Error(), `server "ghost"`)
	contains(t, "error", err.Error(), "/nonexistent/mcp-server")
}

// A server that cannot start fails the launch at once: StartAll does not
// wait for a slow one first, and the error names only the real failure.
func TestStartAllFailsFast(t *testing.T) {
	s := New([]adapters.Server{
		{Name: "ghost", Spec: adapters.LaunchSpec{Argv: []string{"/nonexistent/mcp-server"}}},
		{Name: "slow", Spec: fakeSpec("slow", map[string]string{"MCP_FAKE_START_DELAY": "30000"})},
	}, Options{Log: logfile.New(&syncBuffer{}), StartTimeout: 60 * time.Second})
	defer s.Shutdown(context.Background())
	start := time.Now()
	err := s.StartAll(context.Background())
	if err == nil {
		t.Fatal("start succeeded")
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("StartAll returned after %v: it waited for the slow server", d)
	}
	contains(t, "error", err.Error(), `server "ghost"`)
	if strings.Contains(err.Error(), `"slow"`) {
		t.Errorf("error names the server whose start it ended: %v", err)
	}
}

type recordingPeer struct {
	mu    sync.Mutex
	notes []string
}

func (p *recordingPeer) Notify(_ context.Context, method string, params json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notes = append(p.notes, method+" "+string(params))
}

func (p *recordingPeer) ClientID() string { return "s1" }

func (p *recordingPeer) Client() ClientInfo { return ClientInfo{} }

func (p *recordingPeer) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if method == "sampling/createMessage" {
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m"}`), nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no"}
}

func TestProgressReachesCallerWithItsToken(t *testing.T) {
	_, u, _ := fake(t, nil)
	for round := range 10 {
		p := &recordingPeer{}
		tok := fmt.Sprintf(`"client-token-%d"`, round)
		_, err := u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"progress","arguments":{"n":3},"_meta":{"progressToken":`+tok+`}}`), p)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.notes) != 3 {
			t.Fatalf("round %d: %d notifications, want 3: %v", round, len(p.notes), p.notes)
		}
		for i, n := range p.notes {
			want := fmt.Sprintf(`notifications/progress {"progressToken":%s,"progress":%d,"total":3}`, tok, i+1)
			if n != want {
				t.Errorf("round %d note %d = %s, want %s", round, i, n, want)
			}
		}
	}
}

func TestSamplingIsRelayedToCaller(t *testing.T) {
	_, u, _ := fake(t, nil)
	res, err := u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"sample"}`), &recordingPeer{})
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "result", string(res), "sampled")
}

func TestUpstreamErrorKeepsCodeMessageData(t *testing.T) {
	_, u, _ := fake(t, nil)
	_, err := u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"fail"}`), nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) {
		t.Fatalf("error = %v, want *jsonrpc.Error", err)
	}
	if rpcErr.Code != -32042 || rpcErr.Message != "the fake failed on purpose" || string(rpcErr.Data) != `{"why":"asked to","n":9007199254740993}` {
		t.Errorf("error = %+v data %s", rpcErr, rpcErr.Data)
	}
}

func TestStopKillsGrandchildren(t *testing.T) {
	_, u, _ := fake(t, nil)
	child := mustText(t, u, "fork", `{}`)
	u.Stop(context.Background())
	testwait.For(t, 5*time.Second, "grandchild "+child+" to die after stop", func() bool {
		if _, err := os.Stat("/proc/" + child); os.IsNotExist(err) {
			return true
		}
		b, _ := os.ReadFile("/proc/" + child + "/stat")
		return strings.Contains(string(b), ") Z ") // a zombie waiting for init is dead
	})
}

// A restart after a crash does not prepare (clone, install) again.
func TestRestartDoesNotPrepareAgain(t *testing.T) {
	_, u, _ := fake(t, nil)
	var prepares atomic.Int32
	spec := u.life.spec
	spec.Prepare = func(context.Context, []string, io.Writer) error { prepares.Add(1); return nil }
	u.life.spec = spec
	mustText(t, u, "echo", `{"text":"a"}`)
	_, _ = callText(t, u, "crash", `{}`)
	mustText(t, u, "echo", `{"text":"b"}`)
	if n := prepares.Load(); n != 1 {
		t.Errorf("prepared %d times across a crash and restart, want 1", n)
	}
}

// A burst of list_changed is coalesced: a re-list runs at most once at a
// time, plus once more for what came meanwhile, and the final list is the
// server's. Before, 20,000 notifications started 20,000 tools/list at once.
func TestListChangedBurstIsCoalesced(t *testing.T) {
	tools := `[{"name":"changeflood","inputSchema":{"type":"object"}},{"name":"lists","inputSchema":{"type":"object"}}]`
	s := fakes(t, nil, adapters.Server{Name: "a", Spec: fakeSpec("a", map[string]string{"MCP_FAKE_TOOLS": tools})})
	u, _ := s.Upstream("a")
	if out, err := call(u, "changeflood", `{"n":2000}`); err != nil || out != "flooded" {
		t.Fatalf("changeflood: %q %v", out, err)
	}
	// The notifications came before the reply on the one stdout, so each
	// has been handled (a re-list begun or its kinds left pending); wait
	// for the re-lists to end.
	testwait.For(t, 10*time.Second, "the re-lists after the flood to end", func() bool { return !relisting(u) })
	out, err := call(u, "lists", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(out)
	t.Logf("2000 list_changed → %d tools/list (1 at start)", n)
	if n > 100 {
		t.Errorf("%d tools/list for 2000 list_changed: not coalesced", n)
	}
	if n < 2 {
		t.Errorf("%d tools/list: the notifications were not acted on", n)
	}
}

// A server whose working directory (a clone) was removed is prepared again
// on its next start; without a Prepare, the error names the directory, not
// the program as exec does ("fork/exec …: no such file or directory").
func TestMissingWorkingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "clone")
	prepares := 0
	spec := fakeSpec("a", nil)
	spec.Dir = dir
	spec.Prepare = func(context.Context, []string, io.Writer) error {
		prepares++
		return os.MkdirAll(dir, 0o755)
	}
	s := fakes(t, nil, adapters.Server{Name: "a", Spec: spec})
	u, _ := s.Upstream("a")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	_, _ = call(u, "crash", `{}`)
	if got, err := call(u, "echo", `{"text":"x"}`); err != nil || got != "x from a" {
		t.Errorf("call after the directory was removed: %q %v", got, err)
	}
	if prepares != 2 {
		t.Errorf("prepared %d times, want 2 (again once its directory was gone)", prepares)
	}

	spec.Prepare = nil
	s = fakes(t, nil, adapters.Server{Name: "b", Spec: fakeSpec("b", nil)})
	b, _ := s.Upstream("b")
	b.SetSpec(adapters.LaunchSpec{Kind: "command", Argv: spec.Argv, Env: spec.Env, Dir: filepath.Join(dir, "gone")})
	_, _ = call(b, "crash", `{}`)
	if _, err := call(b, "echo", `{"text":"x"}`); err == nil || !strings.Contains(err.Error(), "working directory "+filepath.Join(dir, "gone")+" does not exist") {
		t.Errorf("start in a missing directory: %v", err)
	}
}

// A server that sends a request while only the gateway's own calls are in
// flight (here `cat`, which echoes initialize back as a request) is told
// that no client call is in progress, not that several client sessions
// are (found by a new-user run: the launch error blamed client sessions
// when none existed).
func TestServerRequestDuringInitialize(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat")
	}
	s := New([]adapters.Server{{Name: "echoer", Spec: adapters.LaunchSpec{Argv: []string{cat}}}},
		Options{Log: logfile.New(&syncBuffer{}), StartTimeout: 10 * time.Second})
	defer s.Shutdown(context.Background())
	err = s.StartAll(context.Background())
	if err == nil {
		t.Fatal("cat started as an MCP server")
	}
	contains(t, "error", err.Error(), "no client call is in progress")
	if strings.Contains(err.Error(), "several client sessions") {
		t.Errorf("error blames client sessions when none exist: %v", err)
	}
}

// A start whose process exits records that exit as the server's last exit,
// beside the error: status showed the exit of an earlier run next to this
// start's error (found by a new-user run).
func TestFailedStartRecordsItsExit(t *testing.T) {
	s := New([]adapters.Server{{Name: "quits", Spec: fakeSpec("quits", map[string]string{"MCP_FAKE_EXIT_AT_START": "3"})}},
		Options{Log: logfile.New(&syncBuffer{}), StartTimeout: 10 * time.Second})
	defer s.Shutdown(context.Background())
	if err := s.StartAll(context.Background()); err == nil {
		t.Fatal("a server that exits at start started")
	}
	st := s.Upstreams()[0].Status()
	if st.LastExit != "exit status 3" {
		t.Errorf("lastExit %q after a start that exited with 3; lastError %q", st.LastExit, st.LastError)
	}
}

// relisting says a re-list after list_changed runs on u's current run.
func relisting(u *Upstream) bool {
	r := u.life.current()
	if r == nil {
		return false
	}
	u.surf.relistMu.Lock()
	defer u.surf.relistMu.Unlock()
	return r.relisting
}
