package relay

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Router.Tool's one scan of a tools/call's params finds its task (a
// "task" object, the last of several counting, as jsonrpc.Member reads
// it), and Check then says whether the params hold a progressToken, its
// keys compared decoded, as the supervisor's swap reads them: a call
// Check found free of one is not scanned for it again (issue 33), so
// a token it missed would reach the server unswapped.
func TestToolScanFindsTaskAndToken(t *testing.T) {
	r := NewRouter(registry.New(nil, slog.New(slog.DiscardHandler)), ToolSearchOff, 0)
	big := `"arguments":{"rows":[` + strings.Repeat(`{"progressToken":1,"task":{}},`, 1000) + `{}]}`
	for _, tc := range []struct {
		name, params    string
		task, tokenFree bool
	}{
		{"plain", `{"name":"t",` + big + `}`, false, true},
		{"a task", `{"name":"t","task":{"ttl":60000},` + big + `}`, true, true},
		{"a task that is not an object", `{"name":"t","task":null}`, false, true},
		{"the last task counts", `{"name":"t","task":{},"task":1}`, false, true},
		{"an escaped task key", `{"name":"t","t\u0061sk":{}}`, true, true},
		{"_meta without a token", `{"name":"t","_meta":{"x":{"progressToken":1}},` + big + `}`, false, true},
		{"a token", `{"name":"t",` + big + `,"_meta":{"progressToken":"p"}}`, false, false},
		{"an escaped token key", `{"name":"t","_meta":{"progress\u0054oken":7}}`, false, false},
		{"an escaped _meta key", `{"name":"t","_m\u0065ta":{"progressToken":7}}`, false, false},
		{"a token that is null, refused", `{"name":"t","_meta":{"progressToken":null}}`, false, false},
		{"two _meta, refused", `{"name":"t","_meta":{},"_meta":{}}`, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := r.Tool([]byte(tc.params), nil) // no such tool: routed nowhere, but read
			_ = c.Check()
			if c.Task != tc.task || c.NoProgressToken() != tc.tokenFree {
				t.Errorf("Task %v, NoProgressToken %v; want %v, %v", c.Task, c.NoProgressToken(), tc.task, tc.tokenFree)
			}
			c = Call{Params: []byte(tc.params)} // Check's own scan, when Tool's did not read _meta
			_ = c.Check()
			if c.NoProgressToken() != tc.tokenFree {
				t.Errorf("unrouted: NoProgressToken %v; want %v", c.NoProgressToken(), tc.tokenFree)
			}
		})
	}
}

// A renamed tool's params reach its server with the original name in
// place of the exported one and every other byte as sent, whether the
// name's place comes from Router.Tool's read of them (no second scan) or,
// for params changed since, from a scan of their own.
func TestRenamedPutsTheOriginalName(t *testing.T) {
	r := NewRouter(registry.New(nil, slog.New(slog.DiscardHandler)), ToolSearchOff, 0)
	for _, params := range []string{
		`{"name":"gh_search","arguments":{"q":"x"}}`,
		`{ "arguments" : {"name":"not this"} , "name" : "gh_search" , "_meta":{"k":1} }`,
		`{"name":"first","n\u0061me":"gh_search","task":{}}`, // the last counts, escaped or not
	} {
		c, _ := r.Tool([]byte(params), nil) // no such tool here: routed as a route would be
		c.Method, c.Route.Name, c.Params = "tools/call", "search", c.nameIn
		want, _ := jsonrpc.Replace([]byte(params), "name", []byte(`"search"`))
		if got := c.renamed(); string(got) != string(want) {
			t.Errorf("%s: renamed %s, want %s", params, got, want)
		}
		c.Params = []byte(params) // another slice, as a change of them makes: scanned
		if got := c.renamed(); string(got) != string(want) {
			t.Errorf("%s, changed: renamed %s, want %s", params, got, want)
		}
		if string(c.nameIn) != params {
			t.Fatalf("%s: Router.Tool held no place for the name", params)
		}
	}
}

// The params of a task method the gateway relays (taskrun.RelayTask) are
// refused as a call's are: a taskId or _meta that another key is but for
// case, and a progressToken Check refuses; the keys themselves pass.
func TestCheckTaskParams(t *testing.T) {
	for params, refused := range map[string]bool{
		`{"taskId":"t"}`: false,
		`{"taskId":"t","_meta":{"progressToken":1}}`:  false,
		`{"taskId":"t","TASKID":"u"}`:                 true,
		`{"taskId":"t","_META":{"progressToken":1}}`:  true,
		`{"taskId":"t","_meta":{"PROGRESSTOKEN":1}}`:  true,
		`{"taskId":"t","_meta":{"progressToken":{}}}`: true,
	} {
		if err := CheckTaskParams([]byte(params)); (err != nil) != refused {
			t.Errorf("CheckTaskParams(%s) = %v, want refused %v", params, err, refused)
		}
	}
}
