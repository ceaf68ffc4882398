package conformance

// The checks that fail by design, per pairing, scenario and check, each
// with its reason. A failure listed here is logged, not an error; a listed
// check that passes is an error, so that the lists stay honest.

// expected016 is 0.1.16's, per fixture.
var expected016 = map[string]map[string]map[string]string{
	"legacy":      {},
	"modern":      {},
	"legacy-http": {},
}

// expected2026 is 0.2.0-alpha.12's 2026-07-28 set's, per fixture.
var expected2026 = map[string]map[string]map[string]string{
	"modern":      {},
	"legacy":      {},
	"modern-http": {},
}

// expectedNext2025 is 0.2.0-alpha.12's 2025-11-25 scenarios'.
var expectedNext2025 = map[string]map[string]string{}

// expectedGatewayTasks lists the checks that cannot pass when the gateway
// makes every task itself (a legacy server without tasks behind it).
var expectedGatewayTasks = map[string]map[string]string{
	"tasks-required-task-error": {
		"sep-2663-server-returns-missing-capability-when-required": "only a server can declare a tool's task support " +
			"\"required\"; a server without tasks declares none, so the gateway serves failing_job to a caller " +
			"without the extension as a plain call (its isError result), SPEC §4.7",
	},
	"tasks-mrtr-composition": {
		"sep-2663-mrtr-synchronous-before-task-creation": "round 1 must be an InputRequiredResult and the task made " +
			"only on the retry; the gateway makes a call that asks for input a task at once (SPEC §4.7, docs/tasks.md " +
			"\"Who makes the task\"), which tasks-mrtr-input's confirm_delete needs: a legacy tool that asks at once " +
			"looks the same in both, and only a server that decides itself can tell them apart",
	},
}

// strictScenarios have only SHOULD (WARNING-level) checks, so they cannot
// fail as the suite scores them; the fixtures meet them, so in these runs
// a warning counts as a failure.
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
