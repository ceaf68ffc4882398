package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
	"github.com/mcp-gateway/mcp-gateway/internal/fakehttp"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Each entry's "tools" (SPEC §4.9), on a stdio and an HTTP server, seen
// by a legacy session and a modern request.

const choiceTools = `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"pid","inputSchema":{"type":"object"}},` +
	`{"name":"progress","inputSchema":{"type":"object"}},{"name":"log","inputSchema":{"type":"object"}}]`

func mustTools(t testing.TB, raw string) choice.Choice {
	t.Helper()
	c, err := choice.Tools(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stdioEntry is a fake stdio server offering tools, with the choice raw.
func stdioEntry(t testing.TB, name, tools, raw string, env ...string) adapters.Server {
	e := map[string]string{"MCP_FAKE": "1", "MCP_FAKE_TOOLS": tools}
	for i := 0; i+1 < len(env); i += 2 {
		e[env[i]] = env[i+1]
	}
	return adapters.Server{Name: name, Spec: adapters.LaunchSpec{Argv: fakeserver.Argv(), Env: e, Tools: mustTools(t, raw)}}
}

// httpEntry is a fake HTTP server of era ("": legacy Streamable HTTP,
// "modern") offering tools, with the choice raw.
func httpEntry(t *testing.T, name, tools, raw, era string) adapters.Server {
	f := fakehttp.New(fakehttp.Options{Tools: tools, Era: era})
	srv := httptest.NewServer(f)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		f.Wait()
	})
	return adapters.Server{Name: name, Spec: adapters.LaunchSpec{Kind: "http", URL: srv.URL + "/mcp", Tools: mustTools(t, raw)}}
}

// toolNames reads the names of a tools/list result.
func toolNames(t *testing.T, res json.RawMessage) []string {
	t.Helper()
	var l struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal(res, &l); err != nil {
		t.Fatalf("tools/list: %s", res)
	}
	var out []string
	for _, x := range l.Tools {
		out = append(out, x.Name)
	}
	return out
}

func modernList(t *testing.T, url string) []string {
	resp, b := send(t, "POST", url, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMetaJSON+`}}`, modernHeaders("tools/list", ""))
	return toolNames(t, result(t, message(t, resp, b)))
}

