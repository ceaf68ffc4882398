package aggregator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Byte-for-byte tests of the relay (issue 12, SPEC §4.3, §4.4): what the
// client sends reaches the server as it was sent, and what the server
// sends reaches the client as it was sent, but for the tool's name and the
// progress token, which come back as the client wrote them.

// upstreamText returns the text of a tools/call result's first content
// item: the fake's "args" and "elicit" tools answer with what they got.
func upstreamText(t *testing.T, msg []byte) string {
	t.Helper()
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(result(t, msg), &r); err != nil || len(r.Content) != 1 {
		t.Fatalf("result %s: %v", msg, err)
	}
	return r.Content[0].Text
}

func TestParamsReachServerByteForByte(t *testing.T) {
	// Marked for tasks, so that its "task" params are the server's (a tool
	// not marked gets a gateway-made task instead: tasks.go).
	args := `{"name":"args","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}`
	srv, _ := startGateway(t, map[string]map[string]string{
		"a": {"MCP_FAKE_TOOLS": "[" + args + "]"},
		"b": {"MCP_FAKE_TOOLS": "[" + args + "]"}, // exported as b_args
	})
	c := newClient(t, srv)
	rest := `"arguments":{"z":9007199254740993,"a":[1.50,{"y":null}]},` +
		`"_meta":{"zeta":1,"alpha":9007199254740993,"nested":{"b":2,"a":1}},` +
		`"task":{"ttl":60000},"extraField":{"z":[1,2.50e3],"a":"\u00e9\n"}`
	for exported, want := range map[string]string{
		"args":   `{"name":"args",` + rest + `}`,
		"b_args": `{"name":"args",` + rest + `}`, // only the name changes
	} {
		got := upstreamText(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"`+exported+`",`+rest+`}}`))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("params of %s seen upstream (-want +got):\n%s", exported, diff)
		}
	}
}

func TestRequestIDsComeBackAsSent(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	for _, id := range []string{"9007199254740993", "-9007199254740993", `"1"`, "0", `"\u00e9"`, "123456789012345678901234567890"} {
		for _, call := range []string{
			`"method":"ping"`,
			`"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}`,
		} {
			got := string(c.rpc(`{"jsonrpc":"2.0","id":` + id + `,` + call + `}`))
			if want := `{"jsonrpc":"2.0","id":` + id + `,"result":`; !strings.HasPrefix(got, want) {
				t.Errorf("id %s, %s: answered %s, want it to start %s", id, call, got, want)
			}
		}
	}
}

func TestProgressTokenComesBackAsSent(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"progress","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	for i, tok := range []string{`"tok\u00e9 \"q\""`, "9007199254740993", "-7", "1.5", `""`, "0"} {
		var notes []string
		c.rpcNotes(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},"_meta":{"progressToken":%s}}}`, 10+i, tok), &notes)
		want := []string{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + tok + `,"progress":1,"total":1}}`}
		if diff := cmp.Diff(want, notes); diff != "" {
			t.Errorf("progress for token %s (-want +got):\n%s", tok, diff)
		}
	}
}

func TestClientAnswerReachesServerAsWritten(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"elicit","inputSchema":{"type":"object"}}]`}})
	c := &rawClient{t: t, url: srv.URL + "/mcp"}
	c.rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	ch := events(t, c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"elicit"}}`))
	req := next(t, ch, "elicitation request")
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(req), &m); err != nil || m.Method != "elicitation/create" {
		t.Fatalf("got %s, want an elicitation/create request", req)
	}
	wantParams := `{"message":"pick n","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`
	if diff := cmp.Diff(wantParams, string(m.Params)); diff != "" {
		t.Errorf("elicitation params (-want +got):\n%s", diff)
	}
	answer := `{"action":"accept","content":{"n":9007199254740993,"zz":1,"aa":2},"_meta":{"z":1,"a":2},"vendorField":true}`
	resp := c.post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + answer + `}`)
	resp.Body.Close()
	final := next(t, ch, "call result")
	if diff := cmp.Diff(answer, upstreamText(t, []byte(final))); diff != "" {
		t.Errorf("the answer as the server got it (-want +got):\n%s", diff)
	}
}

func TestNotificationParamsReachClientAsSent(t *testing.T) {
	note := `{"level":"warning","zlogger":"x","data":{"n":9007199254740993,"b":1.50,"a":[{}]},"vendor":true}`
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"note","inputSchema":{"type":"object"}}]`, "MCP_FAKE_NOTE": note}})
	c := newClient(t, srv)
	var notes []string
	c.rpcNotes(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"note"}}`, &notes)
	want := []string{`{"jsonrpc":"2.0","method":"notifications/message","params":` + note + `}`}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("notification (-want +got):\n%s", diff)
	}
}

// A progress token under an escaped or repeated key cannot slip past the
// swap: the server would report progress under the client's own number,
// which the gateway would take for another call's id (found by an
// adversarial review).
func TestProgressTokenCannotBeSmuggled(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"progress","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	// Escaped: swapped like the plain key, so it comes back as sent.
	var notes []string
	c.rpcNotes(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},"_meta":{"progress\u0054oken":"mine"}}}`, &notes)
	if len(notes) != 1 || !strings.Contains(notes[0], `"progressToken":"mine"`) {
		t.Errorf("escaped key: notifications %v, want one carrying the client's own token", notes)
	}
	// Repeated: refused.
	for _, params := range []string{
		`"_meta":{"progressToken":"a","progressToken":1}`,
		`"_meta":{"progressToken":"a"},"_meta":{"progressToken":1}`,
	} {
		msg := c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},` + params + `}}`)
		if e := rpcError(t, msg); string(e["code"]) != "-32602" {
			t.Errorf("%s: %s, want -32602", params, msg)
		}
	}
}

