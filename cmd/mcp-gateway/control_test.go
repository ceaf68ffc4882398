package main

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/ipc"
)

// ctl runs a control command (status, stop, reload) against e's daemon.
func (e *env) ctl(args ...string) (int, string, string) {
	e.t.Helper()
	return e.run(nil, append(args, "--run-dir", e.path("run"))...)
}

// launchWith is e.launch with extra flags after e's own (the last of a
// repeated flag wins).
func (e *env) launchWith(config string, extraEnv []string, extraArgs ...string) (int, string, string) {
	e.t.Helper()
	args := append(append([]string{"--config", config}, e.flags()...), extraArgs...)
	code, out, errOut := e.run(extraEnv, args...)
	e.t.Cleanup(func() {
		if pid := e.daemonPID(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			waitExit(e.t, pid, 15*time.Second)
		}
	})
	return code, out, errOut
}

func (e *env) mustLaunch(config string, extraArgs ...string) {
	e.t.Helper()
	if code, out, errOut := e.launchWith(config, []string{"GATEWAY_ACCESS_TOKEN=t"}, extraArgs...); code != 0 {
		e.t.Fatalf("launch: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

func (e *env) logText() string {
	b, _ := os.ReadFile(e.path("gateway.log"))
	return string(b)
}

// statusJSON runs `status --json` and decodes it.
func (e *env) statusJSON() daemon.StatusDoc {
	e.t.Helper()
	code, out, errOut := e.ctl("status", "--json")
	if code != 0 {
		e.t.Fatalf("status --json: exit %d: %s", code, errOut)
	}
	var doc daemon.StatusDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		e.t.Fatalf("status --json output %q: %v", out, err)
	}
	return doc
}

func TestStatusReloadStop(t *testing.T) {
	e := newEnv(t)
	tools := `MCP_FAKE_TOOLS=[{"name":"echo","inputSchema":{"type":"object"}},{"name":"sleep","inputSchema":{"type":"object"}}]`
	e.mustLaunch(fakeConfig(map[string][]string{"a": {tools}, "b": {tools}}))
	daemon := e.daemonPID()
	if res := mcpCall(t, e.url(), "t", "echo", `{"text":"x"}`); !strings.Contains(res, "x from a") {
		t.Fatalf("call: %s", res)
	}
	pidA := serverPID(e.health(), "a")

	// The socket: 0600, beside the pid file.
	st, err := os.Stat(e.path("run/" + ipc.ControlSocketName))
	if err != nil || st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("control socket: %v, %v; want a 0600 socket", st.Mode(), err)
	}

	// status: a table.
	code, out, errOut := e.ctl("status")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	t.Logf("status:\n%s", out)
	for _, want := range []string{"pid " + strconv.Itoa(daemon), "SERVER", "STATE", "UPTIME", "RESTARTS", "TOOLS", "PROMPTS", "RESOURCES", "TEMPLATES", "CALLS", "LAST ERROR", "running", strconv.Itoa(pidA)} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}
	// status --json: the /health document and more.
	doc := e.statusJSON()
	if doc.PID != daemon || doc.Status != "ok" || doc.ServerCount != 2 || len(doc.Servers) != 2 || doc.ToolCount != 4 {
		t.Errorf("status --json = %+v", doc)
	}
	a := doc.Servers[0]
	if a.Name != "a" || a.PID != pidA || a.State != "running" || a.Calls != 1 || a.Tools != 2 || a.StartedAt.IsZero() {
		t.Errorf("server a in status = %+v", a)
	}
	if strings.Contains(out, `"t"`) || strings.Contains(out, "runCmd") {
		t.Errorf("status reveals the token or the config: %s", out)
	}

	// reload with nothing changed.
	code, out, errOut = e.ctl("reload")
	if code != 0 || !strings.Contains(out, "no entry changed") || !strings.Contains(out, "nothing restarted") {
		t.Errorf("reload: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if serverPID(e.health(), "a") != pidA {
		t.Error("reload without a change restarted a")
	}

	// stop, while a call is in flight: the call finishes, as on SIGTERM.
	slow := make(chan string, 1)
	started := e.path("slow-started")
	go func() { slow <- mcpCallNoFatal(e.url(), "t", "sleep", `{"ms":1000,"started":"`+started+`"}`) }()
	fakeserver.WaitFile(t, started) // the call is in flight on the server
	start := time.Now()
	code, out, errOut = e.ctl("stop")
	if code != 0 || !strings.Contains(out, "stopped (pid "+strconv.Itoa(daemon)+")") {
		t.Errorf("stop: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if alive(daemon) {
		t.Error("stop returned while the daemon is alive")
	}
	// An operator reads in the log that the stop finished, and why.
	if log := e.logText(); !strings.Contains(log, `msg=stopped reason="requested with mcp-gateway stop"`) {
		t.Errorf("the log does not say the daemon stopped on mcp-gateway stop:\n%s", log)
	}
	if alive(pidA) {
		t.Error("stop left server a running")
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("stop took %v", d)
	}
	if res := <-slow; !strings.Contains(res, "slept") {
		t.Errorf("call in flight during stop: %s", res)
	}
	for _, f := range []string{"run/" + ipc.PIDFileName, "run/" + ipc.ControlSocketName} {
		if _, err := os.Stat(e.path(f)); !os.IsNotExist(err) {
			t.Errorf("%s left after stop", f)
		}
	}
	if !strings.Contains(e.logText(), "requested with mcp-gateway stop") {
		t.Error("the log does not say why the daemon stopped")
	}

	// Nothing running now: each command says so, and how to name another
	// run dir, and exits non-zero.
	for _, cmd := range []string{"stop", "status", "reload"} {
		code, _, errOut := e.ctl(cmd)
		if code == 0 || !strings.Contains(errOut, "no gateway is running") || !strings.Contains(errOut, "--run-dir DIR") {
			t.Errorf("%s with no gateway: exit %d, %q", cmd, code, errOut)
		}
	}
}

// mcpCallNoFatal is mcpCall for a goroutine other than the test's.
func mcpCallNoFatal(url, token, tool, args string) string {
	s, err := dialSession(url, token)
	if err != nil {
		return "error: " + err.Error()
	}
	res, err := s.call(tool, args)
	if err != nil {
		return "error: " + err.Error()
	}
	return res
}

// A daemon killed with SIGKILL leaves its pid file and socket behind; they
// never block the commands or a new launch.
func TestStaleFilesAfterKill9(t *testing.T) {
	e := newEnv(t)
	cfg := fakeConfig(map[string][]string{"a": nil})
	e.mustLaunch(cfg)
	daemon := e.daemonPID()
	pidA := serverPID(e.health(), "a")
	_ = syscall.Kill(daemon, syscall.SIGKILL)
	if !waitExit(t, daemon, 10*time.Second) {
		t.Fatal("daemon survived SIGKILL")
	}
	if !waitExit(t, pidA, 10*time.Second) {
		t.Error("server a survived its daemon's SIGKILL")
	}
	for _, f := range []string{"run/" + ipc.PIDFileName, "run/" + ipc.ControlSocketName} {
		if _, err := os.Stat(e.path(f)); err != nil {
			t.Fatalf("expected the stale %s to be left by SIGKILL: %v", f, err)
		}
	}
	for _, cmd := range []string{"status", "stop", "reload"} {
		code, _, errOut := e.ctl(cmd)
		if code == 0 || !strings.Contains(errOut, "no gateway is running") {
			t.Errorf("%s after kill -9: exit %d, %q", cmd, code, errOut)
		}
	}
	e.mustLaunch(cfg)
	if pid := e.daemonPID(); pid == daemon || pid == 0 {
		t.Fatalf("new daemon pid %d (old %d)", pid, daemon)
	}
	if doc := e.statusJSON(); doc.PID != e.daemonPID() || doc.Status != "ok" {
		t.Errorf("status of the new daemon: %+v", doc)
	}
	if code, _, errOut := e.ctl("stop"); code != 0 {
		t.Errorf("stop of the new daemon: %s", errOut)
	}
}

// A control client that connects and says nothing is dropped after 2 s and
// blocks neither other control clients nor the gateway.
func TestControlSilentClient(t *testing.T) {
	e := newEnv(t)
	e.mustLaunch(fakeConfig(map[string][]string{"a": nil}))
	var silent []net.Conn
	for range 3 {
		c, err := net.Dial("unix", e.path("run/"+ipc.ControlSocketName))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		silent = append(silent, c)
	}
	start := time.Now()
	if code, _, errOut := e.ctl("status"); code != 0 {
		t.Fatalf("status while clients are silent: %s", errOut)
	}
	if res := mcpCall(t, e.url(), "t", "echo", `{"text":"x"}`); !strings.Contains(res, "x from a") {
		t.Errorf("call while control clients are silent: %s", res)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("status and a call took %v while control clients were silent", d)
	}
	var wg sync.WaitGroup
	for _, c := range silent {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(6 * time.Second))
			b, err := bufio.NewReader(c).ReadBytes('\n')
			if err != nil || !strings.Contains(string(b), "no request within") {
				t.Errorf("silent client: %q, %v; want dropped with a message", b, err)
			}
		}()
	}
	wg.Wait()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("silent clients dropped after %v", d)
	}
}

