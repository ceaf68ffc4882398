package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pinnedMemory is the server-memory version test/package.json pins; the
// template entry below names it, as a reference-gateway template would.
const pinnedMemory = "@modelcontextprotocol/server-memory@2026.8.31"

// templateCatalog is a template's catalog file written for the seed's
// reference gateway: a server run through `npx -y <pkg>@<version>`, and
// an install step that pull recognises as installing that same package
// (so it does not run: it would install globally).
var templateCatalog = fmt.Sprintf(`{"notes": {"description": "a template's pinned server",
  "command": [["npx", "-y", %q]],
  "install": [["npm", "install", "-g", %q]]}}`, pinnedMemory, pinnedMemory)

// TestStartFromDisk is SPEC §2.8 with the real npm servers: pulled into
// a temporary npm cache and servers dir, then launched by the real
// binary in a network namespace with only loopback. Pulling needs the
// npm registry, as `make npm` does.
func TestStartFromDisk(t *testing.T) {
	needNPM(t)
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is not on PATH")
	}
	dir := t.TempDir()
	offline(t, "true") // skips here, early, if there is no network namespace
	servers := filepath.Join(dir, "servers")
	npmCache := filepath.Join(dir, "npm-cache")
	catalogFile := filepath.Join(dir, "catalog.json")
	if err := os.WriteFile(catalogFile, []byte(templateCatalog), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "npm_config_cache="+npmCache, "npm_config_update_notifier=false")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pull := exec.CommandContext(ctx, gatewayBin, "pull", "memory", "sequentialthinking", "filesystem", "notes",
		"--servers-dir", servers, "--catalog-file", catalogFile)
	pull.Env, pull.Dir = env, dir // not below test/, whose node_modules holds the packages
	out, err := pull.CombinedOutput()
	if err != nil {
		t.Fatalf("mcp-gateway pull: %v\n%s", err, out)
	}
	for _, want := range []string{"pulled @modelcontextprotocol/server-memory 2026.8.31", "step 1 (npm install -g " + pinnedMemory + ") installs " + pinnedMemory} {
		if !strings.Contains(string(out), want) {
			t.Errorf("pull output lacks %q:\n%s", want, out)
		}
	}
	l := &offlineLauncher{dir: dir, servers: servers, catalog: catalogFile, env: env}

	t.Run("pulled servers", func(t *testing.T) {
		data := filepath.Join(t.TempDir(), "data")
		os.MkdirAll(data, 0o755)
		os.WriteFile(filepath.Join(data, "a.txt"), []byte("alpha"), 0o644)
		g := l.launch(t, fmt.Sprintf(`{"memory": {}, "sequentialthinking": {}, "filesystem": {"paths": [%q]}}`, data))
		steps := g.client(t, "--list",
			"--call", "create_entities", "--args", `{"entities":[{"name":"Ada","entityType":"person","observations":["offline"]}]}`,
			"--call", "sequentialthinking", "--args", `{"thought":"one","nextThoughtNeeded":false,"thoughtNumber":1,"totalThoughts":1}`,
			"--call", "list_directory", "--args", fmt.Sprintf(`{"path":%q}`, data))
		for i, want := range []string{"create_entities", "Ada", `thoughtNumber`, "[FILE] a.txt"} {
			if got := fmt.Sprint(steps[i]); !strings.Contains(got, want) {
				t.Errorf("step %d = %s, want %q", i, got, want)
			}
		}
	})
	t.Run("template npx entry", func(t *testing.T) {
		g := l.launch(t, `{"notes": {}}`)
		steps := g.client(t, "--call", "read_graph", "--args", `{}`)
		if got := fmt.Sprint(steps[0]); !strings.Contains(got, "entities") {
			t.Errorf("read_graph = %s", got)
		}
	})
	t.Run("not pulled", func(t *testing.T) {
		// memory was pulled and time was not: the advice is time's alone.
		// uv is not installed here: a stand-in uvx on PATH lets the start
		// go on to the registry, as it would in a template with uv.
		bin := t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "uvx"), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		withUV := &offlineLauncher{dir: l.dir, servers: l.servers, catalog: l.catalog, env: append(slices.Clone(l.env), "PATH="+bin+":"+os.Getenv("PATH"))}
		code, _, stderr, took := withUV.try(t, `{"memory": {}, "time": {}}`)
		if code != 1 || took > 10*time.Second {
			t.Fatalf("exit %d after %v, want 1 within 10 s; stderr:\n%s", code, took, stderr)
		}
		for _, want := range []string{`server "time"`, "mcp-server-time was not pre-installed", "could not be reached", "`mcp-gateway pull time`"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr lacks %q:\n%s", want, stderr)
			}
		}
		if strings.Contains(stderr, "pull memory") {
			t.Errorf("pull is advised for memory, which was pulled:\n%s", stderr)
		}
		// Nothing pulled at all: an npm server.
		empty := &offlineLauncher{dir: l.dir, servers: t.TempDir(), catalog: l.catalog, env: l.env}
		code, _, stderr, took = empty.try(t, `{"memory": {}}`)
		if code != 1 || took > 10*time.Second || !strings.Contains(stderr, "the npm registry") || !strings.Contains(stderr, "`mcp-gateway pull memory`") {
			t.Errorf("exit %d after %v, want 1 within 10 s naming the npm registry and the pull; stderr:\n%s", code, took, stderr)
		}
		t.Logf("not pulled, offline: failed after %v: %s", took, stderr)
	})
}

