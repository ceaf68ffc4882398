package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// status shows each server's era beside its protocol version (SPEC §7.8).
func TestPrintStatusShowsEra(t *testing.T) {
	doc := daemon.StatusDoc{Servers: []daemon.ServerStatus{
		{ServerHealth: aggregator.ServerHealth{Status: supervisor.Status{Name: "new", State: supervisor.StateRunning, PID: 42, Protocol: "2026-07-28", Era: supervisor.EraModern}}},
		{ServerHealth: aggregator.ServerHealth{Status: supervisor.Status{Name: "old", State: supervisor.StateExited, Era: supervisor.EraLegacy}}},
		{ServerHealth: aggregator.ServerHealth{Status: supervisor.Status{Name: "never", State: supervisor.StateStarting}}},
	}}
	var out bytes.Buffer
	printStatus(&out, doc)
	for _, want := range []string{`PROTOCOL`, `(?m)^new\s+running\s+42\s+\S+\s+2026-07-28 \(modern\)\s`, `(?m)^old\s+exited\s+-\s+-\s+legacy\s`, `(?m)^never\s+starting\s+-\s+-\s+-\s`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("status output does not match %s:\n%s", want, out.String())
		}
	}
}

// A legacy and a modern upstream behind one gateway (SPEC §7.8): both
// start, /health and status show their eras, and a legacy client's call
// reaches the modern server with request _meta built from its session.
func TestLegacyAndModernUpstreams(t *testing.T) {
	e := newEnv(t)
	config := fakeConfig(map[string][]string{
		"old": {},
		"new": {"MCP_FAKE_MODERN=1", `MCP_FAKE_TOOLS=[{"name":"args","inputSchema":{"type":"object"}}]`},
	})
	if code, out, errOut := e.launch(config, "GATEWAY_ACCESS_TOKEN=t"); code != 0 {
		t.Fatalf("launch: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	eras := map[string]any{}
	for _, s := range e.health()["servers"].([]any) {
		m := s.(map[string]any)
		eras[m["name"].(string)] = m["era"]
	}
	if eras["old"] != "legacy" || eras["new"] != "modern" {
		t.Errorf("/health eras = %v, want old legacy, new modern", eras)
	}
	res := mcpCall(t, e.url(), "t", "args", `{"k":1}`)
	for _, want := range []string{`\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"`, `\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\"`, `\"arguments\":{\"k\":1}`} {
		if !strings.Contains(res, want) {
			t.Errorf("the modern server got params without %s: %s", want, res)
		}
	}
	code, out, errOut := e.ctl("status")
	if code != 0 || !regexp.MustCompile(`(?m)^new\s+running\s.*2026-07-28 \(modern\)`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^old\s+running\s.*2025-11-25 \(legacy\)`).MatchString(out) {
		t.Errorf("status: exit %d\n%s%s", code, out, errOut)
	}
}
