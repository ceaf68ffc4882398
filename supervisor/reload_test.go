package supervisor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// fakeSpec is the launch spec of a fake server whose echo says "from name".
func fakeSpec(name string, env map[string]string) adapters.LaunchSpec {
	e := map[string]string{"MCP_FAKE": "1", "MCP_FAKE_NAME": name}
	for k, v := range env {
		e[k] = v
	}
	return adapters.LaunchSpec{Kind: "command", Argv: fakeserver.Argv(), Env: e}
}

// call is callText for goroutines other than the test's: it returns the
// first text content or the error.
func call(u *Upstream, tool, args string) (string, error) {
	return callWithin(u, tool, args, 30*time.Second)
}

// fakes returns a started supervisor over fake servers, one per spec.
func fakes(t *testing.T, onChanged func(string), servers ...adapters.Server) *Supervisor {
	t.Helper()
	s := New(servers, Options{
		Log:           logfile.New(&syncBuffer{}),
		StartTimeout:  20 * time.Second,
		Stop:          proc.StopTimeouts{CloseWait: time.Second, TermWait: time.Second},
		OnListChanged: onChanged,
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.StartAll(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// A graceful restart lets the call in flight finish on the old run, makes
// a call arriving meanwhile wait and go to the new run, and fails nothing.
func TestGracefulRestartDrainsAndQueues(t *testing.T) {
	s := fakes(t, nil, adapters.Server{Name: "fake", Spec: fakeSpec("old", nil)})
	u, _ := s.Upstream("fake")
	pid1 := u.Status().PID

	started := t.TempDir() + "/started"
	slow := make(chan string, 1)
	var slowEnd time.Time
	go func() {
		out, err := call(u, "sleep", `{"ms":1500,"started":"`+started+`"}`)
		slowEnd = time.Now()
		if err != nil {
			out = "error: " + err.Error()
		}
		slow <- out
	}()
	fakeserver.WaitFile(t, started) // the sleep call is in flight

	if !u.SetSpec(fakeSpec("new", nil)) {
		t.Fatal("SetSpec reported no change")
	}
	type result struct {
		restarted bool
		err       error
	}
	restarted := make(chan result, 1)
	go func() {
		r, err := u.Restart(context.Background(), 10*time.Second)
		restarted <- result{r, err}
	}()
	// The restart is draining.
	for deadline := time.Now().Add(5 * time.Second); u.Status().State != StateStarting; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("state = %s 5 s into the restart, want starting", u.Status().State)
		}
	}
	// This call arrives during the drain: it waits, then reaches the new run.
	if got := mustText(t, u, "echo", `{"text":"x"}`); got != "x from new" {
		t.Errorf("call during the restart = %q, want %q", got, "x from new")
	}
	echoEnd := time.Now()
	if got := <-slow; got != "slept" {
		t.Errorf("call in flight during the restart = %q, want slept", got)
	}
	if echoEnd.Before(slowEnd) {
		t.Errorf("the call during the restart returned %v before the call in flight finished", slowEnd.Sub(echoEnd))
	}
	r := <-restarted
	if !r.restarted || r.err != nil {
		t.Errorf("Restart = %v, %v; want true, nil", r.restarted, r.err)
	}
	st := u.Status()
	if st.PID == pid1 || st.PID == 0 || st.State != StateRunning {
		t.Errorf("after restart: %+v, want running with a new pid (old %d)", st, pid1)
	}
}

// The drain is bounded: a call that outlasts it fails with the exit error,
// and the restart goes on.
func TestGracefulRestartDrainIsBounded(t *testing.T) {
	s := fakes(t, nil, adapters.Server{Name: "fake", Spec: fakeSpec("old", nil)})
	u, _ := s.Upstream("fake")
	started := t.TempDir() + "/started"
	slow := make(chan error, 1)
	go func() {
		_, err := call(u, "sleep", `{"ms":20000,"started":"`+started+`"}`)
		slow <- err
	}()
	fakeserver.WaitFile(t, started)
	u.SetSpec(fakeSpec("new", nil))
	start := time.Now()
	if r, err := u.Restart(context.Background(), 300*time.Millisecond); !r || err != nil {
		t.Fatalf("Restart = %v, %v", r, err)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("restart took %v with a 300ms drain", d)
	}
	select {
	case err := <-slow:
		// The error says the gateway stopped it, and why.
		if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "stopped by the gateway to restart it on its new launch spec (catalog reload), after a 300ms drain") {
			t.Errorf("call past the drain: %v, want ErrExited with the reason", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call past the drain did not fail")
	}
	if got := mustText(t, u, "echo", `{"text":"x"}`); got != "x from new" {
		t.Errorf("after restart echo = %q", got)
	}
}

// A server that is not running is not started by a restart; its next call
// starts it on the new spec.
func TestGracefulRestartLeavesStoppedServerAlone(t *testing.T) {
	_, u, _ := fake(t, map[string]string{"MCP_FAKE_NAME": "old"})
	u.SetSpec(fakeSpec("new", nil))
	if r, err := u.Restart(context.Background(), 0); r || err != nil {
		t.Fatalf("Restart of a server never started = %v, %v; want false, nil", r, err)
	}
	if st := u.Status(); st.PID != 0 {
		t.Errorf("restart started the server: %+v", st)
	}
	if got := mustText(t, u, "echo", `{"text":"x"}`); got != "x from new" {
		t.Errorf("first call = %q, want the new spec", got)
	}
}

// Reload restarts exactly the servers whose spec changed, in parallel, and
// reports the tool change.
func TestReloadRestartsOnlyChanged(t *testing.T) {
	var mu sync.Mutex
	changed := map[string]int{}
	s := fakes(t, func(name string) {
		mu.Lock()
		changed[name]++
		mu.Unlock()
	},
		adapters.Server{Name: "a", Spec: fakeSpec("a", nil)},
		adapters.Server{Name: "b", Spec: fakeSpec("b", nil)},
		adapters.Server{Name: "c", Spec: fakeSpec("c", nil)},
	)
	mu.Lock()
	clear(changed) // the first starts
	mu.Unlock()
	pids := map[string]int{}
	for _, u := range s.Upstreams() {
		pids[u.Name()] = u.Status().PID
	}
	tools2 := `[{"name":"echo2","inputSchema":{"type":"object"}}]`
	updates := s.Reload(context.Background(), map[string]adapters.LaunchSpec{
		"a": fakeSpec("a", map[string]string{"MCP_FAKE_TOOLS": tools2}),
		"b": fakeSpec("b", nil), // same
		// c not named: untouched
	}, 0)
	if len(updates) != 2 || updates[0].Server != "a" || !updates[0].Changed || !updates[0].Restarted || updates[0].Err != nil ||
		updates[1].Server != "b" || updates[1].Changed || updates[1].Restarted {
		t.Errorf("updates = %+v", updates)
	}
	for _, u := range s.Upstreams() {
		pid := u.Status().PID
		if same := pid == pids[u.Name()]; same != (u.Name() != "a") {
			t.Errorf("server %s: pid %d, before %d", u.Name(), pid, pids[u.Name()])
		}
	}
	a, _ := s.Upstream("a")
	if tools := a.Tools(); len(tools) != 1 || tools[0].Key != "echo2" {
		t.Errorf("a's tools after reload = %+v, want echo2", tools)
	}
	mu.Lock()
	if changed["a"] != 1 || changed["b"] != 0 || changed["c"] != 0 {
		t.Errorf("OnListChanged calls = %v, want a once", changed)
	}
	mu.Unlock()
	if st := a.Status(); st.Restarts != 1 {
		t.Errorf("a restarts = %d, want 1", st.Restarts)
	}
}

// Calls racing with a restart never fail: each runs on the old run (and
// finishes) or waits for the new one.
func TestGracefulRestartUnderLoad(t *testing.T) {
	s := fakes(t, nil, adapters.Server{Name: "fake", Spec: fakeSpec("v0", nil)})
	u, _ := s.Upstream("fake")
	stop := make(chan struct{})
	var failures atomic.Int64
	var calls atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := call(u, "sleep", `{"ms":20}`); err != nil {
					failures.Add(1)
					t.Logf("call failed: %v", err)
				}
				calls.Add(1)
			}
		}()
	}
	for i := 1; i <= 3; i++ {
		// Calls are flowing on the current run before each restart.
		before := calls.Load()
		waitFor(t, func() bool { return calls.Load() >= before+8 })
		u.SetSpec(fakeSpec("v"+string(rune('0'+i)), nil))
		if r, err := u.Restart(context.Background(), 5*time.Second); !r || err != nil {
			t.Fatalf("restart %d = %v, %v", i, r, err)
		}
	}
	close(stop)
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("%d of %d calls failed across 3 graceful restarts", n, calls.Load())
	}
	if got := mustText(t, u, "echo", `{"text":"x"}`); got != "x from v3" {
		t.Errorf("echo = %q, want x from v3", got)
	}
}

// Shutdown during a restart's drain ends the restart promptly and leaves
// nothing running.
func TestGracefulRestartInterruptedByShutdown(t *testing.T) {
	s := fakes(t, nil, adapters.Server{Name: "fake", Spec: fakeSpec("old", nil)})
	u, _ := s.Upstream("fake")
	started := t.TempDir() + "/started"
	callDone := make(chan struct{})
	go func() { defer close(callDone); _, _ = call(u, "sleep", `{"ms":20000,"started":"`+started+`"}`) }()
	defer func() { <-callDone }() // the shutdown below ends the call
	fakeserver.WaitFile(t, started)
	u.SetSpec(fakeSpec("new", nil))
	done := make(chan error, 1)
	go func() { _, err := u.Restart(context.Background(), time.Minute); done <- err }()
	// The restart is draining (the call keeps it there for 20 s).
	waitFor(t, func() bool { return u.Status().State == StateStarting })
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.Shutdown(ctx)
	select {
	case err := <-done:
		if err == nil {
			t.Error("Restart succeeded during shutdown")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Restart did not return after Shutdown")
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("shutdown during a restart took %v", d)
	}
	if st := u.Status(); st.PID != 0 {
		t.Errorf("after shutdown: %+v", st)
	}
}
