package conformance

// The 2026-07-28 ("modern") half of the conformance run: the server
// scenarios of @modelcontextprotocol/conformance 0.2.0-alpha.12 (the npm
// alias conformance-next in test/package.json) that apply to a tools-only
// gateway, against
//
//   - TestModernFixtureHTTP: the modern fixture (test/fixtures/modern-server.mjs)
//     served directly over HTTP, no gateway: the baseline the gateway must
//     match, and a check of the fixture itself;
//   - TestModernGatewayModernServer: the real gateway with the modern fixture
//     behind it over stdio;
//   - TestModernGatewayLegacyServer: the real gateway with the legacy Go
//     fixture (./fixture) behind it, so the MRTR bridge (SPEC §4.6) is what
//     the input-required-result-* scenarios test;
//   - TestModernGatewayMadeTasks (gatewaytasks_test.go): the tasks-*
//     scenarios with the legacy fixture under -no-tasks behind the
//     gateway, so every task is one the gateway makes.
//
// TestConformanceNextLegacy runs the same suite's 2025-11-25 scenarios
// against the legacy front (they pass today, and check more than 0.1.16).
// TestModernFixtureStdio drives the modern fixture over stdio by hand;
// TestModernClientFixtureHTTP and TestModernGatewayClient check
// test/client/modern-client.mjs against the fixture and through the gateway.
//
//	go test ./test/conformance -run Modern -v -count=1
//
// test/conformance/SCENARIOS.md says what each scenario sends and checks.
//
// The gateway runs, the tasks extension's scenarios
// (TestModernGatewayTasks) included, are part of `make test`;
// TestModernFixtureHTTP, the fixture's own baseline, runs under
// MCP_GATEWAY_FIXTURE_BASELINE=1 for its cost.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const modernVersion = "2026-07-28"

var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// modernScenarios are the 2026-07-28 server scenarios that apply to a
// tools-only gateway, in the order they run. Left out, because the gateway
// aggregates tools only (SPEC §3.8): completion-complete, resources-*,
// sep-2164-resource-not-found, prompts-*, input-required-result-non-tool-request
// (MRTR on prompts/get), and the sep-2640 skills extension.
var modernScenarios = []string{
	"server-stateless",
	"tools-list",
	"tools-call-simple-text",
	"tools-call-image",
	"tools-call-audio",
	"tools-call-embedded-resource",
	"tools-call-mixed-content",
	"tools-call-error",
	"tools-call-with-progress",
	"json-schema-2020-12",
	"server-sse-multiple-streams",
	"dns-rebinding-protection",
	"caching",
	"http-header-validation",
	"http-custom-header-server-validation",
	"input-required-result-basic-elicitation",
	"input-required-result-basic-sampling",
	"input-required-result-basic-list-roots",
	"input-required-result-request-state",
	"input-required-result-multiple-input-requests",
	"input-required-result-multi-round",
	"input-required-result-missing-input-response",
	"input-required-result-result-type",
	"input-required-result-unsupported-methods",
	"input-required-result-tampered-state",
	"input-required-result-capability-check",
	"input-required-result-ignore-extra-params",
	"input-required-result-validate-input",
}

// tasksScenarios are the tasks extension's (io.modelcontextprotocol/tasks,
// SEP-2663) scenarios. TestModernGatewayTasks runs them with the modern
// fixture behind the gateway (the server's own tasks, relayed);
// TestModernGatewayMadeTasks with the legacy fixture under -no-tasks (tasks
// the gateway makes). SPEC §4.7 routes tasks within one era rather than
// translating 2025-11-25 tasks into the extension, so the legacy fixture's
// own 2025-11-25 tasks are not what these scenarios test.
var tasksScenarios = []string{
	"tasks-lifecycle",
	"tasks-capability-negotiation",
	"tasks-wire-fields",
	"tasks-request-state-removal",
	"tasks-mrtr-input",
	"tasks-request-headers",
	"tasks-dispatch-and-envelope",
	"tasks-status-notifications",
	"tasks-required-task-error",
	"tasks-mrtr-composition",
}

// notApplicable lists, per scenario, the checks a tools-only gateway fails
// by design, each with the reason. Such a failure is logged, not an error.
// A listed check that passes is an error, to keep the list honest, except
// where allowPass says the check passes against the fixture directly.
var notApplicable = map[string]map[string]string{
	"caching": {
		"sep-2549-prompts-list-caching-hints":             "tools only (SPEC §3.8): prompts/list is -32601",
		"sep-2549-resources-list-caching-hints":           "tools only (SPEC §3.8): resources/list is -32601",
		"sep-2549-resources-templates-list-caching-hints": "tools only (SPEC §3.8): resources/templates/list is -32601",
	},
}