func TestToolsChoiceEachForm(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      []string          // exported, in order
		orig      map[string]string // exported → the server's name, where renamed
		gone      []string          // not callable
	}{
		{"array", `["echo","pid"]`, []string{"echo", "pid"}, nil, []string{"progress", "log"}},
		{"allow glob", `{"allow":["p*"]}`, []string{"pid", "progress"}, nil, []string{"echo", "log"}},
		{"deny", `{"deny":["log","pro*"]}`, []string{"echo", "pid"}, nil, []string{"progress", "log"}},
		{"rename", `{"rename":{"echo":"say_it"}}`, []string{"say_it", "pid", "progress", "log"}, map[string]string{"say_it": "echo"}, []string{"echo"}},
		{"all", `{"allow":["*"],"deny":["lo*"],"rename":{"echo":"shout"}}`, []string{"shout", "pid", "progress"}, map[string]string{"shout": "echo"}, []string{"echo", "log"}},
	} {
		for _, kind := range []string{"stdio", "stdio-modern", "http", "http-modern"} {
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				var entry adapters.Server
				switch kind {
				case "stdio":
					entry = stdioEntry(t, "s", choiceTools, tc.raw)
				case "stdio-modern":
					entry = stdioEntry(t, "s", choiceTools, tc.raw, "MCP_FAKE_MODERN", "1")
				case "http":
					entry = httpEntry(t, "s", choiceTools, tc.raw, "")
				case "http-modern":
					entry = httpEntry(t, "s", choiceTools, tc.raw, "modern")
				}
				srv, gw, _ := startGatewayList(t, []adapters.Server{entry}, HTTPOptions{MaxSessions: 3})
				c := newClient(t, srv)
				url := srv.URL + "/mcp"
				if diff := cmp.Diff(tc.want, toolNames(t, result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)))); diff != "" {
					t.Errorf("legacy tools/list (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.want, modernList(t, url)); diff != "" {
					t.Errorf("modern tools/list (-want +got):\n%s", diff)
				}
				// Every exported name reaches the server under its own name;
				// a renamed echo's result comes back as the server sent it.
				for _, name := range tc.want {
					if (tc.orig[name] != "" && tc.orig[name] != "echo") || (tc.orig[name] == "" && name != "echo") {
						continue
					}
					legacy := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+name+`","arguments":{"text":"hi"}}}`)))
					modern := string(result(t, modernPost(t, url, "tools/call", name, `"name":"`+name+`","arguments":{"text":"hi"},`, "{}")))
					if !strings.Contains(legacy, `"text":"hi"`) || !strings.Contains(modern, `"text":"hi"`) {
						t.Errorf("call %s: legacy %s, modern %s", name, legacy, modern)
					}
				}
				// A name left out (or the own name of a renamed tool) is
				// -32602 with the message of a name nobody offers.
				unknown := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`))
				for _, name := range tc.gone {
					e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"`+name+`","arguments":{}}}`))
					if string(e["code"]) != "-32602" || strings.Replace(string(e["message"]), name, "nope", 1) != string(unknown["message"]) {
						t.Errorf("legacy call of left-out %s: %v, want as unknown: %v", name, e, unknown)
					}
					resp, b := send(t, "POST", url, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"`+name+`","arguments":{},`+modernMetaJSON+`}}`, modernHeaders("tools/call", name))
					if msg := string(message(t, resp, b)); !strings.Contains(msg, `"code":-32602`) {
						t.Errorf("modern call of left-out %s: %d %s", name, resp.StatusCode, msg)
					}
				}
				h := gw.Health()
				if s := h.Servers[0]; s.Tools != 4 || s.ToolsExported != len(tc.want) || len(s.Unmatched) != 0 || h.ToolCount != len(tc.want) {
					t.Errorf("health: offered %d, exported %d, unmatched %q, toolCount %d; want 4, %d, none", s.Tools, s.ToolsExported, s.Unmatched, h.ToolCount, len(tc.want))
				}
			})
		}
	}
}

// A name in allow, rename or pin that the server does not offer is a
// warning in the log, once, and on /health; the server runs.
func TestToolsChoiceUnmatchedIsAWarning(t *testing.T) {
	srv, gw, logText := startGatewayList(t, []adapters.Server{
		stdioEntry(t, "s", choiceTools, `{"allow":["echo","get_fle","nothere"],"rename":{"nothere":"x"},"pin":["echo"]}`),
	}, HTTPOptions{MaxSessions: 3})
	want := []string{`tools: allow "get_fle" matches no tool the server offers`, `tools: allow "nothere" matches no tool the server offers`, `tools: rename "nothere" matches no tool the server offers`}
	if diff := cmp.Diff(want, gw.Health().Servers[0].Unmatched); diff != "" {
		t.Errorf("health unmatched (-want +got):\n%s", diff)
	}
	gw.Rebuild() // the same lists again: not logged again
	for _, w := range want {
		if n := strings.Count(logText(), "msg="+fmt.Sprintf("%q", w)+" server=s"); n != 1 {
			t.Errorf("the log has %q %d times, want once:\n%s", w, n, logText())
		}
	}
	if got := toolNames(t, result(t, newClient(t, srv).rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))); !slices.Equal(got, []string{"echo"}) {
		t.Errorf("tools/list = %v, want [echo]", got)
	}
	gen := gw.reg.Load()
	if rt, ok := gen.Tool("echo"); !ok || !rt.Pinned || len(gen.Pinned()) != 1 || !strings.Contains(string(gen.Pinned()[0]), `"name":"echo"`) {
		t.Errorf("echo is pinned: route %+v, Pinned %s", rt, gen.Pinned())
	}
}

// A rename that meets another server's name is resolved by §4.1: the
// first server in config order keeps the name, the later one is
// prefixed; a rename onto another tool of its own server takes the name
// and that tool is prefixed.
func TestToolsChoiceRenameCollides(t *testing.T) {
	echoPid := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"pid","inputSchema":{"type":"object"}}]`
	onlyEcho := `[{"name":"echo","inputSchema":{"type":"object"}}]`
	for _, tc := range []struct {
		name    string
		servers func(t *testing.T) []adapters.Server
		want    []string
		reaches map[string]string // exported → the server and tool: "b echo"
	}{
		{"later server renames onto an earlier's", func(t *testing.T) []adapters.Server {
			return []adapters.Server{stdioEntry(t, "a", onlyEcho, ``, "MCP_FAKE_NAME", "a"), stdioEntry(t, "b", echoPid, `{"rename":{"pid":"echo"},"deny":["echo"]}`, "MCP_FAKE_NAME", "b")}
		}, []string{"echo", "b_echo"}, map[string]string{"echo": "a echo", "b_echo": "b pid"}},
		{"earlier server renames onto a later's", func(t *testing.T) []adapters.Server {
			return []adapters.Server{stdioEntry(t, "a", echoPid, `{"rename":{"pid":"echo"},"deny":["echo"]}`, "MCP_FAKE_NAME", "a"), stdioEntry(t, "b", onlyEcho, ``, "MCP_FAKE_NAME", "b")}
		}, []string{"echo", "b_echo"}, map[string]string{"echo": "a pid", "b_echo": "b echo"}},
		{"onto the own server's other tool", func(t *testing.T) []adapters.Server {
			return []adapters.Server{stdioEntry(t, "a", echoPid, `{"rename":{"pid":"echo"}}`, "MCP_FAKE_NAME", "a")}
		}, []string{"a_echo", "echo"}, map[string]string{"echo": "a pid", "a_echo": "a echo"}},
		{"a prefixed name meets the server's own", func(t *testing.T) []adapters.Server {
			three := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"pid","inputSchema":{"type":"object"}},{"name":"a_echo","inputSchema":{"type":"object"}}]`
			return []adapters.Server{stdioEntry(t, "a", three, `{"rename":{"pid":"echo"}}`, "MCP_FAKE_NAME", "a")}
		}, []string{"a_echo", "echo"}, map[string]string{"echo": "a pid", "a_echo": "a echo"}},
		{"onto a name that a prefix would take", func(t *testing.T) []adapters.Server {
			three := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"pid","inputSchema":{"type":"object"}},{"name":"other","inputSchema":{"type":"object"}}]`
			return []adapters.Server{stdioEntry(t, "a", three, `{"rename":{"pid":"echo","other":"a_echo"}}`, "MCP_FAKE_NAME", "a")}
		}, []string{"a_a_echo", "echo", "a_echo"}, map[string]string{"echo": "a pid", "a_a_echo": "a echo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _, logText := startGatewayList(t, tc.servers(t), HTTPOptions{MaxSessions: 3})
			c := newClient(t, srv)
			if diff := cmp.Diff(tc.want, toolNames(t, result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)))); diff != "" {
				t.Errorf("tools/list (-want +got):\n%s", diff)
			}
			for name, dest := range tc.reaches {
				res := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"`+name+`","arguments":{"text":"hi"}}}`)))
				server, tool, _ := strings.Cut(dest, " ")
				if tool == "echo" && !strings.Contains(res, `"text":"hi from `+server+`"`) {
					t.Errorf("%s reached %s, want %s", name, res, dest)
				}
				if tool == "pid" && strings.Contains(res, "hi") {
					t.Errorf("%s reached echo (%s), want %s", name, res, dest)
				}
			}
			if strings.HasPrefix(tc.name, "onto") && !strings.Contains(logText(), `tool exported prefixed`) {
				t.Errorf("no log line for the prefixed tool:\n%s", logText())
			}
			if strings.HasPrefix(tc.name, "a prefixed") && !strings.Contains(logText(), `msg="tool dropped" server=a tool=a_echo reason="no unique exported name`) {
				t.Errorf("no log line for the dropped tool:\n%s", logText())
			}
			seen := map[string]bool{} // each naming line once, whatever the number of merges
			for _, line := range strings.Split(logText(), "\n") {
				_, l, ok := strings.Cut(line, "level=")
				if !ok || !strings.Contains(l, `msg="tool renamed"`) && !strings.Contains(l, "exported prefixed") && !strings.Contains(l, `msg="tool dropped"`) {
					continue
				}
				if seen[l] {
					t.Errorf("logged twice: %s", l)
				}
				seen[l] = true
			}
		})
	}
}

