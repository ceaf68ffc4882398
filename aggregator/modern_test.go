package aggregator

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
)

// Tests of modern (MCP 2026-07-28) requests: SPEC §3.1, §3.10.

const modernMetaJSON = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// modernHeaders are the headers a modern request of method (and tool name)
// carries.
func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func TestModernDiscoverAndList(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	u := srv.URL + "/mcp"
	resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{`+modernMetaJSON+`}}`, modernHeaders("server/discover", ""))
	var d struct {
		Result struct {
			ResultType        string   `json:"resultType"`
			SupportedVersions []string `json:"supportedVersions"`
			TTL               *int64   `json:"ttlMs"`
			CacheScope        string   `json:"cacheScope"`
			Capabilities      struct {
				Tools *struct{ ListChanged bool } `json:"tools"`
			} `json:"capabilities"`
		} `json:"result"`
	}
	if resp.StatusCode != 200 || json.Unmarshal(b, &d) != nil || d.Result.ResultType != "complete" || d.Result.TTL == nil ||
		d.Result.CacheScope == "" || len(d.Result.SupportedVersions) == 0 || d.Result.SupportedVersions[0] != "2026-07-28" || d.Result.Capabilities.Tools == nil {
		t.Fatalf("server/discover: %d %s", resp.StatusCode, b)
	}
	if resp.Header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a modern request was given a session")
	}
	resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+modernMetaJSON+`}}`, modernHeaders("tools/list", ""))
	res := string(result(t, message(t, resp, b)))
	for _, want := range []string{`"name":"echo"`, `"resultType":"complete"`, `"ttlMs":`, `"cacheScope":"private"`} {
		if !strings.Contains(res, want) {
			t.Errorf("tools/list %s lacks %s", res, want)
		}
	}
}

func TestModernCall(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"progress","inputSchema":{"type":"object"}},{"name":"log","inputSchema":{"type":"object"}}]`}})
	u := srv.URL + "/mcp"
	resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},`+modernMetaJSON+`}}`,
		with(modernHeaders("tools/call", "echo"), "Mcp-Session-Id", "ignored"))
	want := `{"jsonrpc":"2.0","id":3,"result":{"resultType":"complete","content":[{"type":"text","text":"hi"}]}}`
	if got := string(message(t, resp, b)); resp.StatusCode != 200 || got != want {
		t.Errorf("tools/call: %d %s, want %s", resp.StatusCode, got, want)
	}
	// Progress travels on the call's own SSE response.
	resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"n":2},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		modernHeaders("tools/call", "progress"))
	if n := strings.Count(string(b), `"method":"notifications/progress","params":{"progressToken":"p"`); n != 2 || !strings.Contains(string(b), `"done"`) {
		t.Errorf("progress call: %d progress notifications in %s", n, b)
	}
	// The log level comes from the request's _meta.
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"%s"}`
	for level, wantLog := range map[string]bool{"debug": true, "error": false} {
		resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"log",`+strings.Replace(meta, "%s", level, 1)+`}}`, modernHeaders("tools/call", "log"))
		if got := strings.Contains(string(b), `"notifications/message"`); got != wantLog {
			t.Errorf("logLevel %s: log message relayed %v, want %v: %s", level, got, wantLog, b)
		}
	}
}

// A modern call's progressToken is checked in the one scan of its params
// (validateModern), not again on the way upstream: what it refuses must
// still be refused, for a client that can be asked (a bridged call) and
// one that cannot (inline), and a good token still works.
func TestModernProgressTokenRules(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"progress","inputSchema":{"type":"object"}}]`}})
	u := srv.URL + "/mcp"
	meta := func(caps, extra string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + extra + `}`
	}
	for _, caps := range []string{`{}`, `{"elicitation":{}}`} {
		for _, bad := range []string{
			meta(caps, `,"progressToken":null`),
			meta(caps, `,"progressToken":{"x":1}`),
			meta(caps, `,"progressToken":"a","progressToken":1`),
			meta(caps, `,"progressToken":"a"`) + `,` + meta(caps, `,"progressToken":1`),
			// Escaped keys are the same key (TestProgressTokenCannotBeSmuggled).
			meta(caps, `,"progress\u0054oken":null`),
			meta(caps, `,"progressToken":"a","progress\u0054oken":1`),
		} {
			resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},`+bad+`}}`,
				modernHeaders("tools/call", "progress"))
			if msg := string(message(t, resp, b)); !strings.Contains(msg, `"code":-32602`) || strings.Contains(msg, `"result"`) {
				t.Errorf("caps %s, %s: %s, want -32602", caps, bad, msg)
			}
		}
		resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},`+meta(caps, `,"progressToken":"ok"`)+`}}`,
			modernHeaders("tools/call", "progress"))
		if !strings.Contains(string(b), `"progressToken":"ok"`) || !strings.Contains(string(message(t, resp, b)), `"result"`) {
			t.Errorf("caps %s, a good token: %s", caps, b)
		}
		// Under an escaped key, swapped all the same: the scan that lets
		// the supervisor skip its own search (rpc.TokenFree) saw it.
		resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},`+meta(caps, `,"progress\u0054oken":"esc"`)+`}}`,
			modernHeaders("tools/call", "progress"))
		if !strings.Contains(string(b), `"progressToken":"esc"`) || !strings.Contains(string(message(t, resp, b)), `"result"`) {
			t.Errorf("caps %s, a good token under an escaped key: %s", caps, b)
		}
	}
}

func TestModernHeaderAndMetaRules(t *testing.T) {
	tools := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"wéird","inputSchema":{"type":"object"}},` +
		`{"name":"sql","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"},"q":{"type":"string"}}}}]`
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": tools}})
	u := srv.URL + "/mcp"
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + modernMetaJSON + `}}`
	}
	b64 := func(s string) string { return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=" }
	for _, tc := range []struct {
		what       string
		body       string
		hdr        map[string]string
		status     int
		code       int
		wantResult bool
	}{
		{"plain", call("echo", `{"text":"x"}`), modernHeaders("tools/call", "echo"), 200, 0, true},
		{"no Mcp-Method", call("echo", `{}`), with(modernHeaders("tools/call", "echo"), "Mcp-Method", unset), 400, -32020, false},
		{"wrong Mcp-Method", call("echo", `{}`), modernHeaders("tools/list", "echo"), 400, -32020, false},
		{"no Mcp-Name", call("echo", `{}`), modernHeaders("tools/call", ""), 400, -32020, false},
		{"wrong Mcp-Name", call("echo", `{}`), modernHeaders("tools/call", "other"), 400, -32020, false},
		{"Base64 Mcp-Name", call("wéird", `{}`), modernHeaders("tools/call", b64("wéird")), 200, 0, false},
		{"version header differs from _meta", call("echo", `{}`), with(modernHeaders("tools/call", "echo"), "Mcp-Protocol-Version", "2025-11-25"), 400, -32020, false},
		{"unsupported version", call("echo", `{}`), with(modernHeaders("tools/call", "echo"), "Mcp-Protocol-Version", "2031-01-01"), 400, -32022, false},
		{"no clientCapabilities", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, modernHeaders("tools/list", ""), 400, -32602, false},
		{"no _meta", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, modernHeaders("tools/list", ""), 400, -32602, false},
		{"params an array", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}`, modernHeaders("tools/list", ""), 400, -32602, false},
		{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"resources/subscribe","params":{"uri":"x://y",` + modernMetaJSON + `}}`, modernHeaders("resources/subscribe", ""), 404, -32601, false},
		{"param header missing", call("sql", `{"region":"us-west1"}`), modernHeaders("tools/call", "sql"), 400, -32020, false},
		{"param header differs", call("sql", `{"region":"us-west1"}`), with(modernHeaders("tools/call", "sql"), "Mcp-Param-Region", "eu"), 400, -32020, false},
		{"param header matches", call("sql", `{"region":"us-west1","n":42}`), with(modernHeaders("tools/call", "sql"), "Mcp-Param-Region", "us-west1", "Mcp-Param-N", "42.0"), 200, 0, false},
		{"param header Base64", call("sql", `{"region":"世界"}`), with(modernHeaders("tools/call", "sql"), "Mcp-Param-Region", b64("世界")), 200, 0, false},
		{"param absent, no header needed", call("sql", `{"q":"x","region":null}`), modernHeaders("tools/call", "sql"), 200, 0, false},
	} {
		resp, b := send(t, "POST", u, tc.body, tc.hdr)
		if tc.status != 200 {
			wantRPCError(t, tc.what, resp, b, tc.status, tc.code)
			if tc.what == "params an array" && !strings.Contains(string(b), "params must be an object") {
				t.Errorf("%s: %s, want it said", tc.what, b)
			}
			continue
		}
		msg := message(t, resp, b)
		if resp.StatusCode != 200 || (tc.wantResult && !strings.Contains(string(result(t, msg)), `"x"`)) {
			t.Errorf("%s: %d %s", tc.what, resp.StatusCode, b)
		}
	}
	// GET and DELETE are not part of 2026-07-28: 405.
	for _, m := range []string{"GET", "DELETE"} {
		resp, b := send(t, m, u, "", map[string]string{"Mcp-Protocol-Version": "2026-07-28"})
		wantRPCError(t, m+" with a modern version", resp, b, 405, 0)
	}
}