// strictScenarios have only SHOULD (WARNING-level) checks, so they cannot
// fail as the suite scores them; the modern fixture passes them without a
// warning, so in these runs a warning counts as a failure.
var strictScenarios = map[string]bool{
	"input-required-result-missing-input-response": true,
	"input-required-result-ignore-extra-params":    true,
	"input-required-result-validate-input":         true,
}

// bridgeSkip names the scenarios that cannot apply with a legacy server
// behind the gateway (the MRTR bridge), each with the reason.
var bridgeSkip = map[string]string{
	"input-required-result-basic-elicitation": "its first check wants the server's inputRequests key \"user_name\"; " +
		"a legacy server's elicitation/create has no key, so the bridge mints one; the retry check runs only after it, " +
		"so the scenario could only fail or pass vacuously (request-state, multi-round and tampered-state cover one elicitation round)",
}

// bridgeLenient names the strict scenarios whose warning is unavoidable
// through the bridge, each with the reason.
var bridgeLenient = map[string]string{
	"input-required-result-ignore-extra-params": "it wants a first call that carries inputResponses (no requestState) to " +
		"complete at once; a legacy server asks its question only after that call starts",
}

// allowPass names not-applicable checks that pass against the modern
// fixture served directly (it has a prompt, for
// input-required-result-non-tool-request).
var allowPass = map[string]bool{"sep-2549-prompts-list-caching-hints": true}

// modernScenarioTools are the tools the modern scenarios call; the tools
// list must hold each of them before any scenario runs, since some
// scenarios pass (or say "not testable") when their tool is missing.
var modernScenarioTools = []string{
	"test_simple_text",
	"test_image_content",
	"test_audio_content",
	"test_embedded_resource",
	"test_multiple_content_types",
	"test_error_handling",
	"test_tool_with_progress",
	"json_schema_2020_12_tool",
	"test_missing_capability",
	"test_streaming_elicitation",
	"test_logging_tool",
	"test_trigger_tool_change",
	"test_custom_header",
	"test_input_required_result_elicitation",
	"test_input_required_result_sampling",
	"test_input_required_result_list_roots",
	"test_input_required_result_request_state",
	"test_input_required_result_multiple_inputs",
	"test_input_required_result_multi_round",
	"test_input_required_result_tampered_state",
	"test_input_required_result_capabilities",
}

// tasksScenarioTools are the tools the tasks scenarios call.
var tasksScenarioTools = []string{
	"greet",
	"slow_compute",
	"failing_job",
	"protocol_error_job",
	"confirm_delete",
	"multi_input",
	"test_tool_with_task",
}

// modernEnv is what every modern test needs: node, the 0.2.0-alpha.12
// runner, the Node 20 shim and the modern fixture.
type modernEnv struct {
	root, node, cli, shim, fixture string
	// bridge: a legacy server is behind the gateway (bridgeSkip,
	// bridgeLenient apply).
	bridge bool
	// notApplicable, if set, replaces the package's notApplicable for
	// this run (gatewayTaskNA).
	notApplicable map[string]map[string]string
}

// na is the run's list of not-applicable checks.
func (e modernEnv) na() map[string]map[string]string {
	if e.notApplicable != nil {
		return e.notApplicable
	}
	return notApplicable
}

func setupModern(t *testing.T) modernEnv {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	e := modernEnv{
		root:    root,
		cli:     filepath.Join(root, "test", "node_modules", "conformance-next", "dist", "index.js"),
		shim:    filepath.Join(root, "test", "conformance", "globsync-shim.mjs"),
		fixture: filepath.Join(root, "test", "fixtures", "modern-server.mjs"),
	}
	var missing []string
	if e.node, err = exec.LookPath("node"); err != nil {
		missing = append(missing, "node is not on PATH")
	}
	for _, p := range []string{e.cli, filepath.Join(root, "test", "node_modules", "@modelcontextprotocol", "server", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, "test/node_modules lacks "+p+" (run `cd test && npm ci`)")
		}
	}
	if len(missing) > 0 {
		msg := "the 2026-07-28 conformance run cannot start: " + strings.Join(missing, "; ")
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return e
}

// requireEnv skips a test unless the environment variable name is "1".
func requireEnv(t *testing.T, name, why string) {
	if os.Getenv(name) != "1" {
		t.Skipf("%s; set %s=1 to run it", why, name)
	}
}