// A rename onto search_tools or call_tool, the gateway's own tools in
// search mode (SPEC §4.10), does not shadow them: the tool is exported
// prefixed, as a server's own tool of that name is (§4.1), in both
// modes, and the log and /health say what it became.
func TestToolsChoiceRenameOntoReserved(t *testing.T) {
	srv, gw, logText := startGatewayList(t, []adapters.Server{
		stdioEntry(t, "s", choiceTools, `{"rename":{"echo":"search_tools","pid":"call_tool"}}`),
	}, HTTPOptions{MaxSessions: 4})
	c := newClient(t, srv)
	if diff := cmp.Diff([]string{"s_search_tools", "s_call_tool", "progress", "log"}, toolNames(t, result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)))); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	}
	if res := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"s_search_tools","arguments":{"text":"hi"}}}`))); !strings.Contains(res, `"text":"hi"`) {
		t.Errorf("s_search_tools did not reach echo: %s", res)
	}
	if res := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"progress"}}}`))); !strings.Contains(res, `"structuredContent":{"tools":[`) {
		t.Errorf("search_tools is not the gateway's: %s", res)
	}
	search := searchSession(t, srv.URL+"/mcp?tools=search", `{}`)
	if diff := cmp.Diff(searchList, listNames(t, legacyList(t, search))); diff != "" {
		t.Errorf("search mode's list (-want +got):\n%s", diff)
	}
	want := []string{
		`tools: rename "echo" to "search_tools": the name is the gateway's own tool (SPEC §4.10); exported as "s_search_tools"`,
		`tools: rename "pid" to "call_tool": the name is the gateway's own tool (SPEC §4.10); exported as "s_call_tool"`,
	}
	if diff := cmp.Diff(want, gw.Health().Servers[0].Unmatched); diff != "" {
		t.Errorf("health (-want +got):\n%s", diff)
	}
	for _, w := range want {
		if !strings.Contains(logText(), "msg="+fmt.Sprintf("%q", w)+" server=s") {
			t.Errorf("the log has no %q:\n%s", w, logText())
		}
	}
}

