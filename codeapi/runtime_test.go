package codeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
)

// Tests of the runtimes (SPEC §12.3) against a fake gateway: an HTTP
// endpoint that checks each request as the gateway's modern front does
// (headers that match the body, the _meta it requires, the token) and
// answers the hostile fixture's tools in JSON or SSE.

const fakeToken = "fake-token-1"

type fakeGateway struct {
	*httptest.Server
	mu       sync.Mutex
	problems []string
	calls    int
}

func (f *fakeGateway) problem(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
}

func startFake(t *testing.T) *fakeGateway {
	f := &fakeGateway{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(func() {
		f.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, p := range f.problems {
			t.Errorf("fake gateway: %s", p)
		}
	})
	return f
}

func (f *fakeGateway) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+fakeToken {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string                     `json:"name"`
			Arguments map[string]json.RawMessage `json:"arguments"`
			Meta      map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		f.problem("body %s: %v", body, err)
		return
	}
	name, _ := mcpheader.Decode(r.Header.Get("Mcp-Name"), true)
	switch {
	case r.URL.Path != "/mcp" || r.Method != http.MethodPost:
		f.problem("%s %s", r.Method, r.URL.Path)
	case r.Header.Get("MCP-Protocol-Version") != "2026-07-28" || string(req.Params.Meta["io.modelcontextprotocol/protocolVersion"]) != `"2026-07-28"`:
		f.problem("version header %q, _meta %s", r.Header.Get("MCP-Protocol-Version"), req.Params.Meta["io.modelcontextprotocol/protocolVersion"])
	case !strings.HasPrefix(string(req.Params.Meta["io.modelcontextprotocol/clientCapabilities"]), "{"):
		f.problem("no clientCapabilities in %s", body)
	case r.Header.Get("Mcp-Method") != req.Method || req.Method != "tools/call" || name != req.Params.Name:
		f.problem("Mcp-Method %q, Mcp-Name %q for %s %q", r.Header.Get("Mcp-Method"), name, req.Method, req.Params.Name)
	case !strings.Contains(r.Header.Get("Accept"), "application/json") || !strings.Contains(r.Header.Get("Accept"), "text/event-stream"):
		f.problem("Accept %q", r.Header.Get("Accept"))
	}
	id := string(req.ID)
	result := func(res string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, res)
	}
	text := func(s string) string {
		b, _ := json.Marshal(s)
		return `{"resultType":"complete","content":[{"type":"text","text":` + string(b) + `}]}`
	}
	switch req.Params.Name {
	case "class":
		args, _ := json.Marshal(req.Params.Arguments)
		result(text(string(args)))
	case "structured":
		result(`{"content":[{"type":"text","text":"{}"}],"structuredContent":{"n":` + string(req.Params.Arguments["n"]) + `,"list":["a"]}}`)
	case "fail":
		result(`{"content":[{"type":"text","text":"it failed on purpose"}],"isError":true}`)
	case "big":
		var n int
		_ = json.Unmarshal(req.Params.Arguments["bytes"], &n)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
		w.(http.Flusher).Flush()
		fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", id, text(strings.Repeat("x", n)))
	case "noschema": // SSE with CRLF, a comment, and data split over two lines
		w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
		fmt.Fprintf(w, ": keep-alive\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":%s,\"result\":%s}\r\n\r\n", id, text("over SSE"))
	case "ask":
		result(`{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"name?"}}},"requestState":"s"}`)
	case "9lives":
		v, err := mcpheader.Decode(r.Header.Get("Mcp-Param-Region"), true)
		if err != nil {
			f.problem("Mcp-Param-Region: %v", err)
		}
		result(text(v))
	case "empty":
		result(`{"content":[{"type":"text","text":"a"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}`)
	default:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Unknown tool: %s","data":{"n":1}}}`, id, req.Params.Name)
	}
}

// hostileTree writes the hostile fixture's tree for a gateway at url.
func hostileTree(t *testing.T, url string) (dir, tokenFile string) {
	t.Helper()
	base := t.TempDir()
	dir, tokenFile = filepath.Join(base, "code"), filepath.Join(base, "token")
	if err := os.WriteFile(tokenFile, []byte(fakeToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, Input{Servers: fixture(t, "hostile.json"), URL: url, TokenFile: tokenFile}); err != nil {
		t.Fatal(err)
	}
	return dir, tokenFile
}

// snippet runs a user's script (python3 or node) with the code dir as its
// argument and env added, and decodes the JSON it prints.
func snippet(t *testing.T, lang, script, dir string, env ...string) map[string]any {
	t.Helper()
	var cmd *exec.Cmd
	p := filepath.Join(t.TempDir(), "snippet")
	switch lang {
	case "python":
		p += ".py"
		cmd = exec.Command("python3", "-B", p, dir)
	default:
		p += ".mjs"
		cmd = exec.Command("node", p, dir)
	}
	if err := os.WriteFile(p, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), env...)
	out := run(t, cmd)
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%s snippet printed %q: %v", lang, out, err)
	}
	return got
}

