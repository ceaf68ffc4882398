package conformance

import (
	"encoding/json"
	"strings"
	"testing"
)

// The pairings: each suite against both fixtures (SPEC §3.1: both eras on
// one endpoint; §4.6: the bridges between them).
//
//	TestConformance016/legacy    0.1.16, every server scenario, the Go fixture
//	TestConformance016/modern    0.1.16, every server scenario, the modern fixture
//	TestConformance016/legacy-http  the same with the Go fixture served over
//	                             Streamable HTTP (an HTTP server, SPEC §5.6)
//	TestConformance2026/modern   0.2.0-alpha.12's 2026-07-28 scenarios, the modern fixture
//	TestConformance2026/legacy   the same with the Go fixture (the MRTR bridge)
//	TestConformance2026/modern-http  the same with the modern fixture over HTTP
//	TestConformanceNext2025      0.2.0-alpha.12's 2025-11-25 scenarios, the Go fixture
//	TestConformanceTasks/modern  the tasks extension's, the modern fixture's own tasks
//	TestConformanceTasks/modern-http  the same over HTTP
//	TestConformanceTasks/gateway the same with the Go fixture under -no-tasks: tasks
//	                             the gateway makes (aggregator/modern/taskmodern.go)
//
// The pairings run side by side (t.Parallel), their runners bounded by
// runnerSlots. Those whose scenarios leave nothing behind run them in one
// runner each, one after another (a batch, runs_test.go); the others run
// a runner per scenario, side by side.

func TestConformance016(t *testing.T) {
	t.Parallel()
	for _, f := range []fixture{legacyFixture, modernFixture, legacyHTTPFixture} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			pairing{name: "0.1.16/" + f.name, cli: env.cli016, fixture: f, scenarios: every, batch: true,
				expected: expected016[f.name], before: requireLists(f, false, tools016, lists016)}.run(t)
		})
	}
}

func TestConformance2026(t *testing.T) {
	t.Parallel()
	for _, f := range []fixture{modernFixture, legacyFixture, modernHTTPFixture} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			p := pairing{name: "2026-07-28/" + f.name, cli: env.cliNext, version: modernVersion, fixture: f, scenarios: taggedWith(modernVersion),
				batch: true, expected: expected2026[f.name], strict: strictScenarios, before: requireLists(f, true, tools2026, lists2026)}
			if f.name == "legacy" {
				// Scenario by scenario: a call the MRTR bridge parked
				// stays in flight on the server.
				p.batch, p.isolate = false, bridgeIsolation
				p.skip = bridgeSkip
				p.strict = withoutKeys(strictScenarios, bridgeLenient)
			}
			p.run(t)
		})
	}
}

// TestConformanceNext2025 runs 0.2.0-alpha.12's 2025-11-25 scenarios: the
// same as 0.1.16's and more, with stricter checks (every message valid
// against the 2025-11-25 schema, tools-name-format,
// server-session-id-visible-ascii, the SEP-2106 keywords).
func TestConformanceNext2025(t *testing.T) {
	t.Parallel()
	pairing{name: "next-2025-11-25/legacy", cli: env.cliNext, version: "2025-11-25", fixture: legacyFixture, scenarios: taggedWith("2025-11-25"),
		batch: true, expected: expectedNext2025, before: requireLists(legacyFixture, false, tools016, lists016)}.run(t)
}

func TestConformanceTasks(t *testing.T) {
	t.Parallel()
	for _, f := range []fixture{modernFixture, modernHTTPFixture} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			pairing{name: "tasks/" + f.name, cli: env.cliNext, version: modernVersion, fixture: f, scenarios: tasksOnly,
				before: requireLists(f, true, toolsTasks, nil)}.run(t)
		})
	}
	t.Run("gateway", func(t *testing.T) {
		t.Parallel()
		// A gateway each: a task one scenario leaves running stays in
		// flight on the server, and the gateway relays a server's
		// elicitation only while every call in flight there is one
		// client's (SPEC §4.6).
		pairing{name: "tasks/gateway-made", cli: env.cliNext, version: modernVersion, fixture: legacyNoTasksFixture, scenarios: tasksOnly,
			isolate:  func(string) string { return "a task left running stays in flight on the server" },
			expected: expectedGatewayTasks, before: requireNoExecution}.run(t)
	})
}

// tasksOnly picks the tasks extension's scenarios.
func tasksOnly(listed []listedScenario) []string {
	var out []string
	for _, s := range taggedWith("extension")(listed) {
		if strings.HasPrefix(s, "tasks-") {
			out = append(out, s)
		}
	}
	return out
}

