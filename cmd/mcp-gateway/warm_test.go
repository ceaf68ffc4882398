package main

import (
	"encoding/json"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/ipc"
)

// warmCatalog writes a template catalog of fake servers, one per name,
// each with the tools echo and env (exported with the server's name in
// front, "kept_echo", but for the first server's).
func (e *env) warmCatalog(names ...string) {
	e.t.Helper()
	entries := map[string]catalog.Entry{}
	for _, n := range names {
		tools := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"env","inputSchema":{"type":"object"}}]`
		entries[n] = catalog.Entry{Description: "a fake server", Command: [][]string{fakeserver.Argv()},
			Env: map[string]string{"MCP_FAKE": "1", "MCP_FAKE_NAME": n, "MCP_FAKE_TOOLS": tools}}
	}
	b, _ := json.Marshal(entries)
	if err := os.WriteFile(e.path("catalog.json"), b, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// warm runs `mcp-gateway warm names…` with e's paths; the daemon is
// stopped at the test's end.
func (e *env) warm(extraEnv []string, names ...string) (int, string, string) {
	e.t.Helper()
	args := append([]string{"warm"}, names...)
	args = append(args, "--token-file", e.path("token"), "--log-file", e.path("gateway.log"),
		"--run-dir", e.path("run"), "--catalog-file", e.path("catalog.json"), "--servers-dir", e.path("servers"),
		"--code-dir", e.path("code")) // as e.flags: the code dir is in the servers' environment (SPEC §7.1)
	code, out, errOut := e.run(extraEnv, args...)
	e.t.Cleanup(func() {
		if pid := e.daemonPID(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			waitExit(e.t, pid, 15*time.Second)
		}
	})
	return code, out, errOut
}

func pidsOf(doc daemon.StatusDoc) map[string]int {
	pids := map[string]int{}
	for _, s := range doc.Servers {
		pids[s.Name] = s.PID
	}
	return pids
}

// SPEC §2.9 with fake servers: warm, then a config with one adopted, one
// that died warm, one new, and one warm server left out.
func TestWarmHandOver(t *testing.T) {
	const warmToken, token = "tok-WARM-LEAK-41c9", "tok-HANDED-LEAK-77a2"
	e := newEnv(t)
	e.warmCatalog("kept", "left", "dead", "fresh")
	// A template build that has the token set by mistake: it must not reach the warm daemon.
	code, out, errOut := e.warm([]string{"GATEWAY_ACCESS_TOKEN=" + warmToken}, "kept", "left", "dead")
	if code != 0 || !strings.Contains(out, "mcp-gateway: warm (pid ") || !strings.Contains(errOut, "is ignored") {
		t.Fatalf("warm: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	daemon := e.daemonPID()
	warm := e.statusJSON()
	if warm.Status != "warm" || warm.Addr != "" || warm.ServerCount != 3 || warm.PID != daemon {
		t.Errorf("warm status = %+v", warm)
	}
	if code, text, _ := e.ctl("status"); code != 0 || !strings.Contains(text, ": warm, pid") {
		t.Errorf("status: exit %d\n%s", code, text)
	}
	// Before the hand-over: no token in its argv, environment or files.
	noSecrets := func(when string, needles ...string) {
		t.Helper()
		for _, f := range []string{"cmdline", "environ"} {
			b, _ := os.ReadFile("/proc/" + itoaInt(daemon) + "/" + f)
			for _, n := range append(needles, supervisorTokenEnv) {
				if strings.Contains(string(b), n) {
					t.Errorf("%s: the warm daemon's %s holds %q", when, f, n)
				}
			}
		}
		_ = filepath.WalkDir(e.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || path == e.path("token") || d.Type()&fs.ModeSocket != 0 {
				return nil
			}
			b, _ := os.ReadFile(path)
			for _, n := range needles {
				if strings.Contains(string(b), n) {
					t.Errorf("%s: %s holds %q", when, path, n)
				}
			}
			return nil
		})
	}
	noSecrets("before the hand-over", warmToken)
	if _, err := os.Stat(e.path("token")); !os.IsNotExist(err) {
		t.Errorf("a warm daemon wrote a token file: %v", err)
	}
	pids := pidsOf(warm)
	_ = syscall.Kill(pids["dead"], syscall.SIGKILL)
	testwait.For(t, 10*time.Second, "dead's exit in status", func() bool { return pidsOf(e.statusJSON())["dead"] == 0 })

	start := time.Now()
	code, out, errOut = e.launch(`{"kept": {}, "dead": {}, "fresh": {}}`, "GATEWAY_ACCESS_TOKEN="+token)
	if code != 0 {
		t.Fatalf("launch to the warm daemon: exit %d\nstdout: %s\nstderr: %s\nlog:\n%s", code, out, errOut, e.logText())
	}
	t.Logf("hand-over: ready after %v: %s", time.Since(start), out)
	doc := e.statusJSON()
	now := pidsOf(doc)
	if doc.Status != "ok" || doc.PID != daemon || now["kept"] != pids["kept"] || now["dead"] == 0 || now["fresh"] == 0 || len(now) != 3 {
		t.Errorf("after the hand-over: status %q pid %d, servers %v (warm: %v)", doc.Status, doc.PID, now, pids)
	}
	if !waitExit(t, pids["left"], 10*time.Second) {
		t.Errorf("the warm server left out of the config (pid %d) still runs", pids["left"])
	}
	if res := mcpCall(t, e.url(), token, "kept_echo", `{"text":"adopted"}`); !strings.Contains(res, "adopted from kept") {
		t.Errorf("call to the adopted server: %s", res)
	}
	if res := mcpCall(t, e.url(), token, "fresh_echo", `{"text":"new"}`); !strings.Contains(res, "new from fresh") {
		t.Errorf("call to the new server: %s", res)
	}
	if b, _ := os.ReadFile(e.path("token")); string(b) != token {
		t.Errorf("token file %q, want the handed-over token", b)
	}
	noSecrets("after the hand-over", warmToken)
	if log := e.logText(); !strings.Contains(log, `msg="warm: a config was handed over" adopted=kept starting=dead,fresh`) ||
		strings.Contains(log, token) {
		t.Errorf("log:\n%s", log)
	}
	// A second hand-over is refused (SPEC §2.7).
	code, _, errOut = e.launch(`{"kept": {}}`, "GATEWAY_ACCESS_TOKEN=other")
	if code != 1 || !strings.Contains(errOut, "already running (pid ") {
		t.Errorf("second launch: exit %d, %s", code, errOut)
	}
}

// A config the warm daemon cannot take leaves it warm, as it was: an
// invalid one, one it cannot serve on its port, one for another log file
// or another memory budget.
func TestWarmRefusalLeavesItWarm(t *testing.T) {
	e := newEnv(t)
	e.warmCatalog("a")
	if code, out, errOut := e.warm(nil, "a"); code != 0 {
		t.Fatalf("warm: exit %d\n%s%s", code, out, errOut)
	}
	before := pidsOf(e.statusJSON())["a"]
	// An invalid config fails as it always does, before any hand-over.
	if code, _, errOut := e.launch(`{"a": {}, "nosuch": {}}`, "GATEWAY_ACCESS_TOKEN=t"); code != 1 || !strings.Contains(errOut, `server "nosuch"`) {
		t.Errorf("invalid config: exit %d, %s", code, errOut)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	code, _, errOut := e.launchWith(`{"a": {}}`, []string{"GATEWAY_ACCESS_TOKEN=t"}, "--port", itoaInt(port))
	if code != 1 || !strings.Contains(errOut, "listen on 127.0.0.1:"+itoaInt(port)) {
		t.Errorf("busy port: exit %d, %s", code, errOut)
	}
	code, _, errOut = e.launchWith(`{"a": {}}`, []string{"GATEWAY_ACCESS_TOKEN=t"}, "--log-file", e.path("other.log"))
	if code != 1 || !strings.Contains(errOut, "this warm gateway logs to "+e.path("gateway.log")) {
		t.Errorf("other log file: exit %d, %s", code, errOut)
	}
	code, _, errOut = e.launchWith(`{"a": {}}`, []string{"GATEWAY_ACCESS_TOKEN=t"}, "--memory-budget", "1GiB")
	if code != 1 || !strings.Contains(errOut, "this warm gateway's memory budget is") {
		t.Errorf("another memory budget: exit %d, %s", code, errOut)
	}
	if doc := e.statusJSON(); doc.Status != "warm" || pidsOf(doc)["a"] != before {
		t.Errorf("after the refusals: status %q, a's pid %d (was %d)", doc.Status, pidsOf(doc)["a"], before)
	}
	if _, err := os.Stat(e.path("run/" + ipc.HandoverSocketName)); err != nil {
		t.Errorf("the hand-over socket is gone after a refusal: %v", err)
	}
	e.mustLaunch(`{"a": {}}`)
	if pidsOf(e.statusJSON())["a"] != before {
		t.Error("the server was not adopted after the refusals")
	}
}

// settingsEnv is e's paths, port and some limits as the environment
// gives them (SPEC §10), with no flag.
func (e *env) settingsEnv() []string {
	return []string{"MCP_GATEWAY_PORT=" + itoaInt(e.port), "MCP_GATEWAY_LISTEN=127.0.0.1",
		"MCP_GATEWAY_TOKEN_FILE=" + e.path("token"), "MCP_GATEWAY_LOG_FILE=" + e.path("gateway.log"),
		"MCP_GATEWAY_RUN_DIR=" + e.path("run"), "MCP_GATEWAY_CATALOG_FILE=" + e.path("catalog.json"),
		"MCP_GATEWAY_SERVERS_DIR=" + e.path("servers"), "MCP_GATEWAY_GITHUB_URL=http://127.0.0.1:1",
		"MCP_GATEWAY_ADAPTERS_DIR=" + e.path("adapters"), "MCP_GATEWAY_ALLOWED_ORIGINS=https://example.test",
		"MCP_GATEWAY_MEMORY_BUDGET=256MiB", "MCP_GATEWAY_LOG_SHARE=64KiB", "MCP_GATEWAY_CALL_LOG=off"}
}

// handedOverAdopts launches config with env and no flag but --config, as
// the SDK does, and checks that the warm servers named are adopted (same
// pid, and the log says so), and that no server's environment holds the
// token or an MCP_GATEWAY_* setting (SPEC §2.9, §7.1).
func (e *env) handedOverAdopts(config, token string, env []string, adopted ...string) {
	t := e.t
	t.Helper()
	warm := pidsOf(e.statusJSON())
	start := time.Now()
	code, out, errOut := e.run(env, "--config", config)
	t.Cleanup(func() {
		if pid := e.daemonPID(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			waitExit(t, pid, 15*time.Second)
		}
	})
	if code != 0 {
		t.Fatalf("launch to the warm daemon: exit %d\nstdout: %s\nstderr: %s\nlog:\n%s", code, out, errOut, e.logText())
	}
	t.Logf("hand-over: ready after %v: %s", time.Since(start), out)
	now := pidsOf(e.statusJSON())
	for _, name := range adopted {
		if now[name] == 0 || now[name] != warm[name] {
			t.Errorf("%s: pid %d after the hand-over, %d warm: not adopted", name, now[name], warm[name])
		}
	}
	if log := e.logText(); !strings.Contains(log, `msg="warm: a config was handed over" adopted=`+strings.Join(adopted, ",")+` `) {
		t.Errorf("the hand-over's log line does not adopt %v:\n%s", adopted, log)
	}
	for i, name := range slices.Sorted(maps.Keys(now)) {
		tool := name + "_env"
		if i == 0 {
			tool = "env" // the first server's tools keep their names (config-key order)
		}
		var res struct {
			Result struct {
				Content []struct{ Text string }
			}
		}
		raw := mcpCall(t, e.url(), token, tool, `{}`)
		if err := json.Unmarshal([]byte(raw), &res); err != nil || len(res.Result.Content) != 1 || !strings.Contains(res.Result.Content[0].Text, "PATH=") {
			t.Fatalf("%s: %v: %s", tool, err, raw)
		}
		for _, kv := range strings.Split(res.Result.Content[0].Text, "\n") {
			// The code dir is the one a server gets (SPEC §7.1).
			if n, _, _ := strings.Cut(kv, "="); n == supervisorTokenEnv || strings.HasPrefix(n, "MCP_GATEWAY_") && n != "MCP_GATEWAY_CODE_DIR" {
				t.Errorf("%s's environment holds %s", name, n)
			}
		}
		if strings.Contains(raw, token) {
			t.Errorf("%s's environment holds the token", name)
		}
	}
}

// A template warms with flags; the launch sets its port, paths and
// limits in its environment instead: the servers are adopted all the
// same, since the gateway's own settings are no server's (SPEC §2.9).
func TestWarmAdoptsWhenTheLaunchSetsItsSettingsInTheEnvironment(t *testing.T) {
	e := newEnv(t)
	e.warmCatalog("kept", "other", "fresh")
	if code, out, errOut := e.warm(nil, "kept", "other"); code != 0 {
		t.Fatalf("warm: exit %d\n%s%s", code, out, errOut)
	}
	const token = "tok-ENV-LAUNCH-3b8e"
	e.handedOverAdopts(`{"kept": {}, "other": {}, "fresh": {}}`, token,
		append(e.settingsEnv(), "GATEWAY_ACCESS_TOKEN="+token), "kept", "other")
}

// As the SDK launches: the template's image sets the paths in the
// environment for both warm and launch, and the launch adds the token and
// the sandbox's port; every warm server whose entry did not change is
// adopted.
func TestWarmAdoptsTheLaunchTheSDKMakes(t *testing.T) {
	e := newEnv(t)
	e.warmCatalog("kept", "other")
	image := []string{"MCP_GATEWAY_TOKEN_FILE=" + e.path("token"), "MCP_GATEWAY_LOG_FILE=" + e.path("gateway.log"),
		"MCP_GATEWAY_RUN_DIR=" + e.path("run"), "MCP_GATEWAY_CATALOG_FILE=" + e.path("catalog.json"),
		"MCP_GATEWAY_SERVERS_DIR=" + e.path("servers")}
	code, out, errOut := e.run(image, "warm", "kept", "other")
	t.Cleanup(func() {
		if pid := e.daemonPID(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			waitExit(t, pid, 15*time.Second)
		}
	})
	if code != 0 {
		t.Fatalf("warm: exit %d\n%s%s", code, out, errOut)
	}
	const token = "tok-SDK-LAUNCH-91c0"
	e.handedOverAdopts(`{"kept": {}, "other": {}}`, token,
		append(image, "MCP_GATEWAY_PORT="+itoaInt(e.port), "MCP_GATEWAY_LISTEN=127.0.0.1", "GATEWAY_ACCESS_TOKEN="+token), "kept", "other")
}

const supervisorTokenEnv = "GATEWAY_ACCESS_TOKEN"