func TestModernGatewayModernServer(t *testing.T) {
	e := setupModern(t)
	e.runModernFixture(t, modernScenarios)
}

// TestModernGatewayTasks runs the tasks extension's scenarios with the
// modern fixture behind the gateway.
func TestModernGatewayTasks(t *testing.T) {
	e := setupModern(t)
	e.runModernFixture(t, tasksScenarios)
}

// runModernFixture runs scenarios against the gateway with the modern
// fixture behind it.
func (e modernEnv) runModernFixture(t *testing.T, scenarios []string) {
	tmp := t.TempDir()
	gatewayBin := filepath.Join(tmp, "mcp-gateway")
	goBuild(t, e.root, gatewayBin, "./cmd/mcp-gateway")
	fixtureTools := e.fixtureTools(t)
	requireTools(t, "the modern fixture", fixtureTools, append(slices.Clone(modernScenarioTools), tasksScenarioTools...))

	pidfile := filepath.Join(tmp, "fixture.pids")
	runCmd := shellQuote(e.node) + " " + shellQuote(e.fixture) + " --pidfile " + shellQuote(pidfile)
	endpoint := e.gatewayEndpoint(t, gatewayBin, runCmd, pidfile, tmp)
	requireModernList(t, endpoint, fixtureTools)
	e.runAll(t, endpoint, scenarios)
}

// buildLegacy builds the gateway and the legacy Go fixture into dir and
// returns their paths and the fixture's tool names.
func (e modernEnv) buildLegacy(t *testing.T, dir string) (gatewayBin, fixtureBin string, tools []string) {
	t.Helper()
	gatewayBin = filepath.Join(dir, "mcp-gateway")
	fixtureBin = filepath.Join(dir, "conformance-fixture")
	goBuild(t, e.root, gatewayBin, "./cmd/mcp-gateway")
	goBuild(t, e.root, fixtureBin, "./test/conformance/fixture")
	return gatewayBin, fixtureBin, listFixtureTools(t, fixtureBin)
}

func TestModernGatewayLegacyServer(t *testing.T) {
	e := setupModern(t)
	tmp := t.TempDir()
	gatewayBin, fixtureBin, fixtureTools := e.buildLegacy(t, tmp)
	requireTools(t, "the legacy fixture", fixtureTools, modernScenarioTools)

	start := func(t *testing.T, dir string) string {
		pidfile := filepath.Join(dir, "fixture.pids")
		return e.gatewayEndpoint(t, gatewayBin, shellQuote(fixtureBin)+" -pidfile "+shellQuote(pidfile), pidfile, dir)
	}
	requireModernList(t, start(t, tmp), fixtureTools)
	// A gateway each: a call one scenario leaves parked (never retried)
	// stays in flight on the server for its 10 minutes, and the gateway
	// refuses to guess which of two clients a server's next request is
	// for (SPEC §4.6), so the next scenario's requests would be refused.
	e.bridge = true
	outRoot := filepath.Join(tmp, "results")
	for _, sc := range modernScenarios {
		t.Run(sc, func(t *testing.T) {
			if reason, ok := bridgeSkip[sc]; ok {
				t.Skip("not applicable with a legacy server behind the gateway: " + reason)
			}
			e.runScenario(t, start(t, t.TempDir()), filepath.Join(outRoot, sc), modernVersion, sc)
		})
	}
}

// nextLegacyScenarios are 0.2.0-alpha.12's 2025-11-25 scenarios for a
// tools-only gateway: 0.1.16's (TestConformance) plus server-session-lifecycle.
// Every 0.1.16 check is among them (same ids, compared on 2026-12-01), and
// they add wire-schema-valid (each message valid against the 2025-11-25
// schema), tools-name-format, server-session-id-visible-ascii and the
// SEP-2106 keywords. (server-sse-polling has only SHOULD checks, no scored
// ones, and is left out.)
var nextLegacyScenarios = []string{
	"server-initialize",
	"server-session-lifecycle",
	"ping",
	"tools-list",
	"tools-call-simple-text",
	"tools-call-image",
	"tools-call-audio",
	"tools-call-embedded-resource",
	"tools-call-mixed-content",
	"tools-call-error",
	"tools-call-with-logging",
	"tools-call-with-progress",
	"tools-call-sampling",
	"tools-call-elicitation",
	"elicitation-sep1034-defaults",
	"elicitation-sep1330-enums",
	"server-sse-multiple-streams",
	"dns-rebinding-protection",
	"json-schema-2020-12",
	"logging-set-level",
}

