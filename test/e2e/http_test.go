package e2e

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-gateway/mcp-gateway/internal/fakehttp"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// This file tests HTTP servers behind the gateway (SPEC §5.6, §7.9) with
// parts nobody here wrote: server-everything in its streamableHttp mode
// (legacy, sessions), the TypeScript SDK v2 fixture over HTTP (modern),
// and supergateway's SSE output (the older HTTP+SSE), each started by the
// gateway through runCmd and reached at url; the clients are the
// TypeScript SDK v2 client in both eras and go-sdk's.

// health is the part of /health these tests read.
type health struct {
	ToolCount int `json:"toolCount"`
	Servers   []struct {
		Name      string `json:"name"`
		State     string `json:"state"`
		PID       int    `json:"pid"`
		Restarts  int    `json:"restarts"`
		LastError string `json:"lastError"`
		Era       string `json:"era"`
		Transport string `json:"transport"`
		Calls     int    `json:"calls"`
	} `json:"servers"`
}

// getHealth reads g's /health: the part these tests read, and all of it.
func getHealth(t *testing.T, g *gateway) (health, string) {
	t.Helper()
	return readHealth(t, strings.TrimSuffix(g.url, "/mcp")+"/health")
}

// readHealth reads the /health at url.
func readHealth(t *testing.T, url string) (health, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	var h health
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatalf("/health: %v: %s", err, raw)
	}
	return h, string(raw)
}

// everythingOverHTTP launches the gateway with server-everything served
// over Streamable HTTP on a port of its own.
func everythingOverHTTP(t *testing.T) *gateway {
	nm := needNPM(t)
	port := freePort(t)
	config := fmt.Sprintf(`{"everything": {"url": "http://127.0.0.1:%d/mcp", "runCmd": "PORT=%d exec node %s streamableHttp"}}`,
		port, port, filepath.Join(nm, "mcp-server-everything"))
	return launch(t, t.TempDir(), config)
}

// stepOf returns the output line of step (a tool's call), or fails.
func stepOf(t *testing.T, lines []map[string]any, tool string) string {
	t.Helper()
	for _, l := range lines {
		if l["step"] == "call" && l["tool"] == tool {
			b, _ := json.Marshal(l["result"])
			return string(b)
		}
	}
	t.Fatalf("no result of %s in %v", tool, lines)
	return ""
}

func countEvents(lines []map[string]any, event string) int {
	n := 0
	for _, l := range lines {
		if l["event"] == event {
			n++
		}
	}
	return n
}

// TestEverythingOverStreamableHTTP: tools, progress, sampling and
// elicitation relayed to a legacy client and bridged (MRTR) to a modern
// one; then the server is killed and the next call restarts it.
func TestEverythingOverStreamableHTTP(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	g := everythingOverHTTP(t)
	for _, mode := range []string{"legacy", "modern"} {
		t.Run(mode, func(t *testing.T) {
			lines := runTSClient(t, node, g, "--mode", mode,
				"--call", "echo", "--args", `{"message":"over http"}`,
				"--call", "trigger-long-running-operation", "--args", `{"duration":0.3,"steps":3}`, "--progress",
				"--call", "trigger-sampling-request", "--args", `{"prompt":"capital?"}`, "--sample", "Paris, said the client",
				"--call", "trigger-elicitation-request", "--elicit", `{"name":"Ada"}`)
			if got := stepOf(t, lines, "echo"); !strings.Contains(got, "Echo: over http") {
				t.Errorf("echo: %s", got)
			}
			if n := countEvents(lines, "progress"); n != 3 {
				t.Errorf("%d progress notifications, want 3", n)
			}
			if got := stepOf(t, lines, "trigger-sampling-request"); !strings.Contains(got, "Paris, said the client") || countEvents(lines, "sampling") != 1 {
				t.Errorf("sampling: %s", got)
			}
			if got := stepOf(t, lines, "trigger-elicitation-request"); !strings.Contains(got, "Name: Ada") || countEvents(lines, "elicitation") != 1 {
				t.Errorf("elicitation: %s", got)
			}
		})
	}
	h, raw := getHealth(t, g)
	if len(h.Servers) != 1 || h.Servers[0].Transport != "streamable-http" || h.Servers[0].Era != "legacy" || h.Servers[0].PID == 0 {
		t.Fatalf("health: %s", raw)
	}
	pid := h.Servers[0].PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "the killed server seen exited", func() bool {
		h, _ := getHealth(t, g)
		return h.Servers[0].State == "exited"
	})
	lines := runTSClient(t, node, g, "--mode", "legacy", "--call", "echo", "--args", `{"message":"after the kill"}`)
	if got := stepOf(t, lines, "echo"); !strings.Contains(got, "after the kill") {
		t.Errorf("echo after the kill: %s", got)
	}
	h, raw = getHealth(t, g)
	if h.Servers[0].State != "running" || h.Servers[0].Restarts != 1 || h.Servers[0].PID == pid {
		t.Errorf("health after the restart: %s", raw)
	}
}