// bridgeIsolation says which scenarios of the 2026-07-28 set need a
// gateway (and a fixture process) of their own with the legacy fixture
// behind it, and why; the others share one, side by side.
func bridgeIsolation(sc string) string {
	switch {
	case sc == "server-stateless":
		return "it toggles the fixture's tool and prompt lists, which other scenarios list"
	case strings.HasPrefix(sc, "input-required-result-"):
		return "the fixture asks the client during the call, which the gateway relays only while one client's " +
			"calls are in flight on the server (SPEC §4.6), and a call the MRTR bridge parked stays in flight"
	}
	return ""
}

// The tools, prompts and resources the scenarios call: the gateway must
// list each of them before any scenario runs, since some scenarios pass
// (or say "not testable") when theirs is missing.
var (
	tools016 = []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_tool_with_logging", "test_error_handling", "test_tool_with_progress",
		"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
		"json_schema_2020_12_tool"}
	tools2026 = []string{"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
		"test_multiple_content_types", "test_error_handling", "test_tool_with_progress", "json_schema_2020_12_tool",
		"test_missing_capability", "test_streaming_elicitation", "test_logging_tool", "test_trigger_tool_change",
		"test_trigger_prompt_change", "test_custom_header", "test_input_required_result_elicitation",
		"test_input_required_result_sampling", "test_input_required_result_list_roots",
		"test_input_required_result_request_state", "test_input_required_result_multiple_inputs",
		"test_input_required_result_multi_round", "test_input_required_result_tampered_state",
		"test_input_required_result_capabilities"}
	toolsTasks = []string{"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task"}

	lists016 = map[[3]string][]string{
		{"prompts/list", "prompts", "name"}: {"test_simple_prompt", "test_prompt_with_arguments",
			"test_prompt_with_embedded_resource", "test_prompt_with_image"},
		{"resources/list", "resources", "uri"}:                           {"test://static-text", "test://static-binary", "test://watched-resource"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate"}: {"test://template/{id}/data"},
	}
	lists2026 = map[[3]string][]string{
		{"prompts/list", "prompts", "name"}: {"test_simple_prompt", "test_prompt_with_arguments",
			"test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt"},
		{"resources/list", "resources", "uri"}:                           {"test://static-text", "test://static-binary"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate"}: {"test://template/{id}/data"},
	}
)

// requireLists checks, before the scenarios run, that fixture f has the
// tools, and that the gateway lists them and the prompts, resources and
// templates of lists, asked in the pairing's era.
func requireLists(f fixture, modern bool, tools []string, lists map[[3]string][]string) func(t *testing.T, endpoint string) {
	return func(t *testing.T, endpoint string) {
		t.Helper()
		have, err := f.listTools()
		if err != nil {
			t.Fatal(err)
		}
		if m := missing(have, tools); len(m) > 0 {
			t.Fatalf("the %s fixture lacks the scenario tools %v", f.name, m)
		}
		c, err := newRPCClient(endpoint, modern)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		want := map[[3]string][]string{{"tools/list", "tools", "name"}: have}
		for k, v := range lists {
			want[k] = v
		}
		for l, names := range want {
			entries, err := c.list(l[0], l[1])
			if err != nil {
				t.Fatalf("the gateway's %s, before the scenarios: %v", l[0], err)
			}
			if m := missing(keys(entries, l[2]), names); len(m) > 0 {
				t.Fatalf("the gateway's %s lacks %v", l[0], m)
			}
		}
	}
}

// requireNoExecution checks that no tool the gateway lists carries
// execution (the legacy fixture under -no-tasks), so that every task is
// one the gateway made.
func requireNoExecution(t *testing.T, endpoint string) {
	requireLists(legacyNoTasksFixture, true, toolsTasks, nil)(t, endpoint)
	c, _ := newRPCClient(endpoint, true)
	tools, err := c.list("tools/list", "tools")
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		var d struct {
			Name      string          `json:"name"`
			Execution json.RawMessage `json:"execution"`
		}
		if json.Unmarshal(tl, &d) == nil && d.Execution != nil {
			t.Fatalf("tool %s has execution %s under -no-tasks: its tasks would not be the gateway's", d.Name, d.Execution)
		}
	}
}

func withoutKeys(m map[string]bool, drop map[string]string) map[string]bool {
	out := map[string]bool{}
	for k, v := range m {
		if _, ok := drop[k]; !ok {
			out[k] = v
		}
	}
	return out
}