// TestConformanceNextLegacy runs 0.2.0-alpha.12's 2025-11-25 scenarios
// against the gateway's legacy front, with the legacy fixture behind it.
// They pass today; they guard the legacy front while it is rewritten to
// serve both eras, with stricter checks than 0.1.16's.
func TestConformanceNextLegacy(t *testing.T) {
	e := setupModern(t)
	tmp := t.TempDir()
	gatewayBin, fixtureBin, fixtureTools := e.buildLegacy(t, tmp)
	requireTools(t, "the legacy fixture", fixtureTools, scenarioTools)
	pidfile := filepath.Join(tmp, "fixture.pids")
	runCmd := shellQuote(fixtureBin) + " -pidfile " + shellQuote(pidfile)
	endpoint := e.gatewayEndpoint(t, gatewayBin, runCmd, pidfile, tmp)
	requireTools(t, "tools/list through the gateway", rawListTools(t, endpoint), fixtureTools)
	e.runAllAt(t, endpoint, "2025-11-25", nextLegacyScenarios)
}

// TestModernFixtureHTTP runs the modern scenarios against the modern
// fixture served directly over HTTP: what passes here is what the gateway
// must pass with that fixture behind it.
//
// It costs about a minute and a half of two cores' time (a node runner per
// scenario), so it runs under MCP_GATEWAY_FIXTURE_BASELINE=1; run it
// whenever the modern fixture changes.
func TestModernFixtureHTTP(t *testing.T) {
	requireEnv(t, "MCP_GATEWAY_FIXTURE_BASELINE", "the fixture's own baseline costs about 90 s of CPU")
	e := setupModern(t)
	requireTools(t, "the modern fixture", e.fixtureTools(t), append(slices.Clone(modernScenarioTools), tasksScenarioTools...))
	endpoint := e.startFixtureHTTP(t)
	e.runAll(t, endpoint, append(slices.Clone(modernScenarios), tasksScenarios...))
}

