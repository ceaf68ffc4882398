package aggregator

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/realtools"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Tests of tool search (SPEC §4.10): search mode's tools/list by query
// and by setting in both eras, search_tools, and call_tool as the direct
// call of the tool it names.

// searchFake is the fake server's tools here, with one named like the
// gateway's own search_tools, which it must give up.
const searchFake = `[{"name":"echo","description":"Echo the text back.","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"what to say"}}}},` +
	`{"name":"args","description":"Show the params as received.","inputSchema":{"type":"object"}},` +
	`{"name":"progress","description":"Report progress n times.","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}},` +
	`{"name":"sleep","description":"Sleep for ms milliseconds.","inputSchema":{"type":"object","properties":{"ms":{"type":"integer"}}}},` +
	`{"name":"elicit","description":"Ask the user to pick a number.","inputSchema":{"type":"object"}},` +
	`{"name":"search_tools","description":"The server's own search.","inputSchema":{"type":"object"}}]`

func searchGateway(t *testing.T, o HTTPOptions) *Gateway {
	t.Helper()
	_, gw := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake}}, o)
	return gw
}

// searchSession initializes a legacy session at url (query and all) with
// client capabilities caps.
func searchSession(t *testing.T, url, caps string) *rawClient {
	t.Helper()
	c := &rawClient{t: t, url: url}
	result(t, c.rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`))
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	return c
}

// listNames is the tool names of a tools/list result, in order.
func listNames(t *testing.T, res []byte) []string {
	t.Helper()
	var r struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatalf("decode tools/list %s: %v", res, err)
	}
	var names []string
	for _, tl := range r.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func legacyList(t *testing.T, c *rawClient) []byte {
	t.Helper()
	return result(t, c.rpc(`{"jsonrpc":"2.0","id":50,"method":"tools/list"}`))
}

func modernToolsList(t *testing.T, url string) []byte {
	t.Helper()
	resp, b := send(t, "POST", url, `{"jsonrpc":"2.0","id":51,"method":"tools/list","params":{`+modernMetaJSON+`}}`, modernHeaders("tools/list", ""))
	return result(t, message(t, resp, b))
}

var searchList = []string{"search_tools", "call_tool"}

// The query parameter tools chooses: a legacy session keeps its
// initialize's choice for its life, a modern request makes its own; a
// server's tool named search_tools is exported prefixed in both modes; a
// value other than all or search is 400 with -32602.
func TestSearchModeByQuery(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake}}, HTTPOptions{})
	base := srv.URL + "/mcp"
	whole := []string{"echo", "args", "progress", "sleep", "elicit", "s_search_tools"}

	search := searchSession(t, base+"?tools=search", `{}`)
	res := legacyList(t, search)
	if diff := cmp.Diff(searchList, listNames(t, res)); diff != "" {
		t.Errorf("legacy ?tools=search list (-want +got):\n%s", diff)
	}
	if len(res) >= 2048 {
		t.Errorf("search mode's list is %d bytes, want under 2 KB: %s", len(res), res)
	}
	search.url = base // later POSTs without the query: the session keeps its choice
	if diff := cmp.Diff(searchList, listNames(t, legacyList(t, search))); diff != "" {
		t.Errorf("the session's list without the query (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(whole, listNames(t, legacyList(t, searchSession(t, base, `{}`)))); diff != "" {
		t.Errorf("legacy list without a query (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(searchList, listNames(t, modernToolsList(t, base+"?tools=search"))); diff != "" {
		t.Errorf("modern ?tools=search list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(whole, listNames(t, modernToolsList(t, base+"?tools=all"))); diff != "" {
		t.Errorf("modern ?tools=all list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(whole, listNames(t, modernToolsList(t, base))); diff != "" {
		t.Errorf("modern list without a query (-want +got):\n%s", diff)
	}

	resp, b := send(t, "POST", base+"?tools=some", initBody("2025-06-18"), nil)
	wantRPCError(t, "legacy initialize at ?tools=some", resp, b, http.StatusBadRequest, -32602)
	resp, b = send(t, "POST", base+"?tools=some", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMetaJSON+`}}`, modernHeaders("tools/list", ""))
	wantRPCError(t, "modern tools/list at ?tools=some", resp, b, http.StatusBadRequest, -32602)
}

// --tool-search (HTTPOptions.ToolSearch) decides for a client that does
// not choose (no tools, or an empty ?tools=): on, or auto past the
// threshold; the query wins over it.
func TestSearchModeBySetting(t *testing.T) {
	for _, c := range []struct {
		name   string
		o      HTTPOptions
		search bool
	}{
		{"on", HTTPOptions{ToolSearch: ToolSearchOn}, true},
		{"auto past the threshold", HTTPOptions{ToolSearch: ToolSearchAuto, ToolSearchThreshold: 5}, true},
		{"auto within the default threshold", HTTPOptions{ToolSearch: ToolSearchAuto}, false},
		{"off", HTTPOptions{ToolSearch: ToolSearchOff}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake}}, c.o)
			base := srv.URL + "/mcp"
			for era, list := range map[string][]byte{
				"legacy":         legacyList(t, searchSession(t, base, `{}`)),
				"modern":         modernToolsList(t, base),
				"legacy ?tools=": legacyList(t, searchSession(t, base+"?tools=", `{}`)), // present but empty: the setting
				"modern ?tools=": modernToolsList(t, base+"?tools="),
			} {
				if got := slices.Equal(listNames(t, list), searchList); got != c.search {
					t.Errorf("%s: search mode %v, want %v: %s", era, got, c.search, list)
				}
			}
			if c.search {
				if names := listNames(t, modernToolsList(t, base+"?tools=all")); slices.Equal(names, searchList) {
					t.Errorf("?tools=all did not win over the setting: %v", names)
				}
				if names := listNames(t, legacyList(t, searchSession(t, base+"?tools=all", `{}`))); slices.Equal(names, searchList) {
					t.Errorf("legacy ?tools=all did not win over the setting: %v", names)
				}
			}
		})
	}
}

// searchResult is search_tools' result.
type searchResult struct {
	Content []struct {
		Type, Text string
	} `json:"content"`
	StructuredContent struct {
		Tools []json.RawMessage `json:"tools"`
	} `json:"structuredContent"`
}

// search_tools finds the tool asked for, with its definition exactly as
// the whole tools/list gives it and a text line beside it, the same
// bytes on every call, in both eras; bad arguments are -32602.
func TestSearchTools(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake}}, HTTPOptions{})
	base := srv.URL + "/mcp"
	var echoDef json.RawMessage
	var whole struct{ Tools []json.RawMessage }
	_ = json.Unmarshal(modernToolsList(t, base), &whole)
	for _, d := range whole.Tools {
		if strings.Contains(string(d), `"name":"echo"`) {
			echoDef = d
		}
	}
	legacy := searchSession(t, base+"?tools=search", `{}`)
	modern := modernCaller{t: t, url: base + "?tools=search", caps: `{}`}
	args := `"arguments":{"query":"say this text back to me","limit":2},`
	answers := map[string][]byte{
		"legacy": result(t, legacy.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tools",`+args+`"_meta":{}}}`)),
		"modern": result(t, modern.call(3, "search_tools", args)),
	}
	for era, res := range answers {
		var r searchResult
		if err := json.Unmarshal(res, &r); err != nil || len(r.StructuredContent.Tools) == 0 || len(r.StructuredContent.Tools) > 2 {
			t.Fatalf("%s: search_tools result %s", era, res)
		}
		if diff := cmp.Diff(string(echoDef), string(r.StructuredContent.Tools[0])); diff != "" {
			t.Errorf("%s: first hit is not echo's definition as tools/list gives it (-want +got):\n%s", era, diff)
		}
		if len(r.Content) != 1 || !strings.HasPrefix(r.Content[0].Text, "1. echo (s): Echo the text back.\n") {
			t.Errorf("%s: text %+v", era, r.Content)
		}
	}
	again := result(t, legacy.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_tools",`+args+`"_meta":{}}}`))
	if string(again) != string(answers["legacy"]) {
		t.Errorf("search_tools is not deterministic:\n%s\n%s", answers["legacy"], again)
	}
	if !strings.HasPrefix(string(answers["modern"]), `{"resultType":"complete",`) {
		t.Errorf("modern search_tools result without resultType: %s", answers["modern"])
	}
	wantCode(t, "search_tools without a query", legacy.rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search_tools","arguments":{}}}`), "-32602")
	wantCode(t, "modern search_tools with a bad limit", modern.call(6, "search_tools", `"arguments":{"query":"x","limit":0},`), "-32602")
}

// call_tool is the direct call of the tool it names: the server gets the
// same params (arguments, _meta and unknown members byte for byte), the
// client the same result bytes; an unknown name gets what a direct call
// gets; a direct call works in search mode.
func TestCallToolIsTheDirectCall(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake}}, HTTPOptions{ToolSearch: ToolSearchOn})
	base := srv.URL + "/mcp"
	legacy := searchSession(t, base, `{}`)
	inner := `{"z":1,"a":9007199254740993,"s":"\u00e9"}`
	direct := result(t, legacy.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"args","arguments":`+inner+`,"_meta":{"k":[1.50]},"extra":true}}`))
	via := result(t, legacy.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"args","arguments":`+inner+`},"_meta":{"k":[1.50]},"extra":true}}`))
	if diff := cmp.Diff(string(direct), string(via)); diff != "" {
		t.Errorf("legacy: what the server got and answered (-direct +call_tool):\n%s", diff)
	}
	modern := modernCaller{t: t, url: base, caps: `{}`}
	direct = result(t, modern.call(4, "args", `"arguments":`+inner+`,"extra":true,`))
	via = result(t, modern.call(5, "call_tool", `"arguments":{"name":"args","arguments":`+inner+`},"extra":true,`))
	if diff := cmp.Diff(string(direct), string(via)); diff != "" {
		t.Errorf("modern: what the server got and answered (-direct +call_tool):\n%s", diff)
	}
	echo := `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	if got := string(result(t, legacy.rpc(echo))); got != `{"content":[{"type":"text","text":"hi"}]}` {
		t.Errorf("a direct call in search mode: %s", got)
	}
	for era, pair := range map[string][2][]byte{
		"legacy": {legacy.rpc(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"nope","arguments":{}}}`),
			legacy.rpc(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"call_tool","arguments":{"name":"nope","arguments":{}}}}`)},
		"modern": {modern.call(7, "nope", ""), modern.call(7, "call_tool", `"arguments":{"name":"nope"},`)},
	} {
		if diff := cmp.Diff(string(pair[0]), string(pair[1])); diff != "" || !strings.Contains(string(pair[0]), `"code":-32602`) {
			t.Errorf("%s: an unknown name (-direct +call_tool):\n%s", era, diff)
		}
	}
	wantCode(t, "call_tool without a name", legacy.rpc(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"call_tool","arguments":{}}}`), "-32602")
	wantCode(t, "call_tool of itself", modern.call(9, "call_tool", `"arguments":{"name":"call_tool"},`), "-32602")
}