// The call line and the metrics of a renamed tool name the exported name
// and, on the line, the server's own (SPEC §11.1, §11.2).
func TestRenamedToolInCallLogAndMetrics(t *testing.T) {
	srv, _, logText := startGatewayList(t, []adapters.Server{stdioEntry(t, "s", choiceTools, `{"rename":{"echo":"shout"}}`)},
		HTTPOptions{MaxSessions: 3, Telemetry: Telemetry{Metrics: telemetry.NewMetrics(), CallLog: testCallLog}})
	c := newClient(t, srv)
	result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout","arguments":{"text":"hi"}}}`))
	var lines []string
	testwait.For(t, 0, "the call line", func() bool {
		lines = callLines(logText())
		return len(lines) >= 1
	})
	if !strings.Contains(lines[0], "method=tools/call server=s name=shout tool=echo era=legacy") {
		t.Errorf("call line %q lacks name=shout tool=echo", lines[0])
	}
	fams := scrape(t, srv.URL)
	if got := counterSum(fams["mcp_gateway_tool_calls_total"], map[string]string{"gen_ai_tool_name": "shout", "outcome": "ok"}); got != 1 {
		t.Errorf("shout's ok calls = %v, want 1", got)
	}
}

// An entry's "prompts" chooses and renames prompts as "tools" does tools:
// for prompts/list, prompts/get and completion's ref/prompt.
func TestPromptsChoice(t *testing.T) {
	s := stdioEntry(t, "s", choiceTools, ``, "MCP_FAKE_PROMPTS", `[{"name":"greet"},{"name":"internal_x"},{"name":"other"}]`)
	var err error
	if s.Spec.Prompts, err = choice.Prompts(json.RawMessage(`{"deny":["internal_*"],"rename":{"greet":"hello"}}`)); err != nil {
		t.Fatal(err)
	}
	srv, gw, _ := startGatewayList(t, []adapters.Server{s}, HTTPOptions{MaxSessions: 3})
	c := newClient(t, srv)
	if got := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`))); got != `{"prompts":[{"name":"hello"},{"name":"other"}]}` {
		t.Errorf("prompts/list = %s", got)
	}
	if got := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"hello"}}`))); !strings.Contains(got, `{\"name\":\"greet\"}`) {
		t.Errorf("prompts/get hello reached the server as %s, want greet", got)
	}
	for _, gone := range []string{"greet", "internal_x"} {
		if e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"`+gone+`"}}`)); string(e["code"]) != "-32602" {
			t.Errorf("prompts/get %s: %v, want -32602", gone, e)
		}
		if e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":5,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"`+gone+`"},"argument":{"name":"a","value":""}}}`)); string(e["code"]) != "-32602" {
			t.Errorf("complete %s: %v, want -32602", gone, e)
		}
	}
	if h := gw.Health().Servers[0]; h.Prompts != 3 || h.PromptsExported != 2 || h.ToolsExported != 4 {
		t.Errorf("health: %+v", h)
	}
}

