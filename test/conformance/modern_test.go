package conformance

// The modern fixture (test/fixtures/modern-server.mjs) and the modern
// client (test/client/modern-client.mjs) on their own: the fixture's
// baseline against 0.2.0-alpha.12 served directly, the fixture over stdio
// by hand, and the client against the fixture and through the gateway.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// TestModernFixtureHTTP runs the 2026-07-28 and tasks scenarios against the
// modern fixture served directly over HTTP: what passes here is what the
// gateway must pass with that fixture behind it. The 2026-07-28 set runs
// in one runner (a batch, a few seconds); the tasks extension's, a runner
// per scenario (about 15 s of CPU), only under
// MCP_GATEWAY_FIXTURE_BASELINE=1: run it whenever the fixture's tasks
// change.
func TestModernFixtureHTTP(t *testing.T) {
	t.Parallel()
	t.Run("2026-07-28", func(t *testing.T) {
		t.Parallel()
		pairing{name: "baseline/modern", cli: env.cliNext, version: modernVersion, scenarios: taggedWith(modernVersion),
			batch: true, strict: strictScenarios, direct: startFixtureHTTP}.run(t)
	})
	t.Run("tasks", func(t *testing.T) {
		requireEnv(t, "MCP_GATEWAY_FIXTURE_BASELINE", "the fixture's own tasks baseline costs about 15 s of CPU")
		t.Parallel()
		pairing{name: "baseline/modern-tasks", cli: env.cliNext, version: modernVersion, scenarios: tasksOnly,
			direct: startFixtureHTTP}.run(t)
	})
}

