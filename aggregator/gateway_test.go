package aggregator

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// The upstream's definition: keys out of alphabetical order, a big number,
// fields go-sdk does not know.
const oddTool = `{"name":"raw","title":"Raw","inputSchema":{"type":"object","required":["z"],"properties":{"z":{"type":"integer","maximum":9007199254740993},"a":{"type":"string"}}},"zzz-unknown":{"keep":[1,2.50,1e400]},"annotations":{"readOnlyHint":true},"_meta":{"x":1}}`

// The upstream's result: unknown content type, big integer, unknown field.
const oddResult = `{"content":[{"type":"hologram","frames":3},{"type":"text","text":"ok"}],"structuredContent":{"n":9007199254740993,"b":1.0},"isError":false,"_meta":{"trace":"t1"},"extra":{"z":1,"a":2}}`

func TestFidelityOfToolsAndResults(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{
		"odd": {"MCP_FAKE_TOOLS": "[" + oddTool + "]", "MCP_FAKE_RESULT": oddResult},
	})
	c := newClient(t, srv)
	list := result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if diff := cmp.Diff(`{"tools":[`+oddTool+`]}`, string(list)); diff != "" {
		t.Errorf("tools/list (-want +got):\n%s", diff)
	}
	res := result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"raw","arguments":{"z":1}}}`))
	if diff := cmp.Diff(oddResult, string(res)); diff != "" {
		t.Errorf("tools/call result (-want +got):\n%s", diff)
	}
}

func TestArgumentsReachServerUnchanged(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{
		"s": {"MCP_FAKE_TOOLS": `[{"name":"args","inputSchema":{"type":"object"}}]`},
	})
	c := newClient(t, srv)
	args := `{"z":9007199254740993,"a":[1.50,{"y":null,"b":true}]}`
	res := result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"args","arguments":`+args+`}}`))
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	_ = json.Unmarshal(res, &r)
	want := `{"name":"args","arguments":` + args + `}`
	if diff := cmp.Diff(want, r.Content[0].Text); diff != "" {
		t.Errorf("params seen upstream (-want +got):\n%s", diff)
	}
}

func TestCollisionNamesAndRouting(t *testing.T) {
	echo := func(name string) string {
		return fmt.Sprintf(`{"name":%q,"inputSchema":{"type":"object"}}`, name)
	}
	srv, _ := startGateway(t, map[string]map[string]string{
		"alpha": {"MCP_FAKE_NAME": "alpha", "MCP_FAKE_TOOLS": "[" + echo("echo") + "," + echo("fs.read") + "]"},
		"beta":  {"MCP_FAKE_NAME": "beta", "MCP_FAKE_TOOLS": "[" + echo("echo") + "]"},
		"gamma": {"MCP_FAKE_NAME": "gamma", "MCP_FAKE_TOOLS": "[" + echo("beta_echo") + "," + echo("echo") + "]"},
	})
	c := newClient(t, srv)
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	_ = json.Unmarshal(result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)), &list)
	var got []string
	for _, tl := range list.Tools {
		got = append(got, tl.Name)
	}
	// gamma's own beta_echo keeps its name (pass 1), so beta's echo must be
	// shortened with a hash; gamma's echo becomes gamma_echo.
	want := []string{"echo", "fs_read", got[2], "beta_echo", "gamma_echo"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("names (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(got[2], "beta_echo_") || len(got[2]) != len("beta_echo_")+8 {
		t.Errorf("beta's echo exported as %q, want beta_echo_<8 hex>", got[2])
	}
	// Each name reaches its own server under the original name: only the
	// tools named "echo" upstream answer with text; the others are unknown
	// to the fake and come back as its -32602 naming the original name.
	for name, want := range map[string]string{
		"echo": "hi from alpha", got[2]: "hi from beta", "gamma_echo": "hi from gamma",
		"fs_read": "unknown tool fs.read", "beta_echo": "unknown tool beta_echo",
	} {
		res := string(c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":%q,"arguments":{"text":"hi"}}}`, name)))
		if !strings.Contains(res, want) {
			t.Errorf("call %s = %s, want %q", name, res, want)
		}
	}
}

func TestUnknownToolIsInvalidParams(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope","arguments":{}}}`))
	if string(e["code"]) != "-32602" {
		t.Errorf("code = %s, want -32602", e["code"])
	}
}

func TestUpstreamErrorPassesThrough(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"fail","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fail"}}`))
	if string(e["code"]) != "-32042" || string(e["message"]) != `"the fake failed on purpose"` || string(e["data"]) != `{"why":"asked to","n":9007199254740993}` {
		t.Errorf("error = %s %s %s", e["code"], e["message"], e["data"])
	}
}

func TestSchemaRepair(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"noschema"},{"name":"notype","inputSchema":{"properties":{}}},{"name":"array","inputSchema":{"type":"array"}},{"name":"ok","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	got := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)))
	want := `{"tools":[{"name":"noschema","inputSchema":{"type":"object"}},{"name":"notype","inputSchema":{"type":"object","properties":{}}},{"name":"ok","inputSchema":{"type":"object"}}]}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("repaired list (-want +got):\n%s", diff)
	}
}

