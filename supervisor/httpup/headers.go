package httpup

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// nameMembers is where Mcp-Name's value is (MCP 2026-07-28 streamable-http
// "Standard Request Headers"; the tasks extension, SEP-2663, adds the
// task methods' taskId).
var nameMembers = map[string]string{
	"tools/call": "name", "prompts/get": "name", "resources/read": "uri",
	"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId",
}

// toolHeaders is what a modern server's tools/list said of the
// x-mcp-header parameters of its tools (noteTools), and the request
// metadata headers made of it (stamp; MCP 2026-07-28 streamable-http).
type toolHeaders struct {
	mu     sync.Mutex
	params map[string][]mcpheader.Param // by tool name
}

// stamp sets a modern request's Mcp-Method, Mcp-Name and, for a
// tools/call, the Mcp-Param-{Name} header of each x-mcp-header parameter
// of the tool (as tools/list described it; noteTools) present in its
// arguments, values encoded as the spec says (mcpheader.Encode).
func (t *toolHeaders) stamp(h http.Header, method string, params json.RawMessage) {
	if method == "" {
		return
	}
	h["Mcp-Method"] = []string{method}
	member, named := nameMembers[method]
	if !named || len(params) == 0 {
		return
	}
	var name, args json.RawMessage
	_ = jsonrpc.Members(params, func(k, v []byte) bool {
		switch {
		case jsonrpc.KeyIs(k, member):
			name = v
		case jsonrpc.KeyIs(k, "arguments"):
			args = v
		}
		return true
	})
	text, ok := jsonrpc.Text(name)
	if !ok {
		return
	}
	h["Mcp-Name"] = []string{mcpheader.Encode(text)}
	if method != "tools/call" {
		return
	}
	t.mu.Lock()
	specs := t.params[text]
	t.mu.Unlock()
	for _, p := range specs {
		if v, ok := mcpheader.ValueAt(args, p.Path); ok {
			if s, ok := mcpheader.Text(v); ok {
				h.Set("Mcp-Param-"+p.Name, mcpheader.Encode(s))
			}
		}
	}
}

// noteTools records the x-mcp-header parameters of the tools in a
// tools/list result, for the Mcp-Param headers of their calls.
func (t *toolHeaders) noteTools(result json.RawMessage) {
	if !bytes.Contains(result, []byte(`"x-mcp-header"`)) {
		return
	}
	var page struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, tool := range page.Tools {
		if specs := mcpheader.Params(tool.InputSchema); len(specs) > 0 {
			t.params[tool.Name] = specs
		} else {
			delete(t.params, tool.Name)
		}
	}
}

// methodOf is the method of an encoded message, "" for a response.
func methodOf(msg []byte) string {
	raw, _ := jsonrpc.Member(msg, "method")
	s, _ := jsonrpc.Text(raw)
	return s
}
