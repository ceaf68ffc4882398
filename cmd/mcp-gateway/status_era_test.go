package main

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// status shows each server's era beside its protocol version (SPEC §7.8).
func TestPrintStatusShowsEra(t *testing.T) {
	doc := statusDoc{Servers: []serverStatus{
		{Status: supervisor.Status{Name: "new", State: supervisor.StateRunning, PID: 42, Protocol: "2026-07-28", Era: supervisor.EraModern}},
		{Status: supervisor.Status{Name: "old", State: supervisor.StateExited, Era: supervisor.EraLegacy}},
		{Status: supervisor.Status{Name: "never", State: supervisor.StateStarting}},
	}}
	var out bytes.Buffer
	printStatus(&out, doc)
	for _, want := range []string{`PROTOCOL`, `(?m)^new\s+running\s+42\s+\S+\s+2026-07-28 \(modern\)\s`, `(?m)^old\s+exited\s+-\s+-\s+legacy\s`, `(?m)^never\s+starting\s+-\s+-\s+-\s`} {
		if !regexp.MustCompile(want).MatchString(out.String()) {
			t.Errorf("status output does not match %s:\n%s", want, out.String())
		}
	}
}