const pySnippet = `import json, sys
sys.path.insert(0, sys.argv[1] + "/python")
from mcp_tools import hostile, ToolError, InputRequiredError
out = {}
out["class"] = json.loads(hostile.class_(from_="a", my_arg="b", await_=3, None_=True, __="jp", _mcp_extra_="e", default_=None, **{"extra-key": 1}))
out["structured"] = hostile.structured(n=7)
try:
    hostile.fail()
    out["fail"] = "no error"
except ToolError as e:
    out["fail"] = {"message": e.message, "code": e.code, "isError": e.result["isError"]}
out["big"] = len(hostile.big(bytes=3 * 1024 * 1024))
out["sse"] = hostile.noschema()
try:
    hostile.ask()
    out["ask"] = "no error"
except InputRequiredError as e:
    out["ask"] = str(e)
out["header"] = hostile._9lives(x_mcp=" ünï ")
out["content"] = hostile.empty()
try:
    hostile.fs_read(path="x")
except ToolError as e:
    out["rpc"] = {"message": e.message, "code": e.code, "data": e.data}
print(json.dumps(out))
`

const jsSnippet = `const dir = process.argv[2];
const h = await import(dir + "/js/hostile/index.mjs");
const out = {};
out.class = JSON.parse(await h.class_({ from: "a", "my-arg": "b", await: 3, None: true, "日本": "jp", _mcp_extra: "e", "extra-key": 1 }));
out.structured = await h.structured({ n: 7 });
try { await h.fail(); out.fail = "no error"; } catch (e) { out.fail = { message: e.toolMessage, code: e.code ?? null, isError: e.result.isError, tool: e instanceof h.ToolError }; }
out.big = (await h.big({ bytes: 3 * 1024 * 1024 })).length;
out.sse = await h.noschema();
try { await h.ask(); out.ask = "no error"; } catch (e) { out.ask = e instanceof h.InputRequiredError ? e.message : "wrong error " + e; }
out.header = await h._9lives({ "x-mcp": " ünï " });
out.content = await h.empty();
try { await h.fs_read({ path: "x" }); } catch (e) { out.rpc = { message: e.toolMessage, code: e.code, data: e.data }; }
console.log(JSON.stringify(out));
`

func TestRuntimes(t *testing.T) {
	need(t, "python3", "node")
	f := startFake(t)
	dir, _ := hostileTree(t, f.URL+"/mcp")
	for _, lang := range []string{"python", "node"} {
		t.Run(lang, func(t *testing.T) {
			script := pySnippet
			if lang == "node" {
				script = jsSnippet
			}
			got := snippet(t, lang, script, dir) // the token from the file
			askMsg := "tool ask asked for input (elicitation/create), which code cannot answer: call it through an MCP client"
			want := map[string]any{
				"class":      map[string]any{"from": "a", "my-arg": "b", "await": 3.0, "None": true, "日本": "jp", "_mcp_extra": "e", "extra-key": 1.0},
				"structured": map[string]any{"n": 7.0, "list": []any{"a"}},
				"fail":       map[string]any{"message": "it failed on purpose", "code": nil, "isError": true},
				"big":        3.0 * 1024 * 1024,
				"sse":        "over SSE",
				"ask":        askMsg,
				"header":     " ünï ",
				"content":    []any{map[string]any{"type": "text", "text": "a"}, map[string]any{"type": "image", "data": "AAAA", "mimeType": "image/png"}},
				"rpc":        map[string]any{"message": "Unknown tool: fs.read", "code": -32602.0, "data": map[string]any{"n": 1.0}},
			}
			if lang == "node" {
				want["fail"].(map[string]any)["tool"] = true
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s snippet (-want +got):\n%s", lang, diff)
			}
		})
	}
}

