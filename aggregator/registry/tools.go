package registry

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// ToolDef is one tool of the merged list: its exported name (SPEC §4.2),
// the server it leads to and its definition as tools/list gives it.
type ToolDef struct {
	Name       string
	Upstream   *supervisor.Upstream
	Definition json.RawMessage
}

// Tools returns the merged tool list in its order (config-key order, then
// each server's, SPEC §4.1), each tool with its server: what the code API
// is written from (SPEC §12). The definitions are the generation's own
// bytes: callers must not modify them.
func (r *Generation) Tools() []ToolDef {
	out := make([]ToolDef, 0, len(r.tools.items))
	for _, def := range r.tools.items {
		name, _ := jsonrpc.Text(jsonrpc.Value(def, "name"))
		rt, ok := r.routes[name]
		if !ok {
			continue // cannot happen: every listed tool has its route
		}
		out = append(out, ToolDef{Name: name, Upstream: rt.Upstream, Definition: def})
	}
	return out
}
