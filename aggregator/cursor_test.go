package aggregator

import (
	"strings"
	"testing"
)

// TestCursorNotAStringIsInvalidParams: a list request whose cursor is not
// a string gets -32602, as an unknown cursor does, in both eras; it used
// to be read as no cursor and answered with the first page again. A null
// cursor is no cursor.
func TestCursorNotAStringIsInvalidParams(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"a": {"MCP_FAKE_PROMPTS": `[{"name":"p"}]`}})
	c := newClient(t, srv)
	for _, method := range []string{"tools/list", "prompts/list"} {
		for _, cursor := range []string{`5`, `{}`, `true`, `"nope"`} {
			legacy := string(c.rpc(`{"jsonrpc":"2.0","id":7,"method":"` + method + `","params":{"cursor":` + cursor + `}}`))
			if !strings.Contains(legacy, `"code":-32602`) {
				t.Errorf("legacy %s with cursor %s: %s, want -32602", method, cursor, legacy)
			}
			modern := string(modernPost(t, srv.URL+"/mcp", method, "", `"cursor":`+cursor+`,`, "{}"))
			if !strings.Contains(modern, `"code":-32602`) {
				t.Errorf("modern %s with cursor %s: %s, want -32602", method, cursor, modern)
			}
		}
		if got := string(c.rpc(`{"jsonrpc":"2.0","id":8,"method":"` + method + `","params":{"cursor":null}}`)); strings.Contains(got, `"error"`) {
			t.Errorf("legacy %s with a null cursor: %s, want the first page", method, got)
		}
	}
}
