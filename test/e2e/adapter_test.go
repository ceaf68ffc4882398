package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// TestNPMAdapter runs the example external adapter (examples/adapters/npm)
// from a temporary adapters dir: the key "npm/@modelcontextprotocol/server-everything"
// must become `npx -y @modelcontextprotocol/server-everything`, whose tools a
// real client then calls through the gateway. npx installs from the
// registry and ignores PATH, so a stand-in npx first on PATH records its
// arguments and runs the pinned install in test/node_modules instead.
func TestNPMAdapter(t *testing.T) {
	nm := needNPM(t)
	dir := t.TempDir()
	adapter := filepath.Join(dir, "adapters", "npm")
	build := exec.Command("go", "build", "-o", adapter, "./examples/adapters/npm")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example adapter: %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "bin")
	argsFile := filepath.Join(dir, "npx-args")
	npx := fmt.Sprintf(`#!/bin/sh
# Stand-in for npx: records its arguments, runs the pinned install.
echo "$@" >> %q
[ "$1" = "-y" ] && shift
[ "$1" = "@modelcontextprotocol/server-everything" ] || { echo "stand-in npx: unexpected package $1" >&2; exit 1; }
shift
exec node %q "$@"
`, argsFile, filepath.Join(nm, "mcp-server-everything"))
	os.MkdirAll(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "npx"), []byte(npx), 0o755); err != nil {
		t.Fatal(err)
	}

	port := freePort(t)
	token := "e2e-adapter-token-" + strconv.Itoa(port)
	logFile := filepath.Join(dir, "gateway.log")
	runDir := filepath.Join(dir, "run")
	cmd := exec.Command(gatewayBin, "--config", `{"npm/@modelcontextprotocol/server-everything":{}}`,
		"--port", strconv.Itoa(port), "--listen", "127.0.0.1", "--adapters-dir", filepath.Dir(adapter),
		"--token-file", filepath.Join(dir, "token"), "--log-file", logFile, "--run-dir", runDir,
		"--catalog-file", filepath.Join(dir, "catalog.json"))
	cmd.Env = append(os.Environ(), "GATEWAY_ACCESS_TOKEN="+token, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(logFile)
		t.Fatalf("launch: %v\n%s\nlog:\n%s", err, out, log)
	}
	b, _ := os.ReadFile(filepath.Join(runDir, "mcp-gateway.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		testwait.Until(15*time.Second, func() bool { return syscall.Kill(pid, 0) != nil }) // the daemon's exit
		if t.Failed() {
			log, _ := os.ReadFile(logFile)
			t.Logf("gateway log:\n%s", log)
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-adapter", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   fmt.Sprintf("http://127.0.0.1:%d/mcp", port),
		HTTPClient: &http.Client{Transport: bearer{token}},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "echo") {
		t.Fatalf("tools %v lack everything's echo", names)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "via the npm adapter"}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "via the npm adapter") {
		t.Errorf("echo returned %+v", res.Content)
	}
	args, _ := os.ReadFile(argsFile)
	if got, want := strings.TrimSpace(string(args)), "-y @modelcontextprotocol/server-everything"; got != want {
		t.Errorf("npx ran with %q, want %q", got, want)
	}

	// The adapter ran only to resolve the entry, in the launcher and in the
	// daemon: no process of it is left.
	procs, _ := filepath.Glob("/proc/[0-9]*/exe")
	for _, p := range procs {
		if exe, _ := os.Readlink(p); exe == adapter {
			t.Errorf("adapter still running: %s", filepath.Dir(p))
		}
	}
}
