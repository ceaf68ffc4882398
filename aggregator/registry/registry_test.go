package registry

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

func TestRepairSchema(t *testing.T) {
	for _, tc := range []struct{ def, want, err string }{
		{`{"name":"a"}`, `{"name":"a","inputSchema":{"type":"object"}}`, ""},
		{`{"name":"a","inputSchema":null}`, `{"name":"a","inputSchema":{"type":"object"}}`, ""},
		{`{"name":"a","inputSchema":{"properties":{}}}`, `{"name":"a","inputSchema":{"type":"object","properties":{}}}`, ""},
		{`{"name":"a","inputSchema":{"type":"object","x":1}}`, `{"name":"a","inputSchema":{"type":"object","x":1}}`, ""},
		{`{"name":"a","inputSchema":{"type":"string"}}`, "", `not "object"`},
		{`{"name":"a","inputSchema":[]}`, "", "not a JSON object"},
		{`[]`, "", "not a JSON object"},
	} {
		got, err := repairSchema(json.RawMessage(tc.def))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("repairSchema(%s) = %s, %v; want an error with %q", tc.def, got, err, tc.err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("repairSchema(%s) = %s, %v; want %s", tc.def, got, err, tc.want)
		}
	}
}

func TestListPages(t *testing.T) {
	l := List{member: "tools"}
	for i := range PageSize + 2 {
		l.items = append(l.items, json.RawMessage(`{"i":`+strings.Repeat("1", 1+i%3)+`}`))
	}
	first, err := l.Page("")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.Unmarshal(first, &p); err != nil || len(p.Tools) != PageSize || p.NextCursor == "" {
		t.Fatalf("first page: %d tools, cursor %q, %v", len(p.Tools), p.NextCursor, err)
	}
	second, err := l.Page(p.NextCursor)
	p.Tools, p.NextCursor = nil, ""
	if err != nil || json.Unmarshal(second, &p) != nil || len(p.Tools) != 2 || p.NextCursor != "" {
		t.Fatalf("second page: %s, %v", second, err)
	}
	for _, bad := range []string{"x", "LTE", "NTAz"} { // not base64, -1, 503
		var rpc *jsonrpc.Error
		if _, err := l.Page(bad); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("Page(%q) = %v, want -32602", bad, err)
		}
	}
	if !l.Same(l) || l.Same(List{member: "tools"}) {
		t.Error("Same: a list is itself and not an empty one")
	}
}

func TestURIOwnerRules(t *testing.T) {
	a, b := &supervisor.Upstream{}, &supervisor.Upstream{}
	ta, _ := parseTemplate("test://t/{id}")
	ta.up = a
	tb, _ := parseTemplate("test://{+any}")
	tb.up = b
	tbl := uriTable{listed: map[string]*supervisor.Upstream{"test://t/listed": b}, templates: []uriTemplate{ta, tb}}
	var mem Memory
	mem.Learn(json.RawMessage(`{"content":[{"type":"resource_link","uri":"test://t/7"}]}`), "tools/call", "b")
	byName := func(name string) *supervisor.Upstream { return map[string]*supervisor.Upstream{"b": b}[name] }
	for _, tc := range []struct {
		uri  string
		mem  *Memory
		want *supervisor.Upstream
	}{
		{"test://t/listed", nil, b}, // listed first
		{"test://t/7", &mem, b},     // remembered before a template
		{"test://t/7", nil, a},      // the first matching template
		{"test://other", nil, b},
		{"file:///x", nil, nil},
	} {
		if got := tbl.owner(tc.uri, tc.mem, byName); got != tc.want {
			t.Errorf("owner(%q) = %p, want %p", tc.uri, got, tc.want)
		}
	}
}

func TestMemoryForgetsOldestFirst(t *testing.T) {
	var m Memory
	m.put("first", "s")
	long := strings.Repeat("u", maxRememberedURI)
	for i := 0; m.Lookup("first") != ""; i++ {
		m.put(long[:maxRememberedURI-8]+strings.Repeat("0", 8-len(itoa(i)))+itoa(i), "s")
	}
	if m.bytes > memoryBytes {
		t.Errorf("memory holds %d bytes, bound %d", m.bytes, memoryBytes)
	}
	m.put(long+"x", "s")
	if m.Lookup(long+"x") != "" {
		t.Error("a URI over maxRememberedURI was kept")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestIsSubResource(t *testing.T) {
	for _, tc := range []struct {
		uri, sub string
		want     bool
	}{
		{"file:///a/b", "file:///a", true}, {"file:///a?x", "file:///a", true}, {"file:///ab", "file:///a", false},
		{"file:///a/", "file:///a/", false}, {"file:///a/x", "file:///a/", true},
	} {
		if got := isSubResource(tc.uri, tc.sub); got != tc.want {
			t.Errorf("isSubResource(%q, %q) = %v", tc.uri, tc.sub, got)
		}
	}
}

func TestOfferedServes(t *testing.T) {
	o := Offered{resources: true}
	if !o.Serves("resources/read") || o.Serves("prompts/get") || !o.Serves("tools/call") || o.Lists(ListPrompts) || !o.Lists(ListTools) {
		t.Errorf("Offered{resources} serves wrongly: %+v", o)
	}
	caps := o.Object(map[string]any{"tasks": 1})
	if _, ok := caps["prompts"]; ok || caps["tasks"] != 1 || caps["resources"] == nil {
		t.Errorf("Object = %v", caps)
	}
}

// A tool whose x-mcp-header declarations no HTTP request can carry (a
// name that is not an RFC 9110 token, or two names that differ only in
// case) is one a conforming MCP 2026-07-28 client excludes ("Custom
// Headers from Tool Parameters"): the gateway, which demanded an
// Mcp-Param-{Name} header no client could send, drops it with a log line
// like any tool it cannot serve (SPEC §4.4). A valid one is kept.
func TestRepairSchemaChecksMcpHeaderNames(t *testing.T) {
	schema := func(props string) string {
		return `{"name":"a","inputSchema":{"type":"object","properties":{` + props + `}}}`
	}
	for _, tc := range []struct{ def, err string }{
		{schema(`"r":{"type":"string","x-mcp-header":"Region"},"n":{"type":"object","properties":{"l":{"type":"integer","x-mcp-header":"Limit-2"}}}`), ""},
		{schema(`"r":{"type":"string","x-mcp-header":"a b"}`), `"a b"`},
		{schema(`"r":{"type":"string","x-mcp-header":""}`), `""`},
		{schema(`"r":{"type":"string","x-mcp-header":"Région"}`), `"Région"`},
		{schema(`"r":{"type":"string","x-mcp-header":"X\r\nInjected: 1"}`), `Injected`},
		{schema(`"r":{"type":"string","x-mcp-header":"Region"},"s":{"type":"string","x-mcp-header":"region"}`), `"region"`},
		{`{"name":"a","inputSchema":{"properties":{"r":{"type":"string","x-mcp-header":"a:b"}}}}`, `"a:b"`},
	} {
		got, err := repairSchema(json.RawMessage(tc.def))
		if tc.err == "" {
			if err != nil {
				t.Errorf("repairSchema(%s) = %v, want it kept", tc.def, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "x-mcp-header") {
			t.Errorf("repairSchema(%s) = %s, %v; want an error about x-mcp-header %s", tc.def, got, err, tc.err)
		}
	}
}
