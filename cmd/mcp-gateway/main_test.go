package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/ipc"
)

// gatewayBin is the real binary, built once by TestMain.
var gatewayBin string

func TestMain(m *testing.M) {
	if fakeserver.Enabled() {
		os.Exit(fakeserver.Main())
	}
	dir, err := os.MkdirTemp("", "mcp-gateway-bin-")
	if err != nil {
		panic(err)
	}
	gatewayBin = filepath.Join(dir, "mcp-gateway")
	out, err := exec.Command("go", "build", "-o", gatewayBin, ".").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build mcp-gateway: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one gateway's scratch paths.
type env struct {
	t    *testing.T
	dir  string
	port int
}

func newEnv(t *testing.T) *env {
	return &env{t: t, dir: t.TempDir(), port: freePort(t)}
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func (e *env) flags() []string {
	return []string{
		"--port", strconv.Itoa(e.port), "--listen", "127.0.0.1",
		"--token-file", e.path("token"), "--log-file", e.path("gateway.log"),
		"--run-dir", e.path("run"), "--catalog-file", e.path("catalog.json"),
		"--servers-dir", e.path("servers"), "--code-dir", e.path("code"),
	}
}

func (e *env) path(name string) string { return filepath.Join(e.dir, name) }

func (e *env) url() string { return fmt.Sprintf("http://127.0.0.1:%d", e.port) }

// run runs the binary and returns its exit code, stdout and stderr.
func (e *env) run(extraEnv []string, args ...string) (int, string, string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gatewayBin, args...)
	cmd.Env = append(os.Environ(), extraEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if x, ok := err.(*exec.ExitError); ok {
			code = x.ExitCode()
		}
	}
	return code, out.String(), errb.String()
}

// launch runs `mcp-gateway --config` and registers a cleanup that stops
// the daemon.
func (e *env) launch(config string, extraEnv ...string) (int, string, string) {
	e.t.Helper()
	code, out, errOut := e.run(extraEnv, append([]string{"--config", config}, e.flags()...)...)
	e.t.Cleanup(func() {
		if pid := e.daemonPID(); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGTERM)
			waitExit(e.t, pid, 15*time.Second)
		}
	})
	return code, out, errOut
}

func (e *env) daemonPID() int {
	b, err := os.ReadFile(e.path("run/mcp-gateway.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// alive reports whether any thread of pid still runs (ipc.Gone).
func alive(pid int) bool { return !ipc.Gone(pid) }

// waitExit reports whether pid is gone within d.
func waitExit(t *testing.T, pid int, d time.Duration) bool {
	t.Helper()
	return testwait.Until(d, func() bool { return !alive(pid) })
}

// descendants lists the pids whose ancestry reaches pid.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, ent := range entries {
		p, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + ent.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		pp, _ := strconv.Atoi(fields[1])
		parent[p] = pp
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// health fetches /health.
func (e *env) health() map[string]any {
	e.t.Helper()
	resp, err := http.Get(e.url() + "/health")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	var h map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		e.t.Fatal(err)
	}
	return h
}

func serverPID(h map[string]any, name string) int {
	for _, s := range h["servers"].([]any) {
		m := s.(map[string]any)
		if m["name"] == name {
			if pid, ok := m["pid"].(float64); ok {
				return int(pid)
			}
		}
	}
	return 0
}

// mcpCall opens a session, calls a tool and returns the raw response
// message.
func mcpCall(t *testing.T, url, token, tool, args string) string {
	t.Helper()
	res, err := openSession(t, url, token).call(tool, args)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// session is a raw MCP client session over HTTP.
type session struct {
	url    string
	token  string
	id     string
	client *http.Client
	next   atomic.Int64
}

// dialSession initialises a session; it does not need the test, so other
// goroutines may use it.
func dialSession(url, token string) (*session, error) {
	s := &session{url: url + "/mcp", token: token, client: &http.Client{Timeout: 20 * time.Second}}
	if _, err := s.do(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); err != nil {
		return nil, err
	}
	if s.id == "" {
		return nil, fmt.Errorf("no Mcp-Session-Id from initialize")
	}
	if _, err := s.do(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	return s, nil
}

func openSession(t *testing.T, url, token string) *session {
	t.Helper()
	s, err := dialSession(url, token)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// do posts one message and returns the response message ("" for a
// notification).
func (s *session) do(body string) (string, error) {
	req, _ := http.NewRequest("POST", s.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		s.id = id
	}
	if resp.StatusCode == 202 {
		return "", nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// One JSON body: the transport lets the server answer either way.
		b, err := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			return "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
		}
		return strings.TrimSpace(string(b)), err
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, `"id"`) {
			return d, nil
		}
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	return string(b), sc.Err()
}

func (s *session) call(tool, args string) (string, error) {
	id := s.next.Add(1)
	return s.do(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
}