// stop finds a daemon that does not answer on its socket yet (still
// starting) through its pid file, and stops it with SIGTERM.
func TestStopWhileStarting(t *testing.T) {
	e := newEnv(t)
	cfg := fakeConfig(map[string][]string{"slow": {"MCP_FAKE_START_DELAY=30000"}})
	launched := make(chan int, 1)
	go func() {
		code, _, _ := e.run([]string{"GATEWAY_ACCESS_TOKEN=t"}, append([]string{"--config", cfg}, e.flags()...)...)
		launched <- code
	}()
	testwait.For(t, 20*time.Second, "the daemon's pid file", func() bool { return ipc.Running(e.path("run")) > 0 })
	daemon := e.daemonPID()
	code, _, errOut := e.ctl("status")
	if code == 0 || !strings.Contains(errOut, "may be starting or stopping") {
		t.Errorf("status while starting: exit %d, %q", code, errOut)
	}
	code, out, errOut := e.ctl("stop")
	if code != 0 || !strings.Contains(out, "stopped") {
		t.Errorf("stop while starting: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if alive(daemon) {
		t.Error("daemon alive after stop")
	}
	select {
	case code := <-launched:
		if code == 0 {
			t.Error("the launch succeeded although the daemon was stopped while starting")
		}
	case <-time.After(20 * time.Second):
		t.Error("the launcher did not return after its daemon was stopped")
	}
}

// SIGHUP reloads the catalog instead of killing the daemon (logrotate
// configurations send it).
func TestSIGHUPReloads(t *testing.T) {
	e := newEnv(t)
	if code, _, errOut := e.launch(fakeConfig(map[string][]string{"a": nil}), "GATEWAY_ACCESS_TOKEN=t"); code != 0 {
		t.Fatal(errOut)
	}
	daemon := e.daemonPID()
	if err := syscall.Kill(daemon, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !testwait.Until(10*time.Second, func() bool { return strings.Contains(e.logText(), "SIGHUP: reloading the catalog") }) {
		t.Fatalf("no reload logged 10 s after SIGHUP:\n%s", e.logText())
	}
	if !alive(daemon) {
		t.Fatal("SIGHUP killed the daemon")
	}
	if res := mcpCall(t, e.url(), "t", "echo", `{"text":"x"}`); !strings.Contains(res, "x from a") {
		t.Errorf("call after SIGHUP: %s", res)
	}
}

// A call still running when the drain of `mcp-gateway stop` ends gets a
// JSON-RPC error that says why, not a closed connection (SPEC §7.6).
func TestStopAnswersCallsPastTheDrain(t *testing.T) {
	e := newEnv(t)
	tools := `MCP_FAKE_TOOLS=[{"name":"sleep","inputSchema":{"type":"object"}}]`
	if code, _, errOut := e.launch(fakeConfig(map[string][]string{"a": {tools}}), "GATEWAY_ACCESS_TOKEN=t"); code != 0 {
		t.Fatal(errOut)
	}
	s := openSession(t, e.url(), "t")
	started := e.path("started")
	answer := make(chan string, 1)
	go func() {
		res, err := s.call("sleep", `{"ms":60000,"started":"`+started+`"}`)
		if err != nil {
			res = "error: " + err.Error()
		}
		answer <- res
	}()
	fakeserver.WaitFile(t, started) // the call reached the server
	if code, _, errOut := e.ctl("stop"); code != 0 {
		t.Fatalf("stop: %s", errOut)
	}
	select {
	case res := <-answer:
		if !strings.Contains(res, `"error"`) || !strings.Contains(res, "the gateway is shutting down") {
			t.Errorf("the call's answer: %s", res)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no answer 20 s after stop")
	}
}
