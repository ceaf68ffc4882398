// Package e2e tests the real gateway binary with parts nobody here wrote:
// the npm servers server-everything, -memory and -filesystem (pinned in
// test/package.json), the official TypeScript SDK client (v1, and v2 for
// tasks with the SDK v2 server fixture, tasks_test.go), and go-sdk's
// client, over real HTTP; surface_test.go has the surface beyond tools
// (prompts, resources, templates, completion, subscriptions).
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-gateway/mcp-gateway/internal/testbin"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

var (
	root       string // the repo root
	gatewayBin string
)

func TestMain(m *testing.M) {
	if os.Getenv(netnsEnv) == "1" {
		os.Exit(netnsMain()) // this binary as the netns helper (netns_test.go)
	}
	root = testbin.Root()
	os.Exit(testbin.Main(m, "mcp-gateway-e2e-", &gatewayBin))
}

// needNPM skips without the npm packages, except in CI, where their absence
// is a failure.
func needNPM(t *testing.T) string {
	t.Helper()
	return filepath.Join(testbin.NodeModules(t), ".bin")
}

// gateway is one running daemon with real npm servers.
type gateway struct {
	dir, url, token string
	pid             int
}

func startGateway(t *testing.T) *gateway {
	t.Helper()
	nm := needNPM(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	os.WriteFile(filepath.Join(data, "a.txt"), []byte("alpha"), 0o644)
	// A template's override: memory and filesystem from the pinned installs.
	catalog := fmt.Sprintf(`{
	  "memory": {"description": "pinned", "command": [["node", %q]], "env": {"MEMORY_FILE_PATH": %q}},
	  "filesystem": {"description": "pinned", "command": [["node", %q], ["{{paths}}"]], "properties": {"paths": {"type": "array", "required": true}}}
	}`, filepath.Join(nm, "mcp-server-memory"), filepath.Join(dir, "memory.jsonl"), filepath.Join(nm, "mcp-server-filesystem"))
	os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(catalog), 0o644)
	config := fmt.Sprintf(`{"memory": {}, "filesystem": {"paths": [%q]}, "everything": {"runCmd": "exec node %s"}}`, data, filepath.Join(nm, "mcp-server-everything"))
	return launch(t, dir, config)
}

// launch starts the gateway daemon with config in dir and stops it at the
// test's end.
func launch(t *testing.T, dir, config string) *gateway {
	t.Helper()
	return launchEnv(t, dir, config)
}

// launchEnv is launch with env (KEY=VALUE) added to the gateway's
// environment.
func launchEnv(t *testing.T, dir, config string, env ...string) *gateway {
	t.Helper()
	port := freePort(t)
	token := "e2e-token-" + strconv.Itoa(port)
	cmd := exec.Command(gatewayBin, "--config", config, "--port", strconv.Itoa(port), "--listen", "127.0.0.1",
		"--token-file", filepath.Join(dir, "token"), "--log-file", filepath.Join(dir, "gateway.log"),
		"--run-dir", filepath.Join(dir, "run"), "--catalog-file", filepath.Join(dir, "catalog.json"),
		"--code-dir", filepath.Join(dir, "code"))
	cmd.Env = append(append(os.Environ(), "GATEWAY_ACCESS_TOKEN="+token), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
		t.Fatalf("launch: %v\n%s\nlog:\n%s", err, out, log)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "run", "mcp-gateway.pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	g := &gateway{dir: dir, url: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), token: token, pid: pid}
	t.Cleanup(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		testwait.Until(15*time.Second, func() bool { return syscall.Kill(pid, 0) != nil }) // the daemon's exit
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
			t.Logf("gateway log:\n%s", log)
		}
	})
	return g
}

func freePort(t *testing.T) int {
	portsMu.Lock()
	defer portsMu.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		// Never the same port twice in this process: a test that asks for
		// one for a server and one for the gateway got the same one back
		// (EADDRINUSE in TestHTTPPlusSSEServer on a fresh CI clone).
		if !portsGiven[port] {
			portsGiven[port] = true
			return port
		}
	}
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

func TestTypeScriptClient(t *testing.T) {
	g := startGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "test", "client", "mcp-client.mjs"),
		"--url", g.url, "--token", g.token, "--list",
		"--call", "echo", "--args", `{"message":"hi from ts"}`,
		"--call", "create_entities", "--args", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`,
		"--call", "read_graph", "--args", `{}`,
		"--call", "list_directory", "--args", fmt.Sprintf(`{"path":%q}`, filepath.Join(g.dir, "data")))
	steps := runClient(t, cmd)
	if len(steps) != 5 {
		t.Fatalf("client printed %d steps, want 5: %v", len(steps), steps)
	}
	tools := fmt.Sprint(steps[0]["tools"])
	for _, name := range []string{"echo", "create_entities", "read_graph", "list_directory"} {
		if !strings.Contains(tools, name) {
			t.Errorf("tools/list lacks %s", name)
		}
	}
	for i, want := range []string{"Echo: hi from ts", "Ada", "wrote the first program", "[FILE] a.txt"} {
		if got := fmt.Sprint(steps[i+1]["result"]); !strings.Contains(got, want) {
			t.Errorf("step %d result %s, want %q", i+1, got, want)
		}
	}
}

// tsClient runs the TypeScript SDK client (test/client/mcp-client.mjs)
// against g with steps args, and returns its steps' output.
func tsClient(t *testing.T, g *gateway, args ...string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(root, "test", "client", "mcp-client.mjs"), "--url", g.url, "--token", g.token}, args...)...)
	return runClient(t, cmd)
}

// runClient runs a mcp-client.mjs command and returns its output, one
// map per step (one JSON line each).
func runClient(t *testing.T, cmd *exec.Cmd) []map[string]any {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, stderr.String())
	}
	var steps []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("client output %q: %v", sc.Text(), err)
		}
		steps = append(steps, m)
	}
	return steps
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// goSDKSession connects go-sdk's client to g at 2025-11-25; the session
// closes at the test's end.
func goSDKSession(t *testing.T, ctx context.Context, g *gateway) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: g.url, HTTPClient: &http.Client{Transport: bearer{g.token}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestGoSDKClient(t *testing.T) {
	g := startGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := goSDKSession(t, ctx, g)
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if len(names) < 30 {
		t.Errorf("%d tools, want the three servers' (≥ 30): %v", len(names), names)
	}
	text := func(res *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"echo", map[string]any{"message": "hi from go"}, "Echo: hi from go"},
		{"create_entities", map[string]any{"entities": []any{map[string]any{"name": "Grace", "entityType": "person", "observations": []any{"COBOL"}}}}, "Grace"},
		{"read_graph", map[string]any{}, "COBOL"},
		{"list_directory", map[string]any{"path": filepath.Join(g.dir, "data")}, "[FILE] a.txt"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if got := text(res); !strings.Contains(got, c.want) || res.IsError {
			t.Errorf("%s = %q (isError %v), want %q", c.tool, got, res.IsError, c.want)
		}
	}
}