// TestModernFixtureStdio drives the modern fixture over stdio: a modern-only
// server refuses initialize with -32022 and serves server/discover,
// tools/list, tools/call, an MRTR round and a task.
func TestModernFixtureStdio(t *testing.T) {
	need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.node, env.modernFixture)
	cmd.Dir = env.root
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil && ctx.Err() == nil {
			t.Errorf("the fixture exited with %v after stdin closed\n%s", err, stderr.String())
		}
	}()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 0, 64<<10), 16<<20)
	id := 0
	// call sends one request and returns its response, skipping (and
	// returning) the notifications before it.
	call := func(method string, params map[string]any) (rpcResponse, []string) {
		t.Helper()
		id++
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatalf("write %s: %v\n%s", method, err, stderr.String())
		}
		var notes []string
		for lines.Scan() {
			var r rpcResponse
			if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
				t.Fatalf("%s: a non-JSON line on stdout: %q", method, lines.Text())
			}
			if r.Method != "" {
				notes = append(notes, lines.Text())
				continue
			}
			if string(r.ID) != strconv.Itoa(id) {
				t.Fatalf("%s: response to id %s, want %d: %s", method, r.ID, id, lines.Text())
			}
			return r, notes
		}
		t.Fatalf("%s: stdout ended (%v)\n%s", method, lines.Err(), stderr.String())
		return rpcResponse{}, nil
	}
	caps := map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    modernVersion,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "modern-stdio-test", "version": "1"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}

	r, _ := call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "legacy", "version": "1"}})
	var unsupported struct {
		Supported []string `json:"supported"`
	}
	if r.Error == nil || r.Error.Code != -32022 || json.Unmarshal(r.Error.Data, &unsupported) != nil || !slices.Contains(unsupported.Supported, modernVersion) {
		t.Fatalf("initialize: want error -32022 listing %s, got %s", modernVersion, r.raw())
	}

	r, _ = call("server/discover", map[string]any{"_meta": meta})
	var disc struct {
		SupportedVersions []string `json:"supportedVersions"`
		Capabilities      struct {
			Tools      json.RawMessage            `json:"tools"`
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
		ResultType string `json:"resultType"`
	}
	if r.decode(&disc) != nil || !slices.Contains(disc.SupportedVersions, modernVersion) || disc.Capabilities.Tools == nil ||
		disc.Capabilities.Extensions["io.modelcontextprotocol/tasks"] == nil || disc.ResultType != "complete" {
		t.Fatalf("server/discover: want %s, tools and the tasks extension, resultType complete; got %s", modernVersion, r.raw())
	}

	r, _ = call("tools/list", map[string]any{"_meta": meta})
	var list struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
		TTLMs      *int   `json:"ttlMs"`
		CacheScope string `json:"cacheScope"`
	}
	if r.decode(&list) != nil || list.TTLMs == nil || list.CacheScope == "" {
		t.Fatalf("tools/list: want tools with ttlMs and cacheScope, got %s", r.raw())
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		if tl.Name == "failing_job" && (tl.Execution == nil || tl.Execution.TaskSupport != "required") {
			t.Errorf("tools/list: failing_job should have execution.taskSupport required: %s", r.raw())
		}
	}
	if m := missing(names, append(slices.Clone(tools2026), "echo", "progress_log", "ask_name", "start_task")); len(m) > 0 {
		t.Fatalf("tools/list over stdio lacks %v", m)
	}

	// A listen stream hears of the tool list change (the gateway's
	// supervisor relies on this to rebuild the merged list, SPEC §4.5).
	id++
	listenID := id
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": listenID, "method": "subscriptions/listen",
		"params": map[string]any{"_meta": meta, "notifications": map[string]any{"toolsListChanged": true}}})
	if _, err := stdin.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	r, notes := call("tools/call", map[string]any{"name": "test_trigger_tool_change", "arguments": map[string]any{}, "_meta": meta})
	want := []string{"notifications/subscriptions/acknowledged", "notifications/tools/list_changed"}
	var got []string
	for _, n := range notes {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		_ = json.Unmarshal([]byte(n), &m)
		if string(m.Params.Meta["io.modelcontextprotocol/subscriptionId"]) != strconv.Itoa(listenID) {
			t.Errorf("listen: %s lacks subscriptionId %d", n, listenID)
		}
		got = append(got, m.Method)
	}
	if r.text() != "tool list changed" || !slices.Equal(got, want) {
		t.Errorf("subscriptions/listen then test_trigger_tool_change: want %q before the call's result, got %q and %s", want, notes, r.raw())
	}

	r, _ = call("tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello stdio"}, "_meta": meta})
	if got := r.text(); got != "hello stdio" {
		t.Errorf("tools/call echo: want text %q, got %s", "hello stdio", r.raw())
	}

	progressMeta := maps(meta, map[string]any{"progressToken": "tok-1"})
	r, notes = call("tools/call", map[string]any{"name": "progress_log", "arguments": map[string]any{"steps": 2}, "_meta": progressMeta})
	if r.text() != "done 2 steps" || len(notes) < 2 || !strings.Contains(notes[0], `"progressToken":"tok-1"`) {
		t.Errorf("tools/call progress_log: want 2 progress notifications with tok-1 and \"done 2 steps\", got %s after %q", r.raw(), notes)
	}

	r, _ = call("tools/call", map[string]any{"name": "ask_name", "arguments": map[string]any{}, "_meta": meta})
	var ir struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
	}
	if r.decode(&ir) != nil || ir.ResultType != "input_required" || ir.InputRequests["name"] == nil {
		t.Fatalf("tools/call ask_name: want an InputRequiredResult asking for name, got %s", r.raw())
	}
	r, _ = call("tools/call", map[string]any{"name": "ask_name", "arguments": map[string]any{}, "_meta": meta,
		"inputResponses": map[string]any{"name": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}})
	if got := r.text(); got != "Hello, Ada!" {
		t.Errorf("tools/call ask_name retry: want \"Hello, Ada!\", got %s", r.raw())
	}

	r, _ = call("tools/call", map[string]any{"name": "start_task", "arguments": map[string]any{"seconds": 0}, "_meta": meta})
	var task struct {
		ResultType string `json:"resultType"`
		TaskID     string `json:"taskId"`
		Status     string `json:"status"`
	}
	if r.decode(&task) != nil || task.ResultType != "task" || task.TaskID == "" {
		t.Fatalf("tools/call start_task: want a CreateTaskResult, got %s", r.raw())
	}
	if !testwait.Until(10*time.Second, func() bool {
		r, _ = call("tasks/get", map[string]any{"taskId": task.TaskID, "_meta": meta})
		if r.decode(&task) != nil {
			t.Fatalf("tasks/get: %s", r.raw())
		}
		if task.Status != "working" && task.Status != "completed" {
			t.Fatalf("tasks/get: want working, then completed; got %s", r.raw())
		}
		return task.Status == "completed"
	}) {
		t.Fatalf("tasks/get: want working, then completed within 10 s; got %s", r.raw())
	}
}

// rpcResponse is one JSON-RPC message from the fixture.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (r rpcResponse) raw() string {
	b, _ := json.Marshal(r)
	return string(b)
}

func (r rpcResponse) decode(v any) error {
	if r.Error != nil || r.Result == nil {
		return fmt.Errorf("no result")
	}
	return json.Unmarshal(r.Result, v)
}

// text returns the text of a tool result's first content block.
func (r rpcResponse) text() string {
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if r.decode(&res) != nil || len(res.Content) == 0 {
		return ""
	}
	return res.Content[0].Text
}

