package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// status shows each server's exported tools and prompts against what it
// offers, and a warning per name of its entry's choice that matches
// nothing (SPEC §4.9).
func TestPrintStatusShowsExportedAgainstOffered(t *testing.T) {
	doc := daemon.StatusDoc{Servers: []daemon.ServerStatus{
		{ServerHealth: aggregator.ServerHealth{Status: supervisor.Status{Name: "gh", State: supervisor.StateRunning, Tools: 11, Prompts: 2},
			Chosen: registry.Chosen{ToolsExported: 9, PromptsExported: 2, Unmatched: []string{`tools: allow "get_fle" matches no tool the server offers`}}}},
		{ServerHealth: aggregator.ServerHealth{Status: supervisor.Status{Name: "all", State: supervisor.StateRunning, Tools: 3},
			Chosen: registry.Chosen{ToolsExported: 3}}},
	}}
	var out bytes.Buffer
	printStatus(&out, doc)
	for _, want := range []string{`(?m)^gh\s.*\s9 of 11\s+2\s`, `(?m)^all\s.*\s3\s+0\s`, `(?m)^warning: gh: tools: allow "get_fle" matches no tool the server offers$`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("status output does not match %s:\n%s", want, out.String())
		}
	}
}