// callTool is the params of a call_tool of name with arguments args.
func callTool(name, args string) string {
	return `"name":"call_tool","arguments":{"name":"` + name + `","arguments":` + args + `}`
}

// A call through call_tool reports progress and is cancelled as a direct
// call is, in both eras.
func TestCallToolProgressAndCancel(t *testing.T) {
	dir := t.TempDir()
	cancelFile := filepath.Join(dir, "cancelled")
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake, "MCP_FAKE_CANCEL_FILE": cancelFile}}, HTTPOptions{})
	base := srv.URL + "/mcp?tools=search"
	legacy := searchSession(t, base, `{}`)
	var notes []string
	res := legacy.rpcNotes(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+callTool("progress", `{"n":3}`)+`,"_meta":{"progressToken":"tok"}}}`, &notes)
	if upstreamText(t, res) != "done" || len(notes) != 3 || !strings.Contains(notes[2], `"progressToken":"tok","progress":3`) {
		t.Errorf("legacy progress through call_tool: %v, result %s", notes, res)
	}
	resp, b := send(t, "POST", base, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`+callTool("progress", `{"n":2}`)+
		`,"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		modernHeaders("tools/call", "call_tool"))
	if n := strings.Count(string(b), `"method":"notifications/progress","params":{"progressToken":"p"`); n != 2 || upstreamText(t, message(t, resp, b)) != "done" {
		t.Errorf("modern progress through call_tool: %d notifications in %s", n, b)
	}

	// Legacy: notifications/cancelled for the call's id.
	started := filepath.Join(dir, "started-legacy")
	ch := events(t, legacy.post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{`+callTool("sleep", `{"ms":60000,"started":"`+started+`"}`)+`}}`))
	fakeserver.WaitFile(t, started)
	legacy.post(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`).Body.Close()
	fakeserver.WaitFile(t, cancelFile)
	for range ch { // the stream ends, with no response (MCP Cancellation)
	}
	if err := os.Remove(cancelFile); err != nil {
		t.Fatal(err)
	}
	// Modern: closing the call's stream.
	started = filepath.Join(dir, "started-modern")
	closeModernCall(t, base, "call_tool", started, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{`+
		callTool("sleep", `{"ms":60000,"started":"`+started+`"}`)+`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}}`)
	fakeserver.WaitFile(t, cancelFile)
}

// A server's elicitation during a call through call_tool reaches the
// client: on a legacy session's stream, and for a modern client as an
// InputRequiredResult whose retry, through call_tool again, resumes it.
func TestCallToolElicitation(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake}}, HTTPOptions{ToolSearch: ToolSearchOn})
	base := srv.URL + "/mcp"
	legacy := searchSession(t, base, `{"elicitation":{}}`)
	ch := events(t, legacy.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+callTool("elicit", `{}`)+`}}`))
	var ask struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if ev := next(t, ch, "elicitation"); json.Unmarshal([]byte(ev), &ask) != nil || ask.Method != "elicitation/create" {
		t.Fatalf("got %s, want elicitation/create", ev)
	}
	answer := `{"action":"accept","content":{"n":9007199254740993}}`
	legacy.post(`{"jsonrpc":"2.0","id":` + string(ask.ID) + `,"result":` + answer + `}`).Body.Close()
	if final := next(t, ch, "result"); upstreamText(t, []byte(final)) != answer {
		t.Errorf("legacy final %s", final)
	}

	modern := modernCaller{t: t, url: base, caps: `{"elicitation":{}}`}
	reqs, state := inputRequired(t, modern.call(3, "call_tool", `"arguments":{"name":"elicit"},`))
	if !strings.Contains(string(reqs["elicitation-1"]), `"method":"elicitation/create"`) {
		t.Fatalf("inputRequests %v", reqs)
	}
	final := modern.call(4, "call_tool", `"arguments":{"name":"elicit"},`+retry(state, `{"elicitation-1":`+answer+`}`))
	if got := upstreamText(t, final); got != answer {
		t.Errorf("modern final %s", final)
	}
}

// A task-augmented call through call_tool is the task of the tool's call
// (2025-11-25 for a legacy session; the tasks extension for a modern
// caller), whose result is the tool's.
func TestCallToolTask(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake}}, HTTPOptions{})
	base := srv.URL + "/mcp?tools=search"
	legacy := searchSession(t, base, `{}`)
	msg := legacy.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{` + callTool("sleep", `{"ms":300}`) + `,"task":{"ttl":60000}}}`)
	var created struct{ Task taskView }
	if err := json.Unmarshal(result(t, msg), &created); err != nil || created.Task.TaskID == "" {
		t.Fatalf("want a CreateTaskResult, got %s", msg)
	}
	res := string(result(t, taskCall(legacy, 3, "tasks/result", created.Task.TaskID)))
	if !strings.HasPrefix(res, `{"content":[{"type":"text","text":"slept"}]`) {
		t.Errorf("legacy tasks/result %s", res)
	}

	modern := modernCaller{t: t, url: base, caps: tasksCaps}
	v := decodeTask(t, modern.call(4, "call_tool", `"arguments":{"name":"sleep","arguments":{"ms":1500}},`))
	if v.ResultType != "task" || v.TaskID == "" {
		t.Fatalf("modern call_tool of a slow tool: %+v, want a task", v)
	}
	done := pollModern(t, base, v.TaskID, "completed")
	if !strings.Contains(string(done.Result), `"text":"slept"`) {
		t.Errorf("modern task result %s", done.Result)
	}
}