func maps(a, b map[string]any) map[string]any {
	m := make(map[string]any, len(a)+len(b))
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// startFixtureHTTP serves the modern fixture on a free loopback port and
// returns its /mcp URL.
func startFixtureHTTP(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(env.node, env.modernFixture, "--http", "0")
	cmd.Dir = env.root
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				urls <- u
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("the modern fixture did not exit within 10 s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("--- modern fixture stderr ---\n%s", stderr.String())
		}
	})
	select {
	case u := <-urls:
		return u
	case err := <-exited:
		t.Fatalf("the modern fixture exited before listening: %v\n%s", err, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("the modern fixture did not listen within 30 s\n%s", stderr.String())
	}
	return ""
}

// TestModernClientFixtureHTTP checks test/client/modern-client.mjs against
// the modern fixture served directly: a pinned 2026-07-28 connection, a
// tool call, an MRTR round answered from --elicit, progress, logs at the
// requested level.
func TestModernClientFixtureHTTP(t *testing.T) {
	need(t)
	endpoint := startFixtureHTTP(t)
	lines := runClient(t, endpoint, "", "--mode", "modern", "--log-level", "info",
		"--list", "--call", "echo", "--args", `{"text":"hi"}`,
		"--call", "ask_name", "--elicit", `{"name":"Ada"}`,
		"--call", "progress_log", "--args", `{"steps":2}`, "--progress")
	checkClientLines(t, lines, "modern")
}

// TestModernGatewayClient runs the modern client through the gateway with
// the modern fixture behind it, in both eras.
func TestModernGatewayClient(t *testing.T) {
	need(t)
	gw, err := startGateway(t.TempDir(), modernFixture)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := gw.stop(); err != nil {
			t.Errorf("%v\n%s", err, gw.dump())
		}
	})
	for _, mode := range []string{"modern", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			lines := runClient(t, gw.base+"/mcp", gw.token, "--mode", mode, "--log-level", "info",
				"--list", "--call", "echo", "--args", `{"text":"hi"}`,
				"--call", "ask_name", "--elicit", `{"name":"Ada"}`,
				"--call", "progress_log", "--args", `{"steps":2}`, "--progress")
			checkClientLines(t, lines, mode)
		})
	}
}

// runClient runs modern-client.mjs and returns its JSON lines; it fails the
// test if the client exits non-zero.
func runClient(t *testing.T, url, token string, args ...string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	argv := append([]string{filepath.Join(env.root, "test", "client", "modern-client.mjs"), "--url", url, "--timeout", "30"}, args...)
	if token != "" {
		argv = append(argv, "--token", token)
	}
	cmd := exec.CommandContext(ctx, env.node, argv...)
	cmd.Dir = env.root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("modern-client %v: %v\n--- stdout ---\n%s\n--- stderr ---\n%s", args, err, stdout.String(), stderr.String())
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("modern-client printed a non-JSON line %q", l)
		}
		lines = append(lines, m)
	}
	return lines
}

// checkClientLines checks the output of the steps TestModernClientFixtureHTTP
// and TestModernGatewayClient run.
func checkClientLines(t *testing.T, lines []map[string]any, era string) {
	t.Helper()
	dump, _ := json.MarshalIndent(lines, "", "  ")
	var texts []string
	var progress, logs, elicitations int
	for _, l := range lines {
		switch {
		case l["step"] == "connect":
			if l["era"] != era {
				t.Errorf("connect: want era %s, got %v", era, l)
			}
		case l["step"] == "list":
			if tools, _ := l["tools"].([]any); !slices.Contains(tools, any("echo")) || !slices.Contains(tools, any("ask_name")) {
				t.Errorf("list: want echo and ask_name, got %v", l)
			}
		case l["step"] == "call":
			r, _ := l["result"].(map[string]any)
			content, _ := r["content"].([]any)
			if len(content) > 0 {
				text, _ := content[0].(map[string]any)["text"].(string)
				texts = append(texts, text)
			}
		case l["event"] == "progress":
			progress++
		case l["event"] == "log":
			logs++
		case l["event"] == "elicitation":
			elicitations++
		}
	}
	if want := []string{"hi", "Hello, Ada!", "done 2 steps"}; !slices.Equal(texts, want) {
		t.Errorf("call results: want texts %q, got %q\n%s", want, texts, dump)
	}
	if elicitations != 1 || progress != 2 || logs != 2 {
		t.Errorf("want 1 elicitation, 2 progress and 2 log events; got %d, %d, %d\n%s", elicitations, progress, logs, dump)
	}
}
