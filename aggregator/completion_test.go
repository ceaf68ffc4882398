package aggregator

import (
	"encoding/json"
	"testing"
)

// completion/complete goes to the ref's owner even when no server
// declared completions (SPEC §4.8), and the owner's answer comes back,
// for a legacy session and a modern request, from a legacy and a modern
// server.
func TestCompletionReachesAnOwnerThatDidNotDeclareIt(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{
		"p": {"MCP_FAKE_PROMPTS": `[{"name":"greet","arguments":[{"name":"who"}]}]`, "MCP_FAKE_NO_COMPLETIONS": "1"},
		"t": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_TEMPLATES": `[{"uriTemplate":"test://items/{id}","name":"items"}]`},
	})
	value := func(what string, res json.RawMessage) string {
		t.Helper()
		var r struct {
			Completion struct{ Values []string } `json:"completion"`
		}
		if json.Unmarshal(res, &r) != nil || len(r.Completion.Values) != 1 {
			t.Fatalf("%s: %s", what, res)
		}
		return r.Completion.Values[0]
	}
	args := `"argument":{"name":"who","value":"A"}`
	c := newClient(t, srv)
	for _, tc := range []struct{ ref, upstream string }{
		{`{"type":"ref/prompt","name":"greet"}`, `{"ref":{"type":"ref/prompt","name":"greet"},` + args},
		{`{"type":"ref/resource","uri":"test://items/{id}"}`, `{"ref":{"type":"ref/resource","uri":"test://items/{id}"},` + args},
	} {
		got := value("legacy "+tc.ref, result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":`+tc.ref+`,`+args+`}}`)))
		if len(got) < len(tc.upstream) || got[:len(tc.upstream)] != tc.upstream {
			t.Errorf("legacy complete %s: the owner saw %s, want %s", tc.ref, got, tc.upstream)
		}
		got = value("modern "+tc.ref, result(t, modernPost(t, srv.URL+"/mcp", "completion/complete", "", `"ref":`+tc.ref+`,`+args+`,`, "{}")))
		if len(got) < len(tc.upstream) || got[:len(tc.upstream)] != tc.upstream {
			t.Errorf("modern complete %s: the owner saw %s, want %s", tc.ref, got, tc.upstream)
		}
	}
}
