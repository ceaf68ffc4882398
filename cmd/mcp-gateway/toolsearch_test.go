package main

import (
	"strings"
	"testing"
)

// --tool-search and MCP_GATEWAY_TOOL_SEARCH (SPEC §4.10, §10) reach the
// daemon: with search on, a client that does not choose gets search_tools
// and call_tool in tools/list, and call_tool reaches the server; auto is on
// past --tool-search-threshold; a flag wins over the environment. A value
// that is not off, on or auto, or a threshold that is not a count, fails
// the launch, naming what to fix.
func TestToolSearchSetting(t *testing.T) {
	tools := `MCP_FAKE_TOOLS=[{"name":"echo","inputSchema":{"type":"object"}},{"name":"sleep","inputSchema":{"type":"object"}}]`
	for _, c := range []struct {
		name   string
		flags  []string
		env    []string
		search bool
	}{
		{"env on", nil, []string{"MCP_GATEWAY_TOOL_SEARCH=on"}, true},
		{"flag auto past the threshold", []string{"--tool-search", "auto", "--tool-search-threshold", "1"}, nil, true},
		{"env auto within the threshold", nil, []string{"MCP_GATEWAY_TOOL_SEARCH=auto"}, false},
		{"flag off wins over env on", []string{"--tool-search=off"}, []string{"MCP_GATEWAY_TOOL_SEARCH=on"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			code, _, errOut := e.launchFlags(fakeConfig(map[string][]string{"a": {tools}}), c.flags, append([]string{"GATEWAY_ACCESS_TOKEN=t"}, c.env...)...)
			if code != 0 {
				t.Fatalf("launch: %s", errOut)
			}
			s := openSession(t, e.url(), "t")
			list, err := s.do(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(list, `"name":"search_tools"`) && !strings.Contains(list, `"name":"echo"`); got != c.search {
				t.Errorf("search mode %v, want %v: %s", got, c.search, list)
			}
			if res, err := s.call("call_tool", `{"name":"echo","arguments":{"text":"via"}}`); err != nil || !strings.Contains(res, `"text":"via from a"`) {
				t.Errorf("call_tool: %s %v", res, err)
			}
		})
	}
	for _, bad := range []struct {
		flags []string
		env   string
		want  string
	}{
		{[]string{"--tool-search", "maybe"}, "", "--tool-search"},
		{nil, "MCP_GATEWAY_TOOL_SEARCH=yes", "MCP_GATEWAY_TOOL_SEARCH"},
		{[]string{"--tool-search-threshold", "0"}, "", "--tool-search-threshold"},
		{nil, "MCP_GATEWAY_TOOL_SEARCH_THRESHOLD=many", "MCP_GATEWAY_TOOL_SEARCH_THRESHOLD"},
	} {
		e := newEnv(t)
		code, _, errOut := e.launchFlags(fakeConfig(map[string][]string{"a": {tools}}), bad.flags, "GATEWAY_ACCESS_TOKEN=t", bad.env)
		if code == 0 || !strings.Contains(errOut, bad.want) {
			t.Errorf("launch with %v %s: exit %d, stderr %q; want a failure naming %s", bad.flags, bad.env, code, errOut, bad.want)
		}
	}
}
