package relay

import (
	"net/http/httptest"
	"testing"
)

// ToolsQuery: tools present but empty (or bare) is the gateway's setting,
// as absent is (SPEC §4.10); all and search choose; anything else is
// 400 with -32602.
func TestToolsQuery(t *testing.T) {
	for query, want := range map[string]ToolsChoice{
		"":                 ToolsUnchosen,
		"?tools=":          ToolsUnchosen,
		"?tools":           ToolsUnchosen,
		"?tools=&x=1":      ToolsUnchosen,
		"?x=1":             ToolsUnchosen,
		"?tools=all":       ToolsAll,
		"?tools=search":    ToolsSearch,
		"?x=&tools=search": ToolsSearch,
	} {
		got, herr := ToolsQuery(httptest.NewRequest("POST", "/mcp"+query, nil))
		if herr != nil || got != want {
			t.Errorf("ToolsQuery(%q) = %v, %v; want %v", query, got, herr, want)
		}
	}
	if _, herr := ToolsQuery(httptest.NewRequest("POST", "/mcp?tools=some", nil)); herr == nil {
		t.Errorf("ToolsQuery(?tools=some): no error")
	}
}
