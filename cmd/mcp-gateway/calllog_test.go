package main

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The call log's switch (SPEC §11.1, §10): on by default, off with
// --call-log=false or MCP_GATEWAY_CALL_LOG=off; a value that is neither
// fails the launch, naming the variable. Tracing's environment is checked
// the same way: an exporter the gateway has not is refused at launch.
func TestCallLogSwitch(t *testing.T) {
	tools := `MCP_FAKE_TOOLS=[{"name":"echo","inputSchema":{"type":"object"}}]`
	for _, c := range []struct {
		name  string
		flags []string
		env   []string
		lines bool
	}{
		{"default", nil, nil, true},
		{"flag", []string{"--call-log=false"}, nil, false},
		{"env", nil, []string{"MCP_GATEWAY_CALL_LOG=off"}, false},
		{"flag-wins", []string{"--call-log=true"}, []string{"MCP_GATEWAY_CALL_LOG=off"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			args := append(append([]string{"--config", fakeConfig(map[string][]string{"a": {tools}})}, e.flags()...), c.flags...)
			if code, _, errOut := e.run(append([]string{"GATEWAY_ACCESS_TOKEN=t"}, c.env...), args...); code != 0 {
				t.Fatalf("launch: %s", errOut)
			}
			pid := e.daemonPID()
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGTERM); waitExit(t, pid, 15*time.Second) })
			mcpCall(t, e.url(), "t", "echo", `{"text":"hi"}`)
			_ = syscall.Kill(pid, syscall.SIGTERM) // the log is complete once the daemon is gone
			waitExit(t, pid, 15*time.Second)
			log, _ := os.ReadFile(e.path("gateway.log"))
			if got := strings.Contains(string(log), "msg=call method=tools/call server=a name=echo"); got != c.lines {
				t.Errorf("call line in the log: %v, want %v:\n%s", got, c.lines, log)
			}
		})
	}
	for _, bad := range []struct{ env, want string }{
		{"MCP_GATEWAY_CALL_LOG=maybe", "MCP_GATEWAY_CALL_LOG"},
		{"OTEL_TRACES_EXPORTER=zipkin", "OTEL_TRACES_EXPORTER=zipkin"},
		{"OTEL_EXPORTER_OTLP_PROTOCOL=http/json", "OTEL_EXPORTER_OTLP_PROTOCOL=http/json"},
	} {
		e := newEnv(t)
		code, _, errOut := e.launch(fakeConfig(map[string][]string{"a": {tools}}), "GATEWAY_ACCESS_TOKEN=t", "OTEL_TRACES_EXPORTER=otlp", bad.env)
		if code == 0 || !strings.Contains(errOut, bad.want) {
			t.Errorf("launch with %s: exit %d, stderr %q; want a failure naming %s", bad.env, code, errOut, bad.want)
		}
	}
}