func TestProgressIsRelayedToTheCaller(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"progress","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	for round := range 10 {
		var notes []string
		c.rpcNotes(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"n":3},"_meta":{"progressToken":"tok-%d"}}}`, 10+round, round), &notes)
		if len(notes) != 3 {
			t.Fatalf("round %d: %d notifications, want 3: %v", round, len(notes), notes)
		}
		for i, n := range notes {
			want := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-%d","progress":%d,"total":3}}`, round, i+1)
			if n != want {
				t.Errorf("round %d: notification %d = %s, want %s", round, i, n, want)
			}
		}
	}
}

func TestAuth(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	for name, header := range map[string]string{"missing": "", "wrong": "Bearer nope", "raw token": testToken, "basic": "Basic " + testToken} {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{}`))
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %d %q, want 401 with WWW-Authenticate: Bearer", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		// An unauthenticated caller learns nothing of where the token is
		// (and the token file is a flag: a fixed path would be wrong).
		if !strings.Contains(string(body), `"code":-32001`) || strings.Contains(string(body), ".token") {
			t.Errorf("%s: body %s", name, body)
		}
	}
}

func TestHealthNeedsNoToken(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"a": nil, "b": nil})
	resp, err := http.Get(srv.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h Health
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &h); err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %d %s", resp.StatusCode, b)
	}
	if h.Status != "ok" || h.ServerCount != 2 || len(h.Servers) != 2 || h.ToolCount != 2 || h.Servers[0].State != "running" {
		t.Errorf("health = %s", b)
	}
	if strings.Contains(string(b), testToken) || strings.Contains(string(b), "MCP_FAKE") {
		t.Errorf("health reveals the token or env: %s", b)
	}
}

func TestOriginAndHost(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	for _, tc := range []struct {
		origin, host string
		want         int
	}{
		{"https://evil.example.com", "", 403},
		{"http://localhost:3000", "", 200},
		{"http://127.0.0.1", "", 200},
		{"", "50005-abc.sandbox.example.com", 200},
	} {
		req, _ := http.NewRequest("POST", srv.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Origin %q Host %q: %d, want %d", tc.origin, tc.host, resp.StatusCode, tc.want)
		}
	}
}

func TestUnknownPathIs404(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	resp, err := http.Get(srv.URL + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("status %d, want 404", resp.StatusCode)
	}
}

func TestSessionCap(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil}) // MaxSessions 3
	var clients []*rawClient
	for range 3 {
		clients = append(clients, newClient(t, srv))
	}
	c := &rawClient{t: t, url: srv.URL + "/mcp"}
	resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || !strings.Contains(string(b), `"error"`) {
		t.Fatalf("4th initialize: %d %s, want 503 with a JSON-RPC error", resp.StatusCode, b)
	}
	// Ending a session frees a slot.
	req, _ := http.NewRequest("DELETE", srv.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", clients[0].session)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	status := 0
	if !testwait.Until(5*time.Second, func() bool {
		resp := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		resp.Body.Close()
		status = resp.StatusCode
		return status == 200
	}) {
		t.Fatalf("initialize after DELETE: %d", status)
	}
}

func TestPingWhileCallsRun(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	var wg sync.WaitGroup
	start := time.Now()
	var firstCall atomic.Int64 // when the first call ended, ns since start
	started := make([]string, 16)
	for i := range started {
		started[i] = filepath.Join(t.TempDir(), "started")
		wg.Add(1)
		go func() {
			defer wg.Done()
			result(t, c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1500,"started":%s}}}`, 100+i, mustQuote(started[i]))))
			firstCall.CompareAndSwap(0, int64(time.Since(start)))
		}()
	}
	for _, f := range started {
		fakeserver.WaitFile(t, f) // every call runs at the server
	}
	result(t, c.rpc(`{"jsonrpc":"2.0","id":99,"method":"ping"}`))
	if ended := firstCall.Load(); ended != 0 {
		t.Errorf("ping answered only after a call ended (%v in)", time.Duration(ended))
	}
	wg.Wait()
	// 16 calls of 1.5 s one at a time would take 24 s.
	if d := time.Since(start); d > 12*time.Second {
		t.Errorf("16 concurrent calls took %v: they ran one at a time", d)
	}
}