// Closing a modern call's response stream cancels it upstream (MCP
// 2026-07-28 Cancellation).
func TestModernStreamCloseCancelsTheCall(t *testing.T) {
	// Both paths: a client that cannot be asked (callInline) and one that
	// can (callParkable, attached until the server asks).
	for _, caps := range []string{`{}`, `{"elicitation":{}}`} {
		t.Run(caps, func(t *testing.T) {
			cancelFile := t.TempDir() + "/cancelled"
			srv, _ := startGateway(t, map[string]map[string]string{"s": {
				"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`, "MCP_FAKE_CANCEL_FILE": cancelFile}})
			started := t.TempDir() + "/started"
			meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
			closeModernCall(t, srv.URL+"/mcp", "sleep", started,
				`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000,"started":"`+started+`"},`+meta+`}}`)
			fakeserver.WaitFile(t, cancelFile) // the upstream got notifications/cancelled
		})
	}
}

// closeModernCall posts body, a modern tools/call whose Mcp-Name header
// is name, waits until the server has written the file started, then
// closes the call's stream and waits for the POST to return.
func closeModernCall(t *testing.T, url, name, started, body string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	for k, v := range modernHeaders("tools/call", name) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", acceptBoth)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	fakeserver.WaitFile(t, started)
	cancel()
	<-done
}

// At shutdown (CancelCalls, after the drain) a modern call still running
// gets a JSON-RPC error that says why, on both paths (callInline and an
// attached callParkable), and its server gets notifications/cancelled.
func TestModernCallsGetTheShutdownError(t *testing.T) {
	for _, caps := range []string{`{}`, `{"elicitation":{}}`} {
		t.Run(caps, func(t *testing.T) {
			cancelFile := t.TempDir() + "/cancelled"
			srv, gw := startGateway(t, map[string]map[string]string{"s": {
				"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`, "MCP_FAKE_CANCEL_FILE": cancelFile}})
			started := t.TempDir() + "/started"
			meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
			got := make(chan string, 1)
			go func() {
				resp, b := send(t, "POST", srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000,"started":"`+started+`"},`+meta+`}}`,
					modernHeaders("tools/call", "sleep"))
				got <- string(message(t, resp, b))
			}()
			fakeserver.WaitFile(t, started)
			gw.CancelCalls("the gateway is shutting down")
			select {
			case msg := <-got:
				if !strings.Contains(msg, `"error"`) || !strings.Contains(msg, "the gateway is shutting down") {
					t.Errorf("response %s, want the shutdown error", msg)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no response after CancelCalls")
			}
			fakeserver.WaitFile(t, cancelFile)
		})
	}
}

func TestModernListenGetsListChanged(t *testing.T) {
	srv, gw := startGateway(t, map[string]map[string]string{"a": {
		"MCP_FAKE_TOOLS":  `[{"name":"change","inputSchema":{"type":"object"}}]`,
		"MCP_FAKE_TOOLS2": `[{"name":"change","inputSchema":{"type":"object"}},{"name":"added","inputSchema":{"type":"object"}}]`}})
	stream := openListen(t, srv.URL+"/mcp")
	ack := next(t, stream, "acknowledgement")
	if want := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"},"notifications":{"toolsListChanged":true}}}`; ack != want {
		t.Errorf("ack %s, want %s", ack, want)
	}
	// A server's own list change reaches the stream, tagged.
	resp2, b := send(t, "POST", srv.URL+"/mcp", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"change",`+modernMetaJSON+`}}`, modernHeaders("tools/call", "change"))
	if resp2.StatusCode != 200 {
		t.Fatalf("change: %d %s", resp2.StatusCode, b)
	}
	if ev := next(t, stream, "list_changed"); ev != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub-1"}}}` {
		t.Errorf("got %s", ev)
	}
	// At shutdown the subscription ends gracefully, with its response.
	gw.CancelCalls("shutting down")
	if ev := next(t, stream, "closing response"); !strings.Contains(ev, `"id":"sub-1","result":{"resultType":"complete"`) {
		t.Errorf("closing message %s", ev)
	}
}

// A listen stream outlives a restart of a server: the restarted server's
// list change still reaches it.
func TestModernListenAcrossARestart(t *testing.T) {
	tools := `[{"name":"change","inputSchema":{"type":"object"}},{"name":"crash","inputSchema":{"type":"object"}}]`
	srv, _ := startGateway(t, map[string]map[string]string{"a": {"MCP_FAKE_TOOLS": tools,
		"MCP_FAKE_TOOLS2": `[{"name":"change","inputSchema":{"type":"object"}},{"name":"crash","inputSchema":{"type":"object"}},{"name":"added","inputSchema":{"type":"object"}}]`}})
	u := srv.URL + "/mcp"
	stream := openListen(t, u)
	next(t, stream, "acknowledgement")
	call := func(id int, name string) {
		send(t, "POST", u, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"ms":0},%s}}`, id, name, modernMetaJSON),
			modernHeaders("tools/call", name))
	}
	call(1, "crash") // the server dies; the next call restarts it
	call(2, "change")
	if ev := next(t, stream, "list_changed after the restart"); !strings.Contains(ev, "notifications/tools/list_changed") {
		t.Errorf("got %s", ev)
	}
}

// openListen opens a subscriptions/listen stream for tools list changes.
func openListen(t *testing.T, u string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "POST", u, strings.NewReader(
		`{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMetaJSON+`}}`))
	for k, v := range modernHeaders("subscriptions/listen", "") {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", acceptBoth)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("subscriptions/listen: %v %v", resp, err)
	}
	return events(t, resp)
}