// TestRuntimeToken: the token is read at each call, from MCP_GATEWAY_TOKEN
// first, else the token file; a refused one is a ToolError.
func TestRuntimeToken(t *testing.T) {
	need(t, "python3", "node")
	f := startFake(t)
	dir, tokenFile := hostileTree(t, f.URL+"/mcp")
	py := `import json, sys
sys.path.insert(0, sys.argv[1] + "/python")
from mcp_tools import hostile, ToolError
out = {}
try:
    out["first"] = hostile.noschema()
except ToolError as e:
    out["first"] = str(e)
open(sys.argv[1] + "/../token", "w").write(sys.argv[2] if len(sys.argv) > 2 else "` + fakeToken + `")
out["second"] = hostile.noschema()
print(json.dumps(out))
`
	js := `const h = await import(process.argv[2] + "/js/hostile/index.mjs");
const fs = await import("node:fs");
const out = {};
try { out.first = await h.noschema(); } catch (e) { out.first = e.message; }
fs.writeFileSync(process.argv[2] + "/../token", "` + fakeToken + `");
out.second = await h.noschema();
console.log(JSON.stringify(out));
`
	refused := "the gateway refused the token (HTTP 401): set MCP_GATEWAY_TOKEN to the gateway's token"
	for lang, script := range map[string]string{"python": py, "node": js} {
		// A wrong token in the file, then the right one: read at each call.
		if err := os.WriteFile(tokenFile, []byte("wrong"), 0o600); err != nil {
			t.Fatal(err)
		}
		got := snippet(t, lang, script, dir)
		if want := map[string]any{"first": refused, "second": "over SSE"}; !cmp.Equal(want, got) {
			t.Errorf("%s: token file: got %v, want %v", lang, got, want)
		}
		// The environment wins over the file.
		if err := os.WriteFile(tokenFile, []byte("wrong"), 0o600); err != nil {
			t.Fatal(err)
		}
		got = snippet(t, lang, script, dir, "MCP_GATEWAY_TOKEN="+fakeToken)
		if got["first"] != "over SSE" {
			t.Errorf("%s: with MCP_GATEWAY_TOKEN: %v", lang, got)
		}
	}
	// A token with a line break in it is not sent: a ToolError that says
	// so without the token (it reaches the model), not Python's
	// ValueError, whose message held the header.
	broken := map[string]string{
		"python": "import json, sys\nsys.path.insert(0, sys.argv[1] + \"/python\")\nfrom mcp_tools import hostile, ToolError\n" +
			"try:\n    hostile.noschema()\n    print(json.dumps({\"err\": \"no error\"}))\nexcept ToolError as e:\n    print(json.dumps({\"err\": \"ToolError\", \"text\": str(e)}))\n",
		"node": "const h = await import(process.argv[2] + \"/js/hostile/index.mjs\");\n" +
			"try { await h.noschema(); console.log(JSON.stringify({ err: \"no error\" })); } catch (e) { console.log(JSON.stringify({ err: e instanceof h.ToolError ? \"ToolError\" : String(e), text: e.message })); }\n",
	}
	for lang, script := range broken {
		got := snippet(t, lang, script, dir, "MCP_GATEWAY_TOKEN=a\r\nX-Injected: 1")
		if text, _ := got["text"].(string); got["err"] != "ToolError" || strings.Contains(text, "Injected") || !strings.Contains(text, "line break") {
			t.Errorf("%s: a token with a line break: %v, want a ToolError without the token", lang, got)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "gateway.json"))
	if strings.Contains(string(b), fakeToken) {
		t.Errorf("gateway.json holds the token: %s", b)
	}
}

// An x-mcp-header name that no header can have (a server's schema says
// "a\r\nb") fails the call with a ToolError naming it, before anything is
// sent: Python's http.client raised ValueError.
func TestRuntimeRefusesABadHeaderName(t *testing.T) {
	need(t, "python3", "node")
	f := startFake(t)
	dir := filepath.Join(t.TempDir(), "code")
	def := `{"name":"split","inputSchema":{"type":"object","properties":{"q":{"type":"string","x-mcp-header":"a\r\nb"}}}}`
	in := Input{URL: f.URL + "/mcp", TokenFile: "/nonexistent", Servers: []Server{{Name: "bad", Tools: []Tool{{Name: "split", Definition: []byte(def)}}}}}
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	scripts := map[string]string{
		"python": "import json, sys\nsys.path.insert(0, sys.argv[1] + \"/python\")\nfrom mcp_tools import bad, ToolError\n" +
			"try:\n    bad.split(q=\"x\")\n    print(json.dumps({\"err\": \"no error\"}))\nexcept ToolError as e:\n    print(json.dumps({\"err\": \"ToolError\", \"text\": str(e)}))\n",
		"node": "const b = await import(process.argv[2] + \"/js/bad/index.mjs\");\n" +
			"try { await b.split({ q: \"x\" }); console.log(JSON.stringify({ err: \"no error\" })); } catch (e) { console.log(JSON.stringify({ err: e instanceof b.ToolError ? \"ToolError\" : String(e), text: e.message })); }\n",
	}
	for lang, script := range scripts {
		got := snippet(t, lang, script, dir, "MCP_GATEWAY_TOKEN="+fakeToken)
		if text, _ := got["text"].(string); got["err"] != "ToolError" || !strings.Contains(text, "not an HTTP header name") {
			t.Errorf("%s: %v, want a ToolError naming the header", lang, got)
		}
	}
}
