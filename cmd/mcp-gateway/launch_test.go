package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/ipc"
)

func fakeConfig(servers map[string][]string) string {
	m := map[string]any{}
	for name, env := range servers {
		m[name] = map[string]any{"runCmd": fakeserver.ShellCommand(append([]string{"MCP_FAKE_NAME=" + name}, env...)...)}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func TestLaunchServeAndStop(t *testing.T) {
	e := newEnv(t)
	echo := func(n string) string {
		return `MCP_FAKE_TOOLS=[{"name":"` + n + `","inputSchema":{"type":"object"}},{"name":"pid","inputSchema":{"type":"object"}},{"name":"fork","inputSchema":{"type":"object"}}]`
	}
	code, out, errOut := e.launch(fakeConfig(map[string][]string{"a": {echo("echo")}, "b": {echo("echo")}, "c": {echo("env")}}), "GATEWAY_ACCESS_TOKEN=t")
	if code != 0 {
		t.Fatalf("launch: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if !strings.Contains(out, "ready on http://127.0.0.1:") || strings.Count(out, "\n") != 1 {
		t.Errorf("launcher output = %q, want one ready line", out)
	}
	// Token file: exactly "t", 0600.
	st, err := os.Stat(e.path("token"))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(e.path("token")); string(b) != "t" || st.Mode().Perm() != 0o600 {
		t.Errorf("token file %q mode %v, want \"t\" 0600", b, st.Mode().Perm())
	}
	// Unauthenticated POST: 401.
	resp, err := http.Post(e.url()+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Errorf("unauthenticated POST: %d, want 401", resp.StatusCode)
	}
	h := e.health()
	if n := len(h["servers"].([]any)); n != 3 {
		t.Errorf("health lists %d servers, want 3", n)
	}
	// The daemon holds no token in its environment or argv.
	daemon := e.daemonPID()
	for _, f := range []string{"environ", "cmdline"} {
		b, _ := os.ReadFile("/proc/" + itoaInt(daemon) + "/" + f)
		if strings.Contains(string(b), "GATEWAY_ACCESS_TOKEN") || strings.Contains(string(b), `"runCmd"`) {
			t.Errorf("daemon %s holds the token or config: %q", f, b)
		}
	}
	// kill -9 of a server, then a call to it succeeds.
	pidA := serverPID(h, "a")
	if pidA == 0 {
		t.Fatal("no pid for a")
	}
	_ = syscall.Kill(pidA, syscall.SIGKILL)
	waitExit(t, pidA, 5*time.Second)
	// The gateway has seen the exit: the call below starts a again.
	testwait.For(t, 10*time.Second, "a's exit to show in /health", func() bool { return serverPID(e.health(), "a") != pidA })
	if res := mcpCall(t, e.url(), "t", "echo", `{"text":"again"}`); !strings.Contains(res, "again from a") {
		t.Errorf("call after kill -9: %s", res)
	}
	// A grandchild, then SIGTERM: nothing of any server is left.
	mcpCall(t, e.url(), "t", "fork", `{}`)
	kids := descendants(daemon)
	if len(kids) < 4 {
		t.Fatalf("daemon has %d descendants, want ≥ 4 (3 servers, 1 grandchild)", len(kids))
	}
	_ = syscall.Kill(daemon, syscall.SIGTERM)
	if !waitExit(t, daemon, 15*time.Second) {
		t.Fatal("daemon still running 15 s after SIGTERM")
	}
	for _, k := range kids {
		if !waitExit(t, k, 3*time.Second) {
			t.Errorf("process %d outlived the daemon", k)
		}
	}
	if _, err := os.Stat(e.path("run/mcp-gateway.pid")); !os.IsNotExist(err) {
		t.Errorf("pid file left behind")
	}
}

func itoaInt(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestLaunchFailureLeavesNothing(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	code, _, errOut := e.launch(fakeConfig(map[string][]string{"good": nil, "broken": {"MCP_FAKE_EXIT_AT_START=7"}}), "GATEWAY_ACCESS_TOKEN=t")
	if code == 0 {
		t.Fatal("launch succeeded with a broken server")
	}
	for _, want := range []string{`server "broken"`, "exit status 7", "missing FAKE_API_KEY"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	if _, err := os.Stat(e.path("token")); !os.IsNotExist(err) {
		t.Errorf("token file written on failure")
	}
	if e.daemonPID() != 0 {
		t.Errorf("pid file left behind")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("failure took %v", d)
	}
}

func TestLaunchTimeoutNamesSlowServers(t *testing.T) {
	e := newEnv(t)
	code, _, errOut := e.run(nil, append([]string{"--config", fakeConfig(map[string][]string{"slow": {"MCP_FAKE_START_DELAY=20000"}, "quick": nil}), "--startup-timeout", "1s"}, e.flags()...)...)
	if code == 0 {
		t.Fatal("launch succeeded")
	}
	for _, want := range []string{"timed out after 1s", "still starting: slow", "make slow start faster or raise --startup-timeout"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
}

func TestSecondLaunchFails(t *testing.T) {
	e := newEnv(t)
	cfg := fakeConfig(map[string][]string{"a": nil})
	if code, _, errOut := e.launch(cfg); code != 0 {
		t.Fatalf("first launch: %s", errOut)
	}
	code, _, errOut := e.run(nil, append([]string{"--config", cfg}, e.flags()...)...)
	// The hint works as written: it carries the run dir the test uses.
	if code == 0 || !strings.Contains(errOut, "already running (pid ") || !strings.Contains(errOut, "`mcp-gateway stop --run-dir "+e.path("run")+"`") {
		t.Errorf("second launch: exit %d, %q", code, errOut)
	}
}

// A port another program holds fails the launch with the way out, and
// the log says so too (the operator reads the log, SPEC §10).
func TestPortInUseSaysHowToChooseAnother(t *testing.T) {
	e := newEnv(t)
	held, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", e.port))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	code, _, errOut := e.launch(fakeConfig(map[string][]string{"a": nil}), "GATEWAY_ACCESS_TOKEN=t")
	if code == 0 {
		t.Fatal("launch succeeded on a port in use")
	}
	for _, want := range []string{"address already in use", "--port or MCP_GATEWAY_PORT"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q lacks %q", errOut, want)
		}
	}
	log, _ := os.ReadFile(e.path("gateway.log"))
	if !strings.Contains(string(log), `msg="start failed"`) || !strings.Contains(string(log), "address already in use") {
		t.Errorf("the log does not say why the start failed:\n%s", log)
	}
}

func TestBadConfigFailsFastAndCleanly(t *testing.T) {
	e := newEnv(t)
	start := time.Now()
	code, _, errOut := e.run([]string{"GATEWAY_ACCESS_TOKEN=t"}, append([]string{"--config", `{"nosuch": {}}`}, e.flags()...)...)
	if code == 0 || !strings.Contains(errOut, `server "nosuch"`) || !strings.Contains(errOut, "github/<owner>/<repo>") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	if _, err := os.Stat(e.path("token")); !os.IsNotExist(err) {
		t.Errorf("token file written for a bad config")
	}
}

func TestGeneratedToken(t *testing.T) {
	e := newEnv(t)
	if code, _, errOut := e.launch(fakeConfig(map[string][]string{"a": nil})); code != 0 {
		t.Fatal(errOut)
	}
	b, _ := os.ReadFile(e.path("token"))
	if len(b) < 43 {
		t.Errorf("generated token %d characters, want ≥ 43 (256 bits)", len(b))
	}
	if res := mcpCall(t, e.url(), string(b), "echo", `{"text":"x"}`); !strings.Contains(res, "x from a") {
		t.Errorf("call with the generated token: %s", res)
	}
}

func TestKill9OfDaemonLeavesNoServerProcess(t *testing.T) {
	e := newEnv(t)
	tools := `MCP_FAKE_TOOLS=[{"name":"fork","inputSchema":{"type":"object"}},{"name":"forksetsid","inputSchema":{"type":"object"}}]`
	// "sh -c 'fake'" without exec: the server runs below a shell, and forks
	// a sleeper of its own; and one in a session of its own (setsid), out
	// of reach of any signal to the server's process group.
	b, _ := json.Marshal(map[string]any{
		"a": map[string]string{"runCmd": strings.ReplaceAll(fakeserver.ShellCommand(tools), "exec ", "")},
		"b": map[string]string{"runCmd": fakeserver.ShellCommand(tools)},
	})
	cfg := string(b)
	if code, _, errOut := e.launch(cfg, "GATEWAY_ACCESS_TOKEN=t"); code != 0 {
		t.Fatal(errOut)
	}
	for range 2 {
		mcpCall(t, e.url(), "t", "fork", `{}`)
	}
	mcpCall(t, e.url(), "t", "forksetsid", `{}`)
	daemon := e.daemonPID()
	kids := descendants(daemon)
	if len(kids) < 6 {
		t.Fatalf("daemon has %d descendants, want ≥ 6", len(kids))
	}
	_ = syscall.Kill(daemon, syscall.SIGKILL)
	killed := time.Now()
	waitExit(t, daemon, 5*time.Second) // its pid lock goes with it
	for _, k := range kids {
		if !waitExit(t, k, 5*time.Second) {
			b, _ := os.ReadFile("/proc/" + itoaInt(k) + "/cmdline")
			t.Errorf("process %d (%q) outlived kill -9 of the daemon", k, b)
		}
	}
	t.Logf("all %d server processes gone %v after kill -9 of the daemon", len(kids), time.Since(killed))
	// The stale pid file does not block a new launch.
	e.port = freePort(t)
	if code, _, errOut := e.launch(fakeConfig(map[string][]string{"a": nil})); code != 0 {
		t.Fatalf("launch after kill -9: %s", errOut)
	}
}

// A launcher stopped while the daemon starts leaves nothing behind: on
// SIGTERM it stops the daemon itself; killed with SIGKILL, the daemon
// notices at readiness that nobody waits for it, and stops. Before, the
// daemon became ready anyway, and the SDK's retry found it "already
// running".
func TestLauncherStoppedWhileStartingLeavesNothing(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			e := newEnv(t)
			cfg := fakeConfig(map[string][]string{"slow": {"MCP_FAKE_START_DELAY=2000"}})
			cmd := exec.Command(gatewayBin, append([]string{"--config", cfg}, e.flags()...)...)
			cmd.Env = append(os.Environ(), "GATEWAY_ACCESS_TOKEN=t")
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var daemon int
			testwait.For(t, 10*time.Second, "the daemon's pid file", func() bool {
				daemon, _ = ipc.ReadPID(e.path("run"))
				return daemon != 0
			})
			_ = cmd.Process.Signal(sig)
			err := cmd.Wait()
			if err == nil {
				t.Fatalf("the launcher exited 0 after %v", sig)
			}
			if sig == syscall.SIGTERM && !strings.Contains(errOut.String(), "interrupted by terminated") {
				t.Errorf("launcher stderr: %q", errOut.String())
			}
			// The slow server is ready 2 s in; give it that and more.
			if !waitExit(t, daemon, 15*time.Second) {
				t.Fatalf("the daemon (pid %d) still runs after its launcher got %v", daemon, sig)
			}
			if _, err := os.Stat(e.path("token")); !os.IsNotExist(err) {
				t.Errorf("token file left behind: %v", err)
			}
			if sig == syscall.SIGKILL && !strings.Contains(e.logText(), "the launcher exited before the gateway was ready") {
				t.Errorf("log lacks the reason:\n%s", e.logText())
			}
		})
	}
}

// Servers inherit none of the daemon's hand-over pipes: before, every
// server started before readiness held the report pipe's write end (fd 4)
// and could have written a report of its own to the launcher.
func TestServersInheritNoHandoverPipe(t *testing.T) {
	e := newEnv(t)
	fds := e.path("fds")
	b, _ := json.Marshal(map[string]any{"a": map[string]string{"runCmd": "ls -l /proc/self/fd > " + fds + "; " + fakeserver.ShellCommand()}})
	if code, _, errOut := e.launch(string(b)); code != 0 {
		t.Fatal(errOut)
	}
	out, err := os.ReadFile(fds)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		// (ls's own fd 3 is the directory it lists.)
		if f := strings.Fields(line); len(f) >= 3 && (f[len(f)-3] == "3" || f[len(f)-3] == "4") && strings.HasPrefix(f[len(f)-1], "pipe:") {
			t.Errorf("the server inherited the daemon's fd: %s", line)
		}
	}
}

// SIGTERM to the launcher while a GitHub server's installCmd runs leaves
// nothing: the daemon ends the starts, killing the install's process
// group, and logs why. Before, the daemon died of the signal's default
// action, and the install's children ran on under init.
func TestSIGTERMDuringInstallLeavesNothing(t *testing.T) {
	srv := gitRepoServer(t)
	e := newEnv(t)
	pidFile := e.path("install.pid")
	b, _ := json.Marshal(map[string]any{"github/acme/hello": map[string]string{
		// Renamed into place, so the file never exists empty: the
		// redirection creates it before echo writes, and a test that read
		// it then failed on "" (seen under load, in CI).
		"installCmd": "sleep 600 & echo $! > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + "; wait",
		"runCmd":     fakeserver.ShellCommand(),
	}})
	cmd := exec.Command(gatewayBin, append([]string{"--config", string(b), "--github-url", srv.URL}, e.flags()...)...)
	cmd.Env = append(os.Environ(), "GATEWAY_ACCESS_TOKEN=t")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	fakeserver.WaitFile(t, pidFile) // the install runs
	daemon := e.daemonPID()
	raw, _ := os.ReadFile(pidFile)
	sleeper, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("install pid %q: %v", raw, err)
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err == nil {
		t.Error("the launcher exited 0 after SIGTERM")
	}
	if !waitExit(t, daemon, 10*time.Second) {
		t.Fatalf("the daemon (pid %d) still runs", daemon)
	}
	if !waitExit(t, sleeper, 10*time.Second) {
		t.Errorf("the install's child (pid %d) outlived the launch", sleeper)
		_ = syscall.Kill(sleeper, syscall.SIGKILL)
	}
	if log := e.logText(); !strings.Contains(log, "signal while the servers start; stopping them") {
		t.Errorf("log lacks the reason:\n%s", log)
	}
}