// TestModernFixtureStdio drives the modern fixture over stdio: a modern-only
// server refuses initialize with -32022 and serves server/discover,
// tools/list, tools/call, an MRTR round and a task.
func TestModernFixtureStdio(t *testing.T) {
	e := setupModern(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.node, e.fixture)
	cmd.Dir = e.root
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
	requireTools(t, "tools/list over stdio", names, append(slices.Clone(modernScenarioTools), "echo", "progress_log", "ask_name", "start_task"))

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
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, _ = call("tasks/get", map[string]any{"taskId": task.TaskID, "_meta": meta})
		if r.decode(&task) != nil {
			t.Fatalf("tasks/get: %s", r.raw())
		}
		if task.Status == "completed" {
			break
		}
		if task.Status != "working" || time.Now().After(deadline) {
			t.Fatalf("tasks/get: want working, then completed within 10 s; got %s", r.raw())
		}
		time.Sleep(50 * time.Millisecond) // polling interval, not synchronisation
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

func requireTools(t *testing.T, what string, have, want []string) {
	t.Helper()
	var missing []string
	for _, name := range want {
		if !slices.Contains(have, name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("%s lacks the scenario tools %v (it has %v)", what, missing, have)
	}
}

func (e modernEnv) fixtureTools(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, e.node, e.fixture, "--list-tools").Output()
	if err != nil {
		t.Fatalf("%s --list-tools: %v", e.fixture, err)
	}
	return strings.Fields(string(b))
}

// gatewayEndpoint starts the gateway with runCmd behind it, and the bearer
// proxy in front of it, and returns the proxy's /mcp URL.
func (e modernEnv) gatewayEndpoint(t *testing.T, gatewayBin, runCmd, pidfile, tmp string) string {
	t.Helper()
	token := randomToken(t)
	gw := startGateway(t, gatewayBin, runCmd, pidfile, tmp, token)
	proxyLog := &syncBuffer{}
	proxyURL := startProxy(t, gw.url, token, proxyLog)
	t.Cleanup(func() {
		if t.Failed() && proxyLog.String() != "" {
			t.Logf("--- proxy errors ---\n%s", proxyLog.String())
		}
	})
	t.Logf("gateway at %s, proxy at %s", gw.url, proxyURL)
	return proxyURL + "/mcp"
}

// startFixtureHTTP serves the modern fixture on a free loopback port and
// returns its /mcp URL.
func (e modernEnv) startFixtureHTTP(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(e.node, e.fixture, "--http", "0")
	cmd.Dir = e.root
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

// requireModernList lists the tools with 2026-07-28 requests (no session,
// per-request _meta) and checks that every fixture tool is there. If the
// modern tools/list itself fails, that is an error but the scenarios still
// run, so that each shows what the front lacks.
func requireModernList(t *testing.T, endpoint string, fixtureTools []string) {
	t.Helper()
	names, err := modernListTools(endpoint)
	if err != nil {
		t.Errorf("a 2026-07-28 tools/list through the gateway failed, so the scenarios below may fail for that alone: %v", err)
		return
	}
	requireTools(t, "the 2026-07-28 tools/list through the gateway", names, fixtureTools)
}

func modernListTools(endpoint string) ([]string, error) {
	defs, err := modernListToolDefs(endpoint)
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names, err
}

// toolDef is a tools/list entry: its name and execution.
type toolDef struct {
	Name      string          `json:"name"`
	Execution json.RawMessage `json:"execution"`
}

// modernListToolDefs lists the tools with 2026-07-28 requests.
func modernListToolDefs(endpoint string) ([]toolDef, error) {
	c := &http.Client{Timeout: 30 * time.Second}
	var names []toolDef
	cursor := ""
	for page := 0; page < 100; page++ {
		params := map[string]any{"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    modernVersion,
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "conformance-test", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}}
		if cursor != "" {
			params["cursor"] = cursor
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": page + 1, "method": "tools/list", "params": params})
		req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", modernVersion)
		req.Header.Set("Mcp-Method", "tools/list")
		resp, err := c.Do(req)
		if err != nil {
			return nil, fmt.Errorf("post tools/list: %w", err)
		}
		msg, err := readRPCResponse(resp)
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("tools/list: HTTP %d: %w", resp.StatusCode, err)
		}
		var list struct {
			Result *struct {
				Tools      []toolDef `json:"tools"`
				NextCursor string    `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(msg, &list); err != nil || list.Result == nil {
			return nil, fmt.Errorf("tools/list: HTTP %d, no result: %s", resp.StatusCode, msg)
		}
		names = append(names, list.Result.Tools...)
		if cursor = list.Result.NextCursor; cursor == "" {
			return names, nil
		}
	}
	return nil, errors.New("tools/list: more than 100 pages")
}

// readRPCResponse returns the JSON-RPC response in a JSON or SSE body.
func readRPCResponse(resp *http.Response) ([]byte, error) {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return nil, fmt.Errorf("read body: %w", err)
		}
		return b, nil
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && len(data) > 0:
			msg := []byte(strings.Join(data, "\n"))
			data = nil
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(msg, &m) == nil && len(m.ID) > 0 {
				return msg, nil
			}
		}
	}
	return nil, fmt.Errorf("the SSE stream ended without a response (%v)", sc.Err())
}

// runAll runs each scenario as its own subtest.
func (e modernEnv) runAll(t *testing.T, endpoint string, scenarios []string) {
	e.runAllAt(t, endpoint, modernVersion, scenarios)
}

// runAllAt runs each scenario at the given spec version as its own subtest.
func (e modernEnv) runAllAt(t *testing.T, endpoint, version string, scenarios []string) {
	outRoot := filepath.Join(t.TempDir(), "results")
	for _, sc := range scenarios {
		t.Run(sc, func(t *testing.T) {
			if reason, ok := bridgeSkip[sc]; ok && e.bridge {
				t.Skip("not applicable with a legacy server behind the gateway: " + reason)
			}
			e.runScenario(t, endpoint, filepath.Join(outRoot, sc), version, sc)
		})
	}
}

// runScenario runs one scenario at a spec version (--force: the tasks
// extension's and the pending ones are not "applicable" to a dated revision
// otherwise) and fails on any failed check not in notApplicable, and on the
// warnings of strictScenarios.
func (e modernEnv) runScenario(t *testing.T, endpoint, outDir, version, scenario string) {
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.node, "--import", e.shim, e.cli, "server",
		"--url", endpoint, "--spec-version", version, "--force", "--scenario", scenario, "-o", outDir)
	cmd.Dir = e.root
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start).Round(time.Millisecond)
	var exit *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		t.Fatalf("scenario %s did not finish within %s\n--- runner output ---\n%s", scenario, scenarioTimeout, out.String())
	case errors.As(err, &exit) && exit.ExitCode() == 1:
	default:
		t.Fatalf("conformance runner: %v\n--- runner output ---\n%s", err, out.String())
	}
	checks, raw := readChecks(t, outDir)
	if len(checks) == 0 {
		t.Fatalf("scenario %s produced no checks (exit %v)\n--- runner output ---\n%s", scenario, err, out.String())
	}
	var failures, excused, warnings []string
	failed := map[string]bool{}
	for _, c := range checks {
		switch c.Status {
		case "FAILURE":
			failed[c.ID] = true
			if reason, ok := e.na()[scenario][c.ID]; ok {
				excused = append(excused, fmt.Sprintf("%s (%s): %s", c.ID, reason, c.ErrorMessage))
				continue
			}
			failures = append(failures, c.ID+": "+c.ErrorMessage)
		case "WARNING":
			warnings = append(warnings, c.ID+": "+c.ErrorMessage)
		}
	}
	for id, reason := range e.na()[scenario] {
		if !failed[id] && !allowPass[id] {
			t.Errorf("check %s passed but is listed in notApplicable (%s): remove it from the list", id, reason)
		}
	}
	if strictScenarios[scenario] && version == modernVersion {
		if reason, lenient := bridgeLenient[scenario]; e.bridge && lenient {
			t.Logf("warnings allowed through the bridge: %s", reason)
		} else {
			for _, w := range warnings {
				failures = append(failures, "(a SHOULD the modern fixture meets) "+w)
			}
		}
	}
	for _, w := range warnings {
		t.Logf("warning: %s", w)
	}
	for _, x := range excused {
		t.Logf("not applicable: %s", x)
	}
	if len(failures) > 0 {
		// The runner colours its output whatever the terminal.
		plain := ansiEscape.ReplaceAllString(out.String(), "")
		t.Errorf("scenario %s failed (%s):\n  %s\n--- runner output ---\n%s\n--- checks.json ---\n%s",
			scenario, elapsed, strings.Join(failures, "\n  "), plain, raw)
		return
	}
	t.Logf("pass (%d checks, %s)", len(checks), elapsed)
}

// TestModernClientFixtureHTTP checks test/client/modern-client.mjs against
// the modern fixture served directly: a pinned 2026-07-28 connection, a
// tool call, an MRTR round answered from --elicit, progress, logs at the
// requested level.
func TestModernClientFixtureHTTP(t *testing.T) {
	e := setupModern(t)
	endpoint := e.startFixtureHTTP(t)
	lines := e.runClient(t, endpoint, "", "--mode", "modern", "--log-level", "info",
		"--list", "--call", "echo", "--args", `{"text":"hi"}`,
		"--call", "ask_name", "--elicit", `{"name":"Ada"}`,
		"--call", "progress_log", "--args", `{"steps":2}`, "--progress")
	checkClientLines(t, lines, "modern")
}

// TestModernGatewayClient runs the modern client through the gateway with
// the modern fixture behind it, in both eras.
func TestModernGatewayClient(t *testing.T) {
	e := setupModern(t)
	tmp := t.TempDir()
	gatewayBin := filepath.Join(tmp, "mcp-gateway")
	goBuild(t, e.root, gatewayBin, "./cmd/mcp-gateway")
	pidfile := filepath.Join(tmp, "fixture.pids")
	runCmd := shellQuote(e.node) + " " + shellQuote(e.fixture) + " --pidfile " + shellQuote(pidfile)
	token := randomToken(t)
	gw := startGateway(t, gatewayBin, runCmd, pidfile, tmp, token)
	for _, mode := range []string{"modern", "legacy"} {
		t.Run(mode, func(t *testing.T) {
			lines := e.runClient(t, gw.url+"/mcp", token, "--mode", mode, "--log-level", "info",
				"--list", "--call", "echo", "--args", `{"text":"hi"}`,
				"--call", "ask_name", "--elicit", `{"name":"Ada"}`,
				"--call", "progress_log", "--args", `{"steps":2}`, "--progress")
			checkClientLines(t, lines, mode)
		})
	}
}

// runClient runs modern-client.mjs and returns its JSON lines; it fails the
// test if the client exits non-zero.
func (e modernEnv) runClient(t *testing.T, url, token string, args ...string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	argv := append([]string{filepath.Join(e.root, "test", "client", "modern-client.mjs"), "--url", url, "--timeout", "30"}, args...)
	if token != "" {
		argv = append(argv, "--token", token)
	}
	cmd := exec.CommandContext(ctx, e.node, argv...)
	cmd.Dir = e.root
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
