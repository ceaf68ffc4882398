package conformance

import (
	"path/filepath"
	"testing"
)

// gatewayTaskNA lists, per tasks scenario, the checks that cannot pass when
// the gateway makes every task itself (a legacy server without tasks
// behind it), each with the reason. As with notApplicable, such a failure
// is logged, and a listed check that passes is an error.
var gatewayTaskNA = map[string]map[string]string{
	"tasks-required-task-error": {
		"sep-2663-server-returns-missing-capability-when-required": "only a server can declare a tool's task support " +
			"\"required\"; a server without tasks declares none, so the gateway serves failing_job to a caller " +
			"without the extension as a plain call (its isError result), SPEC §4.7",
	},
	"tasks-mrtr-composition": {
		"sep-2663-mrtr-synchronous-before-task-creation": "round 1 must be an InputRequiredResult and the task made " +
			"only on the retry; the gateway makes a call that asks for input a task at once (SPEC §4.7, README " +
			"\"Who makes the task\"), which tasks-mrtr-input's confirm_delete needs: a legacy tool that asks at once " +
			"looks the same in both, and only a server that decides itself can tell them apart",
	},
}

// TestModernGatewayMadeTasks runs the tasks extension's scenarios with the
// legacy fixture behind the gateway in its -no-tasks mode: no tasks
// capability, no execution.taskSupport, so every task the runner sees is
// one the gateway made (aggregator/taskmodern.go) for a call still running
// after its threshold or asking for input.
func TestModernGatewayMadeTasks(t *testing.T) {
	e := setupModern(t)
	tmp := t.TempDir()
	gatewayBin, fixtureBin, fixtureTools := e.buildLegacy(t, tmp)
	requireTools(t, "the legacy fixture", fixtureTools, tasksScenarioTools)

	start := func(t *testing.T, dir string) string {
		pidfile := filepath.Join(dir, "fixture.pids")
		return e.gatewayEndpoint(t, gatewayBin, shellQuote(fixtureBin)+" -no-tasks -pidfile "+shellQuote(pidfile), pidfile, dir)
	}
	endpoint := start(t, tmp)
	requireModernList(t, endpoint, fixtureTools)
	defs, err := modernListToolDefs(endpoint)
	if err != nil {
		t.Fatalf("list the tools: %v", err)
	}
	for _, d := range defs {
		if d.Execution != nil {
			t.Fatalf("tool %s has execution %s under -no-tasks: its tasks would not be the gateway's", d.Name, d.Execution)
		}
	}
	// A gateway each, as in TestModernGatewayLegacyServer: a task one
	// scenario leaves running stays in flight on the server, and the
	// gateway relays a server's elicitation only while every call in
	// flight there is one client's (SPEC §4.6).
	e.notApplicable = gatewayTaskNA
	outRoot := filepath.Join(tmp, "results")
	for _, sc := range tasksScenarios {
		t.Run(sc, func(t *testing.T) {
			e.runScenario(t, start(t, t.TempDir()), filepath.Join(outRoot, sc), modernVersion, sc)
		})
	}
}