// TestEverythingCancellationOverHTTP: a go-sdk client cancels a long call;
// it ends at once, the gateway tells the server (a POST of
// notifications/cancelled, which server-everything logs as a POST), and
// the server goes on serving.
func TestEverythingCancellationOverHTTP(t *testing.T) {
	g := everythingOverHTTP(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: g.url, HTTPClient: &http.Client{Transport: bearer{g.token}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	logFile := filepath.Join(g.dir, "gateway.log")
	posts := func() int {
		b, _ := os.ReadFile(logFile)
		return strings.Count(string(b), "[everything] Received MCP POST request")
	}
	// server-everything asks the gateway for its roots 350 ms after the
	// gateway's initialize, and the gateway's answer is a POST too: once
	// it has come, the POSTs counted are the call's and the cancellation's
	// alone (a cancellation slower than the rest of those 350 ms counted
	// the answer as well, and waited for a count it had passed).
	testwait.For(t, 0, "the server's roots request answered", func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Contains(string(b), "root(s) received from client")
	})
	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	before := posts()
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 30, "steps": 3}})
		done <- err
	}()
	testwait.For(t, 0, "the call at the server", func() bool { return posts() == before+1 })
	stopped := time.Now()
	stop()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call succeeded")
	}
	if took := time.Since(stopped); took > 5*time.Second {
		t.Errorf("the cancelled call returned after %v", took)
	}
	testwait.For(t, 0, "notifications/cancelled POSTed to the server", func() bool { return posts() == before+2 })
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "still"}})
	if err != nil || res.IsError {
		t.Fatalf("echo after the cancellation: %v %+v", err, res)
	}
}