// The spans of a renamed tool's call (SPEC §11.3): the server span names
// what the client called, the client span what the server was asked.
func TestRenamedToolSpans(t *testing.T) {
	rec := &recordClient{}
	tracing := telemetry.NewTracing(rec, sdktrace.AlwaysSample(), nil, "test", telemetry.NewMetrics(), slog.New(slog.DiscardHandler), nil)
	go tracing.Run()
	srv, _, _ := startGatewayList(t, []adapters.Server{stdioEntry(t, "s", choiceTools, `{"rename":{"echo":"shout"}}`)},
		HTTPOptions{MaxSessions: 3, Telemetry: Telemetry{Tracer: tracing.Tracer()}})
	c := newClient(t, srv)
	result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"shout","arguments":{"text":"hi"},"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}`))
	t.Cleanup(func() { _ = tracing.Shutdown(context.Background()) })
	got := map[string]string{} // kind and name → gen_ai.tool.name
	testwait.For(t, 0, "the call's two spans", func() bool {
		_ = tracing.ForceFlush(context.Background())
		clear(got)
		for _, s := range rec.spans() {
			for _, a := range s.Attributes {
				if a.Key == "gen_ai.tool.name" {
					got[s.Kind.String()+" "+s.Name] = a.Value.GetStringValue()
				}
			}
		}
		return len(got) >= 2
	})
	want := map[string]string{"SPAN_KIND_SERVER tools/call shout": "shout", "SPAN_KIND_CLIENT tools/call echo": "echo"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("spans (-want +got):\n%s", diff)
	}
}

// recordClient is an OTLP client that keeps what it is sent.
type recordClient struct {
	mu  sync.Mutex
	got []*tracepb.ResourceSpans
}

func (*recordClient) Start(context.Context) error { return nil }
func (*recordClient) Stop(context.Context) error  { return nil }
func (r *recordClient) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range rs {
		// The queue reuses its messages, and writes spans as bytes of its
		// own: encoded and decoded again, they are read as spans.
		b, err := proto.Marshal(x)
		if err != nil {
			return err
		}
		var y tracepb.ResourceSpans
		if err := proto.Unmarshal(b, &y); err != nil {
			return err
		}
		r.got = append(r.got, &y)
	}
	return nil
}

func (r *recordClient) spans() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*tracepb.Span
	for _, rs := range r.got {
		for _, ss := range rs.ScopeSpans {
			out = append(out, ss.Spans...)
		}
	}
	return out
}