// The call line (SPEC §11.1) and the metrics (§11.2) of a call through
// call_tool name the real tool and its server, in both eras; search_tools
// has a line of its own and no tool series.
func TestCallToolCallLine(t *testing.T) {
	srv, _, logText := startGatewayLog(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": searchFake}},
		HTTPOptions{Telemetry: Telemetry{CallLog: testCallLog, Metrics: telemetry.NewMetrics()}})
	base := srv.URL + "/mcp?tools=search"
	legacy := searchSession(t, base, `{}`)
	result(t, legacy.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+callTool("echo", `{"text":"a"}`)+`}}`))
	result(t, modernCaller{t: t, url: base, caps: `{}`}.call(3, "call_tool", `"arguments":{"name":"echo","arguments":{"text":"b"}},`))
	result(t, legacy.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"echo"}}}`))
	// A name nobody exports: the line names it, as a direct call's does.
	rpcError(t, legacy.rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{`+callTool("nope", `{}`)+`}}`))
	rpcError(t, modernCaller{t: t, url: base, caps: `{}`}.call(6, "call_tool", `"arguments":{"name":"nope","arguments":{}},`))
	want := []string{
		`method=tools/call server=s name=echo era=legacy .* outcome=ok$`,
		`method=tools/call server=s name=echo era=modern .* outcome=ok$`,
		`method=tools/call server="" name=search_tools era=legacy .* outcome=ok$`,
		`method=tools/call server="" name=nope era=legacy .* outcome=error code=-32602$`,
		`method=tools/call server="" name=nope era=modern .* outcome=error code=-32602$`,
	}
	var lines []string
	testwait.For(t, 0, "5 call lines", func() bool { lines = callLines(logText()); return len(lines) >= len(want) })
	for _, w := range want {
		if !slices.ContainsFunc(lines, regexp.MustCompile(w).MatchString) {
			t.Errorf("no call line matches %s:\n%s", w, strings.Join(lines, "\n"))
		}
	}
	if joined := strings.Join(lines, "\n"); strings.Contains(joined, "call_tool") {
		t.Errorf("a call line names call_tool:\n%s", joined)
	}
	tools := scrape(t, srv.URL)["mcp_gateway_tool_calls_total"]
	if got := counterSum(tools, map[string]string{"gen_ai_tool_name": "echo", "outcome": "ok"}); got != 2 {
		t.Errorf("echo's ok calls = %v, want 2", got)
	}
	if got := counterSum(tools, nil); got != 2 {
		t.Errorf("tool calls counted: %v, want echo's 2 alone", got)
	}
}