// TestModernServerOverHTTP: the TypeScript SDK v2 fixture in its HTTP mode,
// modern only: tools/call, MRTR both ways (its InputRequiredResult passed
// to a modern client, and answered for a legacy one by the gateway), and
// the gateway's subscriptions/listen on it following its list changes.
func TestModernServerOverHTTP(t *testing.T) {
	needNPM(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	port := freePort(t)
	fixture := filepath.Join(root, "test", "fixtures", "modern-server.mjs")
	g := launch(t, t.TempDir(), fmt.Sprintf(`{"modern": {"url": "http://127.0.0.1:%d/mcp", "runCmd": "exec node %s --http %d"}}`, port, fixture, port))
	h, raw := getHealth(t, g)
	if len(h.Servers) != 1 || h.Servers[0].Era != "modern" || h.Servers[0].Transport != "streamable-http" {
		t.Fatalf("health: %s", raw)
	}
	for _, mode := range []string{"modern", "legacy"} {
		lines := runTSClient(t, node, g, "--mode", mode,
			"--call", "echo", "--args", `{"text":"modern over http"}`,
			"--call", "ask_name", "--elicit", `{"name":"Grace"}`,
			"--call", "test_custom_header", "--args", `{"region":"eu-west-1"}`)
		if got := stepOf(t, lines, "echo"); !strings.Contains(got, "modern over http") {
			t.Errorf("%s: echo: %s", mode, got)
		}
		if got := stepOf(t, lines, "ask_name"); !strings.Contains(got, "Hello, Grace!") || countEvents(lines, "elicitation") != 1 {
			t.Errorf("%s: ask_name: %s", mode, got)
		}
		if got := stepOf(t, lines, "test_custom_header"); !strings.Contains(got, "region=eu-west-1") {
			t.Errorf("%s: test_custom_header (its Mcp-Param-Region header): %s", mode, got)
		}
	}
	tools := h.ToolCount
	runTSClient(t, node, g, "--mode", "modern", "--call", "test_trigger_tool_change")
	testwait.For(t, 0, "the server's list change followed", func() bool {
		h, _ := getHealth(t, g)
		return h.ToolCount == tools+1
	})
}

// TestHTTPPlusSSEServer: supergateway's SSE output (the HTTP+SSE
// transport of 2024-11-05) in front of server-memory over stdio.
func TestHTTPPlusSSEServer(t *testing.T) {
	nm := needNPM(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	port := freePort(t)
	memory := filepath.Join(nm, "mcp-server-memory")
	runCmd := fmt.Sprintf("MEMORY_FILE_PATH=%s exec node %s --stdio 'node %s' --port %d --logLevel none",
		filepath.Join(t.TempDir(), "memory.jsonl"), filepath.Join(nm, "supergateway"), memory, port)
	config, _ := json.Marshal(map[string]any{"memory": map[string]string{"url": fmt.Sprintf("http://127.0.0.1:%d/sse", port), "runCmd": runCmd}})
	g := launch(t, t.TempDir(), string(config))
	h, raw := getHealth(t, g)
	if len(h.Servers) != 1 || h.Servers[0].Transport != "http+sse" {
		t.Fatalf("health: %s", raw)
	}
	lines := runTSClient(t, node, g, "--mode", "legacy",
		"--call", "create_entities", "--args", `{"entities":[{"name":"Ada","entityType":"person","observations":["wrote the first program"]}]}`,
		"--call", "read_graph")
	if got := stepOf(t, lines, "read_graph"); !strings.Contains(got, "wrote the first program") {
		t.Errorf("read_graph: %s", got)
	}
}

// TestHTTPHeadersNeverLeak: the upstream records every request's headers.
// It gets its configured headers, an Authorization of its own included,
// and never the client's Authorization or the gateway's token; the
// configured values appear in neither the log, /health nor status.
func TestHTTPHeadersNeverLeak(t *testing.T) {
	const hosted, team = "Bearer hosted-key-5f1c9e", "team-secret-77ab"
	f := fakehttp.New(fakehttp.Options{})
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	config, _ := json.Marshal(map[string]any{"remote": map[string]any{"url": srv.URL + "/mcp",
		"headers": map[string]string{"Authorization": hosted, "X-Team-Key": team}}})
	dir := t.TempDir()
	g := launch(t, dir, string(config))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-leak", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: g.url, HTTPClient: &http.Client{Transport: bearer{g.token}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	seen := f.Seen()
	if len(seen) < 4 {
		t.Fatalf("the upstream saw %d requests", len(seen))
	}
	for _, s := range seen {
		if got := s.Header.Values("Authorization"); len(got) != 1 || got[0] != hosted {
			t.Errorf("%s %s: Authorization %q, want the configured one only", s.HTTP, s.Method, got)
		}
		if s.Header.Get("X-Team-Key") != team {
			t.Errorf("%s %s: X-Team-Key %q", s.HTTP, s.Method, s.Header.Get("X-Team-Key"))
		}
		for name, values := range s.Header {
			if strings.Contains(strings.Join(values, " "), g.token) {
				t.Errorf("%s %s: header %s carries the gateway's token", s.HTTP, s.Method, name)
			}
		}
	}
	_, health := getHealth(t, g)
	status, err := exec.Command(gatewayBin, "status", "--json", "--run-dir", filepath.Join(dir, "run")).CombinedOutput()
	if err != nil {
		t.Fatalf("status: %v\n%s", err, status)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
	for what, s := range map[string]string{"log": string(log), "/health": health, "status": string(status)} {
		if strings.Contains(s, "hosted-key-5f1c9e") || strings.Contains(s, team) {
			t.Errorf("the %s shows a configured header value", what)
		}
	}
}

// TestHTTPServerUnreachableFailsTheLaunch: the launch fails naming the
// server and the cause, and leaves no daemon.
func TestHTTPServerUnreachableFailsTheLaunch(t *testing.T) {
	dir := t.TempDir()
	closed := freePort(t)
	config := fmt.Sprintf(`{"remote": {"url": "http://127.0.0.1:%d/mcp?key=url-secret-91"}}`, closed)
	cmd := exec.Command(gatewayBin, "--config", config, "--port", fmt.Sprint(freePort(t)), "--listen", "127.0.0.1",
		"--token-file", filepath.Join(dir, "token"), "--log-file", filepath.Join(dir, "gateway.log"),
		"--run-dir", filepath.Join(dir, "run"), "--catalog-file", filepath.Join(dir, "catalog.json"))
	cmd.Env = append(os.Environ(), "GATEWAY_ACCESS_TOKEN=e2e-unreachable")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the launch succeeded:\n%s", out)
	}
	for _, want := range []string{`server "remote"`, "initialize", fmt.Sprintf("connect to 127.0.0.1:%d: connection refused", closed)} {
		if !strings.Contains(string(out), want) {
			t.Errorf("launch output lacks %q:\n%s", want, out)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
	if strings.Contains(string(out)+string(log), "url-secret-91") {
		t.Error("the url's key reached the output or the log")
	}
	if _, err := os.Stat(filepath.Join(dir, "run", "mcp-gateway.pid")); err == nil {
		t.Error("a pid file is left")
	}
}

// TestHTTPSServerVerifiedAgainstTheSystemRoots: an https server whose
// certificate the system roots do not hold fails the launch on TLS; once
// its CA is among the roots (SSL_CERT_FILE, as a template would install
// it), the same config starts and serves.
func TestHTTPSServerVerifiedAgainstTheSystemRoots(t *testing.T) {
	srv := httptest.NewTLSServer(fakehttp.New(fakehttp.Options{}))
	t.Cleanup(srv.Close)
	config := fmt.Sprintf(`{"secure": {"url": "%s/mcp"}}`, srv.URL)
	dir := t.TempDir()
	cmd := exec.Command(gatewayBin, "--config", config, "--port", fmt.Sprint(freePort(t)), "--listen", "127.0.0.1",
		"--token-file", filepath.Join(dir, "token"), "--log-file", filepath.Join(dir, "gateway.log"),
		"--run-dir", filepath.Join(dir, "run"), "--catalog-file", filepath.Join(dir, "catalog.json"))
	cmd.Env = append(os.Environ(), "GATEWAY_ACCESS_TOKEN=e2e-tls", "SSL_CERT_FILE="+filepath.Join(dir, "none.pem"))
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `server "secure"`) || !strings.Contains(string(out), "TLS: the server's certificate is not trusted") {
		t.Fatalf("launch with the CA unknown: %v\n%s", err, out)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemCert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemCert, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", ca)
	g := launch(t, t.TempDir(), config)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-tls", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: g.url, HTTPClient: &http.Client{Transport: bearer{g.token}}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "over TLS"}})
	if err != nil || res.IsError || fmt.Sprint(res.Content[0].(*mcp.TextContent).Text) != "over TLS" {
		t.Fatalf("echo over https: %v %+v", err, res)
	}
}