// offlineLauncher launches the real binary in a network namespace with
// only loopback, on a servers dir.
type offlineLauncher struct {
	dir, servers, catalog string
	env                   []string
}

// offlineGateway is a daemon started offline.
type offlineGateway struct {
	pid        int
	url, token string
}

// try runs `mcp-gateway --config config` offline and returns its exit
// status, output and how long it took; a daemon it leaves is stopped at
// the test's end.
func (l *offlineLauncher) try(t *testing.T, config string) (int, string, string, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	token := "offline-" + strconv.Itoa(os.Getpid())
	cmd := offline(t, gatewayBin, "--config", config, "--port", "50005", "--listen", "127.0.0.1",
		"--token-file", filepath.Join(dir, "token"), "--log-file", filepath.Join(dir, "gateway.log"),
		"--run-dir", filepath.Join(dir, "run"), "--catalog-file", l.catalog, "--servers-dir", l.servers,
		"--adapters-dir", filepath.Join(dir, "adapters"), "--startup-timeout", "50s")
	cmd.Env = append(append(cmd.Env, l.env...), "GATEWAY_ACCESS_TOKEN="+token)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stop := exec.Command(gatewayBin, "stop", "--run-dir", filepath.Join(dir, "run"))
		_ = stop.Run() // nothing to stop after a failed launch
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
			t.Logf("gateway log:\n%s", log)
		}
	})
	return code, stdout.String(), stderr.String(), took
}

// launch is try that must succeed: it returns the daemon.
func (l *offlineLauncher) launch(t *testing.T, config string) *offlineGateway {
	t.Helper()
	code, stdout, stderr, took := l.try(t, config)
	if code != 0 {
		t.Fatalf("offline launch: exit %d after %v\n%s%s", code, took, stdout, stderr)
	}
	t.Logf("offline launch ready after %v: %s", took, strings.TrimSpace(stdout))
	var pid int
	if _, err := fmt.Sscanf(stdout[strings.Index(stdout, "(pid "):], "(pid %d", &pid); err != nil {
		t.Fatalf("no pid in %q", stdout)
	}
	return &offlineGateway{pid: pid, url: "http://127.0.0.1:50005/mcp", token: "offline-" + strconv.Itoa(os.Getpid())}
}

// client runs the TypeScript SDK client in the daemon's network
// namespace with args and returns its steps' output, one map per step.
func (g *offlineGateway) client(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	cmd := inNetnsOf(t, g.pid, append([]string{"node", filepath.Join(root, "test", "client", "mcp-client.mjs"), "--url", g.url, "--token", g.token}, args...)...)
	return runClient(t, cmd)
}
