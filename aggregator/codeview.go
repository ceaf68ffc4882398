package aggregator

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
)

// ServerTools is one server's part of the merged tool list: its config
// key and its tools, each with its exported name and its definition as
// tools/list gives it (SPEC §4.2).
type ServerTools struct {
	Server string
	// Instructions is what the server said to read first (its
	// instructions, else its description; supervisor.Upstream.Instructions).
	Instructions string
	Tools        []NamedTool
}

// NamedTool is one merged tool: exported name and definition (not to be
// modified).
type NamedTool struct {
	Name       string
	Definition json.RawMessage
}

// MergedTools returns the tool list served now, by server, in config-key
// order and each server's tools in its order: what the daemon writes the
// code API from (SPEC §12). A server with no tool served is left out.
func (g *Gateway) MergedTools() []ServerTools {
	var out []ServerTools
	for _, t := range g.reg.Load().Tools() {
		name := t.Upstream.Name()
		if len(out) == 0 || out[len(out)-1].Server != name {
			out = append(out, ServerTools{Server: name, Instructions: t.Upstream.Instructions()})
		}
		s := &out[len(out)-1]
		s.Tools = append(s.Tools, NamedTool{Name: t.Name, Definition: t.Definition})
	}
	return out
}

// OnToolsChanged sets fn to be called after every Rebuild that changed
// the merged tool list (SPEC §4.5, §12.1), with the new list already
// served. fn runs on the rebuilding goroutine, under the rebuild's lock:
// it must return at once (e.g. signal a goroutine of its own). nil: none.
func (g *Gateway) OnToolsChanged(fn func()) {
	g.rebuildMu.Lock()
	g.onTools = fn
	g.rebuildMu.Unlock()
}

// toolsChanged calls the OnToolsChanged hook if kinds holds the tools.
// Called with rebuildMu held.
func (g *Gateway) toolsChanged(kinds []registry.ListKind) {
	if g.onTools == nil {
		return
	}
	for _, k := range kinds {
		if k == registry.ListTools {
			g.onTools()
			return
		}
	}
}