// A key that is _meta, progressToken or a tool call's name but for case
// is refused: a server that decodes with Go's encoding/json (the fake
// server here, go-sdk before v1.3.1) reads it as that key, and takes the
// last it meets. So it would read a progressToken the gateway never
// swapped, and report progress under a number the gateway could take for
// another client's call; or run a tool other than the one the gateway
// routed (and the entry allowed). Found by a hostile review.
func TestKeysThatFoldAreRefused(t *testing.T) {
	tools := `[{"name":"args","inputSchema":{"type":"object"}},{"name":"progress","inputSchema":{"type":"object"}}]`
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": tools}})
	c := newClient(t, srv)
	u := srv.URL + "/mcp"
	modernMeta := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`
	for _, tc := range []struct{ what, params string }{
		{"_META", `"_META":{"progressToken":424242}`},
		{"PROGRESSTOKEN", `"_meta":{"PROGRESSTOKEN":424242}`},
		{"ſ for s", `"_meta":{"progre\u017f\u017fToken":424242}`},
		{"a second _meta that folds", `"_meta":{"progressToken":"mine"},"_Meta":{"progressToken":424242}`},
		{"a name that folds", `"NAME":"progress"`},
	} {
		msg := c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"args","arguments":{},` + tc.params + `}}`)
		if e := rpcError(t, msg); string(e["code"]) != "-32602" || strings.Contains(string(msg), "424242") {
			t.Errorf("legacy, %s: %s, want -32602", tc.what, msg)
		}
		// A modern request carries _meta of its own: the key that folds
		// comes beside it, or inside it.
		params := strings.Replace(tc.params, `"_meta":{`, `"_meta":{`+modernMeta+`,`, 1)
		if !strings.Contains(params, modernMeta) {
			params += `,"_meta":{` + modernMeta + `}`
		}
		resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"args","arguments":{},`+params+`}}`,
			modernHeaders("tools/call", "args"))
		if msg := string(message(t, resp, b)); !strings.Contains(msg, `"code":-32602`) || strings.Contains(msg, "424242") {
			t.Errorf("modern, %s: %s, want -32602", tc.what, msg)
		}
	}
	// A "Name" with no "name" is blamed on the key, not on the Mcp-Name
	// header that names the tool (a new user's trial).
	resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"Name":"args","arguments":{},`+modernMetaJSON+`}}`,
		modernHeaders("tools/call", "args"))
	if msg := string(message(t, resp, b)); !strings.Contains(msg, `"code":-32602`) || !strings.Contains(msg, "but for case") {
		t.Errorf("modern, a Name alone: %s, want -32602 for the key", msg)
	}
	// The keys themselves, and others that only look alike, still pass.
	msg := c.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"args","arguments":{"NAME":1,"_META":2},"_meta":{"progressToken":"ok","Progress":1},"names":1}}`)
	if !strings.Contains(string(msg), `"result"`) {
		t.Errorf("keys that do not fold: %s, want a result", msg)
	}
}

// The same for the keys routing reads beyond a tool call's: a prompt's
// name, a completion's ref and what is in it, a resource's URI, and a
// call's task (found by a second hostile review: a Go server served a
// prompt the entry denies, under "NAME" beside the allowed "name").
func TestKeysThatFoldAreRefusedBeyondToolCalls(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS":   `[{"name":"args","inputSchema":{"type":"object"}}]`,
		"MCP_FAKE_PROMPTS": `[{"name":"greet"},{"name":"other"}]`, "MCP_FAKE_RESOURCES": `[{"uri":"test://r","name":"r"}]`}})
	c := newClient(t, srv)
	u := srv.URL + "/mcp"
	arg := `"argument":{"name":"a","value":""}`
	for _, tc := range []struct{ method, params string }{
		{"prompts/get", `"name":"greet","NAME":"other"`},
		{"completion/complete", `"ref":{"type":"ref/prompt","name":"greet","NAME":"other"},` + arg},
		{"completion/complete", `"ref":{"type":"ref/prompt","name":"greet"},"REF":{"type":"ref/prompt","name":"other"},` + arg},
		{"completion/complete", `"ref":{"type":"ref/resource","uri":"test://r","TYPE":"ref/prompt","name":"other"},` + arg},
		{"resources/read", `"uri":"test://r","URI":"test://other"`},
		{"tools/call", `"name":"args","arguments":{},"TASK":{}`},
	} {
		msg := c.rpc(`{"jsonrpc":"2.0","id":2,"method":"` + tc.method + `","params":{` + tc.params + `}}`)
		if e := rpcError(t, msg); string(e["code"]) != "-32602" || !strings.Contains(string(e["message"]), "but for case") {
			t.Errorf("legacy %s {%s}: %s, want -32602 for the key", tc.method, tc.params, msg)
		}
		name := ""
		if tc.method != "completion/complete" { // the header names what the body does
			name = strings.Split(tc.params, `"`)[3]
		}
		resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":3,"method":"`+tc.method+`","params":{`+tc.params+`,`+modernMetaJSON+`}}`,
			modernHeaders(tc.method, name))
		if msg := string(message(t, resp, b)); !strings.Contains(msg, `"code":-32602`) || !strings.Contains(msg, "but for case") {
			t.Errorf("modern %s {%s}: %s, want -32602 for the key", tc.method, tc.params, msg)
		}
	}
}