// With the reference servers' real tools (internal/realtools), search
// mode's tools/list is under 2 KB, and search_tools finds the tool for a
// task put in a user's words.
func TestSearchModeRealSet(t *testing.T) {
	byServer := map[string][]json.RawMessage{}
	for _, tl := range realtools.Load(t) {
		byServer[tl.Server] = append(byServer[tl.Server], tl.Definition)
	}
	servers := map[string]map[string]string{}
	for name, defs := range byServer {
		b, _ := json.Marshal(defs)
		path := filepath.Join(t.TempDir(), name+".json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		servers[name] = map[string]string{"MCP_FAKE_TOOLS_FILE": path}
	}
	srv, _ := startGatewayOpts(t, servers, HTTPOptions{})
	base := srv.URL + "/mcp"
	all, search := modernToolsList(t, base), modernToolsList(t, base+"?tools=search")
	t.Logf("tools/list of %d tools from %d servers: %d bytes whole, %d bytes in search mode", len(listNames(t, all)), len(servers), len(all), len(search))
	if len(search) >= 2048 || len(listNames(t, all)) < 100 {
		t.Errorf("search mode's list is %d bytes (want under 2 KB) for %d tools", len(search), len(listNames(t, all)))
	}
	res := result(t, modernCaller{t: t, url: base, caps: `{}`}.call(2, "search_tools", `"arguments":{"query":"open a PR from my branch into main","limit":5},`))
	var r searchResult
	if err := json.Unmarshal(res, &r); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range r.StructuredContent.Tools {
		var def struct{ Name string }
		_ = json.Unmarshal(d, &def)
		names = append(names, def.Name)
	}
	if !slices.Contains(names, "create_pull_request") {
		t.Errorf("search_tools for a pull request found %v", names)
	}
}

// Search mode lists the pinned tools after the gateway's two, as the
// whole list gives them, and they are called directly; the list is built
// once per generation, not per request.
func TestSearchModePinned(t *testing.T) {
	srv, gw, _ := startGatewayList(t, []adapters.Server{stdioEntry(t, "s", searchFake, `{"pin":["echo"]}`)}, HTTPOptions{ToolSearch: ToolSearchOn})
	base := srv.URL + "/mcp"
	want := []string{"search_tools", "call_tool", "echo"}
	if diff := cmp.Diff(want, listNames(t, modernToolsList(t, base))); diff != "" {
		t.Errorf("search mode with echo pinned (-want +got):\n%s", diff)
	}
	built, _ := gw.router.ToolsPage(relay.ToolsSearch, "") // search mode's list, as the modern list built it
	if diff := cmp.Diff(want, listNames(t, legacyList(t, searchSession(t, base, `{}`)))); diff != "" {
		t.Errorf("legacy search mode with echo pinned (-want +got):\n%s", diff)
	}
	if again, _ := gw.router.ToolsPage(relay.ToolsSearch, ""); &again[0] != &built[0] {
		t.Errorf("search mode's parts were built again for the same generation")
	}
	if got := upstreamText(t, modernCaller{t: t, url: base, caps: `{}`}.call(2, "echo", `"arguments":{"text":"pinned"},`)); got != "pinned" {
		t.Errorf("a pinned tool called directly: %q", got)
	}
}
