package aggregator

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The surface beyond tools for modern clients (SPEC §3.10, §4.8).

// modernPost posts a modern request of method with params members (raw,
// without braces) and the Mcp-Name name, and returns the response message.
func modernPost(t *testing.T, url, method, name, members, caps string) []byte {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`,
		method, members, caps)
	resp, b := send(t, "POST", url, body, modernHeaders(method, name))
	return message(t, resp, b)
}

func TestModernListsAndReadCarryCachingHints(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{
		"a": {"MCP_FAKE_PROMPTS": `[{"name":"p"}]`, "MCP_FAKE_RESOURCES": `[{"uri":"test://r","name":"r"}]`, "MCP_FAKE_TEMPLATES": `[{"uriTemplate":"test://t/{x}","name":"t"}]`},
		"b": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_RESOURCES": `[{"uri":"test://m","name":"m"}]`,
			"MCP_FAKE_READ_RESULT": `{"resultType":"complete","contents":[{"uri":"test://m","text":"x"}],"ttlMs":5,"cacheScope":"public"}`},
	})
	u := srv.URL + "/mcp"
	for method, want := range map[string]string{
		"prompts/list":             `{"prompts":[{"name":"p"}],"resultType":"complete","ttlMs":60000,"cacheScope":"private"}`,
		"resources/list":           `{"resources":[{"uri":"test://r","name":"r"},{"uri":"test://m","name":"m"}],"resultType":"complete","ttlMs":60000,"cacheScope":"private"}`,
		"resources/templates/list": `{"resourceTemplates":[{"uriTemplate":"test://t/{x}","name":"t"}],"resultType":"complete","ttlMs":60000,"cacheScope":"private"}`,
	} {
		if diff := cmp.Diff(want, string(result(t, modernPost(t, u, method, "", "", "{}")))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", method, diff)
		}
	}
	// A legacy server's read gets the hints; a modern one's keeps its own.
	got := string(result(t, modernPost(t, u, "resources/read", "test://r", `"uri":"test://r",`, "{}")))
	if got != `{"resultType":"complete","contents":[{"uri":"test://r","mimeType":"text/plain","text":"test://r from "}],"ttlMs":0,"cacheScope":"private"}` {
		t.Errorf("read from a legacy server: %s", got)
	}
	got = string(result(t, modernPost(t, u, "resources/read", "test://m", `"uri":"test://m",`, "{}")))
	if got != `{"resultType":"complete","contents":[{"uri":"test://m","text":"x"}],"ttlMs":5,"cacheScope":"public"}` {
		t.Errorf("read from a modern server: %s", got)
	}
	got = string(result(t, modernPost(t, u, "prompts/get", "p", `"name":"p",`, "{}")))
	if !strings.HasPrefix(got, `{"resultType":"complete","messages":[`) {
		t.Errorf("prompts/get: %s", got)
	}
}

func TestModernNameHeaderOfPromptsAndReads(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"a": {"MCP_FAKE_PROMPTS": `[{"name":"p"}]`, "MCP_FAKE_RESOURCES": `[{"uri":"test://r","name":"r"}]`}})
	u := srv.URL + "/mcp"
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for _, tc := range []struct{ method, members, name string }{
		{"prompts/get", `"name":"p",`, ""},
		{"prompts/get", `"name":"p",`, "q"},
		{"resources/read", `"uri":"test://r",`, ""},
		{"resources/read", `"uri":"test://r",`, "test://other"},
	} {
		resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":{`+tc.members+meta+`}}`, modernHeaders(tc.method, tc.name))
		wantRPCError(t, tc.method+" Mcp-Name "+tc.name, resp, b, 400, -32020)
	}
	resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://r",`+meta+`}}`, modernHeaders("resources/read", "=?base64?"+base64.StdEncoding.EncodeToString([]byte("test://r"))+"?="))
	if msg := message(t, resp, b); resp.StatusCode != 200 || !strings.Contains(string(msg), `"contents"`) {
		t.Errorf("a Base64 Mcp-Name: %d %s", resp.StatusCode, msg)
	}
}

// A legacy server's elicitation/create during a modern client's
// prompts/get parks the call as during a tools/call (MRTR, SPEC §4.6).
func TestModernPromptGetThroughTheBridge(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"a": {"MCP_FAKE_PROMPTS": `[{"name":"askme"}]`}})
	u := srv.URL + "/mcp"
	caps := `{"elicitation":{}}`
	reqs, state := inputRequired(t, modernPost(t, u, "prompts/get", "askme", `"name":"askme",`, caps))
	if len(reqs) != 1 || !strings.Contains(string(reqs["elicitation-1"]), `"method":"elicitation/create"`) {
		t.Fatalf("inputRequests: %v", reqs)
	}
	// The state is the prompt's: a tools/call cannot resume it.
	wantCode(t, "the prompt's state on tools/call", modernCaller{t: t, url: u, caps: caps}.call(2, "askme", retry(state, `{}`)), "-32602")
	got := string(result(t, modernPost(t, u, "prompts/get", "askme", `"name":"askme",`+retry(state, `{"elicitation-1":{"action":"accept","content":{"context":"ctx"}}}`), caps)))
	if !strings.Contains(got, `\"content\":{\"context\":\"ctx\"}`) || !strings.HasPrefix(got, `{"resultType":"complete",`) {
		t.Errorf("prompts/get after the retry: %s", got)
	}
}
