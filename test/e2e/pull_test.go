package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// `mcp-gateway pull memory` leaves the built-in npx server ready to start
// without network: its install step puts the package and its
// dependencies in npx's cache (`npm cache add`, the step before, stored
// the package alone, and an offline start failed with ENOTCACHED on its
// first dependency). It needs the npm registry, as `make npm` does.
func TestPullPreparesAnOfflineNpxStart(t *testing.T) {
	needNPM(t)
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx not on PATH")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "npm_config_cache="+filepath.Join(dir, "npm"), "npm_config_update_notifier=false")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pull := exec.CommandContext(ctx, gatewayBin, "pull", "memory", "--catalog-file", filepath.Join(dir, "none.json"))
	pull.Env = env
	pull.Dir = dir // not below test/, whose node_modules holds the package
	if out, err := pull.CombinedOutput(); err != nil {
		t.Fatalf("mcp-gateway pull memory: %v\n%s", err, out)
	}
	// The catalog's own run command, offline.
	run := exec.CommandContext(ctx, "npx", "-y", "@modelcontextprotocol/server-memory")
	run.Dir = dir
	run.Env = append(env, "npm_config_offline=true", "MEMORY_FILE_PATH="+filepath.Join(dir, "memory.jsonl"))
	run.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	var stderr strings.Builder
	run.Stderr = &stderr
	stdout, err := run.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = run.Process.Kill(); _ = run.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if !strings.Contains(line, `"serverInfo"`) {
		_ = run.Process.Kill()
		_ = run.Wait()
		t.Fatalf("offline npx start after pull: want an initialize result, got %q (%v); stderr:\n%s", line, err, stderr.String())
	}
}
