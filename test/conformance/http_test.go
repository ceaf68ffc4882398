package conformance

// The conformance suites through the gateway to a fixture it reaches over
// HTTP (SPEC §5.6, §7.9; issue 23): the legacy Go fixture served with
// -http (its Streamable HTTP front, fixture/http.go) for 0.1.16, and the
// TypeScript modern fixture's --http mode for 0.2.0-alpha.12, each started
// by the gateway through runCmd and reached at url. A few tools scenarios
// of each suite run here: those whose messages cross the HTTP transport in
// every way it carries them (a plain result, progress and log messages on
// a call's stream, a server's request answered back, the modern request
// headers, MRTR, the tasks extension's Mcp-Name). With
// MCP_GATEWAY_CONFORMANCE_HTTP_ALL=1 they run the full lists (scenarios;
// modernScenarios and tasksScenarios) instead, as `make test` is to
// once the harness is restructured to take a server's config.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// allOverHTTP is list, or all of the suite's with
// MCP_GATEWAY_CONFORMANCE_HTTP_ALL=1.
func allOverHTTP(list, all []string) []string {
	if os.Getenv("MCP_GATEWAY_CONFORMANCE_HTTP_ALL") == "1" {
		return all
	}
	return list
}

// httpScenarios are the 0.1.16 scenarios run over HTTP here.
var httpScenarios = []string{
	"tools-list",
	"tools-call-simple-text",
	"tools-call-with-progress",
	"tools-call-with-logging",
	"tools-call-sampling",
	"tools-call-elicitation",
}

// modernHTTPScenarios are the 0.2.0-alpha.12 scenarios run over HTTP here.
var modernHTTPScenarios = []string{
	"tools-call-simple-text",
	"tools-call-with-progress",
	"http-custom-header-server-validation",
	"input-required-result-basic-elicitation",
	"input-required-result-multi-round",
	"tasks-lifecycle",
	"tasks-request-headers",
}

// httpServerConfig is a config of one server, "conformance", served by
// runCmd at url.
func httpServerConfig(url, runCmd string) string {
	config, _ := json.Marshal(map[string]any{"conformance": map[string]any{"url": url, "runCmd": runCmd}})
	return string(config)
}

func TestConformanceOverHTTP(t *testing.T) {
	e := setupModern(t) // the same node and packages; the 0.1.16 runner below
	tmp := t.TempDir()
	gatewayBin, fixtureBin, fixtureTools := e.buildLegacy(t, tmp)
	requireTools(t, "the legacy fixture", fixtureTools, scenarioTools)
	port := freePort(t)
	pidfile := filepath.Join(tmp, "fixture.pids")
	runCmd := fmt.Sprintf("exec %s -http 127.0.0.1:%d -pidfile %s", shellQuote(fixtureBin), port, shellQuote(pidfile))
	endpoint := httpEndpoint(t, gatewayBin, httpServerConfig(fmt.Sprintf("http://127.0.0.1:%d/mcp", port), runCmd), pidfile, tmp)
	listed := rawListTools(t, endpoint)
	for _, name := range scenarioTools {
		if !slices.Contains(listed, name) {
			t.Fatalf("tools/list through the gateway lacks %s: %v", name, listed)
		}
	}
	cli := filepath.Join(e.root, "test", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	outRoot := filepath.Join(tmp, "results")
	for _, sc := range allOverHTTP(httpScenarios, scenarios) {
		t.Run(sc, func(t *testing.T) {
			runScenario(t, e.node, e.shim, cli, e.root, endpoint, filepath.Join(outRoot, sc), sc)
		})
	}
}

func TestModernConformanceOverHTTP(t *testing.T) {
	e := setupModern(t)
	tmp := t.TempDir()
	gatewayBin := filepath.Join(tmp, "mcp-gateway")
	goBuild(t, e.root, gatewayBin, "./cmd/mcp-gateway")
	fixtureTools := e.fixtureTools(t)
	requireTools(t, "the modern fixture", fixtureTools, append(slices.Clone(modernScenarioTools), tasksScenarioTools...))
	port := freePort(t)
	pidfile := filepath.Join(tmp, "fixture.pids")
	runCmd := fmt.Sprintf("exec %s %s --http %d --pidfile %s", shellQuote(e.node), shellQuote(e.fixture), port, shellQuote(pidfile))
	endpoint := httpEndpoint(t, gatewayBin, httpServerConfig(fmt.Sprintf("http://127.0.0.1:%d/mcp", port), runCmd), pidfile, tmp)
	requireModernList(t, endpoint, fixtureTools)
	e.runAll(t, endpoint, allOverHTTP(modernHTTPScenarios, slices.Concat(modernScenarios, tasksScenarios)))
}

// httpEndpoint starts the gateway with config and the bearer proxy in
// front of it, and returns the proxy's /mcp URL.
func httpEndpoint(t *testing.T, gatewayBin, config, pidfile, tmp string) string {
	t.Helper()
	token := randomToken(t)
	gw := startGatewayWith(t, gatewayBin, config, pidfile, tmp, token)
	proxyLog := &syncBuffer{}
	proxyURL := startProxy(t, gw.url, token, proxyLog)
	t.Cleanup(func() {
		if t.Failed() && proxyLog.String() != "" {
			t.Logf("--- proxy errors ---\n%s", proxyLog.String())
		}
	})
	return proxyURL + "/mcp"
}
