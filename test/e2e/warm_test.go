package e2e

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// TestWarmStart is SPEC §2.9 end to end with the real npm servers: a
// template runs `mcp-gateway warm memory sequentialthinking`, and the
// sandbox's launch hands it a config with memory (adopted), filesystem
// (new) and without sequentialthinking (stopped).
func TestWarmStart(t *testing.T) {
	nm := needNPM(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	os.WriteFile(filepath.Join(data, "a.txt"), []byte("alpha"), 0o644)
	catalog := fmt.Sprintf(`{
	  "memory": {"description": "pinned", "command": [["node", %q]], "env": {"MEMORY_FILE_PATH": %q}},
	  "sequentialthinking": {"description": "pinned", "command": [["node", %q]]},
	  "filesystem": {"description": "pinned", "command": [["node", %q], ["{{paths}}"]], "properties": {"paths": {"type": "array", "required": true}}}
	}`, filepath.Join(nm, "mcp-server-memory"), filepath.Join(dir, "memory.jsonl"),
		filepath.Join(nm, "mcp-server-sequential-thinking"), filepath.Join(nm, "mcp-server-filesystem"))
	os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(catalog), 0o644)
	paths := []string{"--token-file", filepath.Join(dir, "token"), "--log-file", filepath.Join(dir, "gateway.log"),
		"--run-dir", filepath.Join(dir, "run"), "--catalog-file", filepath.Join(dir, "catalog.json")}
	const warmToken = "warm-LEAKCHECK-5d1e"
	// The code dir is given to warm and launch alike: it is in every
	// server's environment (SPEC §7.1), so adoption needs the same one.
	codeDir := filepath.Join(dir, "code")

	w := exec.Command(gatewayBin, append([]string{"warm", "memory", "sequentialthinking", "--code-dir", codeDir}, paths...)...)
	w.Env = append(os.Environ(), "GATEWAY_ACCESS_TOKEN="+warmToken) // set by mistake in the template build
	out, err := w.CombinedOutput()
	if err != nil {
		t.Fatalf("mcp-gateway warm: %v\n%s", err, out)
	}
	pidFile, _ := os.ReadFile(filepath.Join(dir, "run", "mcp-gateway.pid"))
	daemon, _ := strconv.Atoi(strings.TrimSpace(string(pidFile)))
	t.Cleanup(func() {
		_ = syscall.Kill(daemon, syscall.SIGTERM)
		testwait.Until(15*time.Second, func() bool { return syscall.Kill(daemon, 0) != nil }) // the daemon's exit
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
			t.Logf("gateway log:\n%s", log)
		}
	})
	warm := statusPIDs(t, paths)
	if warm["memory"] == 0 || warm["sequentialthinking"] == 0 {
		t.Fatalf("warm servers: %v", warm)
	}
	// Before the hand-over: no token in the warm daemon's argv, environment or files.
	for _, f := range []string{"cmdline", "environ"} {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(daemon) + "/" + f)
		if strings.Contains(string(b), warmToken) || strings.Contains(string(b), "GATEWAY_ACCESS_TOKEN") {
			t.Errorf("the warm daemon's %s holds the token: %q", f, b)
		}
	}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Type()&fs.ModeSocket == 0 {
			if b, _ := os.ReadFile(path); strings.Contains(string(b), warmToken) {
				t.Errorf("%s holds the token", path)
			}
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(dir, "token")); !os.IsNotExist(err) {
		t.Errorf("a warm daemon wrote a token file (%v)", err)
	}
	if _, err := os.Stat(codeDir); !os.IsNotExist(err) {
		t.Errorf("a warm daemon, which serves nothing yet, wrote the code API (%v)", err)
	}

	port := freePort(t)
	token := "handed-" + strconv.Itoa(port)
	// As the SDK launches: --config and the token, no flag; the port,
	// paths and limits come from the environment, and are no server's
	// business (SPEC §2.9): memory is adopted all the same.
	launch := exec.Command(gatewayBin, "--config", fmt.Sprintf(`{"memory": {}, "filesystem": {"paths": [%q]}}`, data))
	launch.Env = append(os.Environ(), "GATEWAY_ACCESS_TOKEN="+token, "MCP_GATEWAY_PORT="+strconv.Itoa(port), "MCP_GATEWAY_LISTEN=127.0.0.1",
		"MCP_GATEWAY_TOKEN_FILE="+filepath.Join(dir, "token"), "MCP_GATEWAY_LOG_FILE="+filepath.Join(dir, "gateway.log"),
		"MCP_GATEWAY_RUN_DIR="+filepath.Join(dir, "run"), "MCP_GATEWAY_CATALOG_FILE="+filepath.Join(dir, "catalog.json"),
		"MCP_GATEWAY_LOG_SHARE=64KiB", "MCP_GATEWAY_CALL_LOG=off", "MCP_GATEWAY_CODE_DIR="+codeDir)
	start := time.Now()
	if out, err := launch.CombinedOutput(); err != nil {
		t.Fatalf("launch to the warm daemon: %v\n%s", err, out)
	}
	t.Logf("hand-over ready after %v", time.Since(start))
	now := healthPIDs(t, port)
	if now["memory"] != warm["memory"] || now["filesystem"] == 0 || len(now) != 2 {
		t.Errorf("after the hand-over: %v (warm: %v); want memory adopted, filesystem new", now, warm)
	}
	if log, _ := os.ReadFile(filepath.Join(dir, "gateway.log")); !strings.Contains(string(log), `msg="warm: a config was handed over" adopted=memory starting=filesystem `) {
		t.Errorf("the hand-over's log line does not adopt memory")
	}
	for _, pid := range now {
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		codeDirSet := false
		for _, kv := range strings.Split(string(env), "\x00") {
			// The code dir is the one gateway variable a server gets (SPEC §7.1).
			if kv == "MCP_GATEWAY_CODE_DIR="+codeDir {
				codeDirSet = true
				continue
			}
			if name, _, _ := strings.Cut(kv, "="); name == "GATEWAY_ACCESS_TOKEN" || strings.HasPrefix(name, "MCP_GATEWAY_") {
				t.Errorf("server pid %d's environment holds %s", pid, name)
			}
		}
		if !codeDirSet {
			t.Errorf("server pid %d's environment lacks MCP_GATEWAY_CODE_DIR=%s (SPEC §7.1)", pid, codeDir)
		}
	}
	left := warm["sequentialthinking"]
	testwait.For(t, 10*time.Second, fmt.Sprintf("sequentialthinking (pid %d), left out of the config, to end", left), func() bool {
		if syscall.Kill(left, 0) != nil {
			return true
		}
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", left))
		return strings.Contains(string(b), ") Z ") // a zombie: it has exited
	})
	g := &gateway{dir: dir, url: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), token: token, pid: daemon}
	steps := tsClient(t, g, "--call", "create_entities", "--args", `{"entities":[{"name":"Warm","entityType":"server","observations":["adopted"]}]}`,
		"--call", "list_directory", "--args", fmt.Sprintf(`{"path":%q}`, data))
	if got := fmt.Sprint(steps); !strings.Contains(got, "adopted") || !strings.Contains(got, "[FILE] a.txt") {
		t.Errorf("tool calls: %s", got)
	}

	// The code API (SPEC §12): written after the hand-over, without the
	// token; code reaches the adopted server with the token handed over,
	// read from the token file at call time, nothing set or rewritten.
	waitCode(t, codeDir, "the code API after the hand-over", func(index string) bool {
		return strings.Contains(index, "## memory:") && strings.Contains(index, "## filesystem:")
	})
	checkTreeSafe(t, codeDir, token)
	checkTreeSafe(t, codeDir, warmToken)
	if _, err := exec.LookPath("python3"); err == nil {
		out, err := runPython(t, codeDir, "from mcp_tools import memory\nprint([e['name'] for e in memory.read_graph()['entities']])", nil)
		if err != nil || strings.TrimSpace(out) != "['Warm']" {
			t.Errorf("memory.read_graph() through the code API: %v\n%s", err, out)
		}
	}
}

// statusPIDs asks `mcp-gateway status --json` for each server's pid.
func statusPIDs(t *testing.T, paths []string) map[string]int {
	t.Helper()
	out, err := exec.Command(gatewayBin, append([]string{"status", "--json"}, paths...)...).Output()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	var doc struct {
		Status  string `json:"status"`
		Servers []struct {
			Name string `json:"name"`
			PID  int    `json:"pid"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || doc.Status != "warm" {
		t.Fatalf("status %q (%v), want warm:\n%s", doc.Status, err, out)
	}
	pids := map[string]int{}
	for _, s := range doc.Servers {
		pids[s.Name] = s.PID
	}
	return pids
}

// healthPIDs reads each server's pid from /health.
func healthPIDs(t *testing.T, port int) map[string]int {
	t.Helper()
	h, _ := readHealth(t, fmt.Sprintf("http://127.0.0.1:%d/health", port))
	pids := map[string]int{}
	for _, s := range h.Servers {
		pids[s.Name] = s.PID
	}
	return pids
}
