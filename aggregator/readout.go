package aggregator

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is what the daemon reads of the gateway: the /health document
// (SPEC §3.3), the counts, and the merged tool list it writes the code API
// from (SPEC §12).

// Health is the /health document (SPEC §3.3):
//
//	{"status": "ok"|"degraded"|"starting", "serverCount": 3, "toolCount": 25,
//	 "tools": 25, "promptCount": 4, "resourceCount": 7, "resourceTemplateCount": 2,
//	 "servers": [{"name": …, "state": …, "restarts": 0, "tools": 11,
//	              "toolsExported": 9, "prompts": 4, "promptsExported": 4,
//	              "unmatched": ["tools: allow \"get_fle\" matches no tool the server offers"],
//	              "resources": 7, "resourceTemplates": 2, …}]}
//
// The counts at the top are what the gateway serves (merged and named);
// each server's "tools", "prompts", "resources" and "resourceTemplates"
// are its own lists as it last sent them, and its "toolsExported" and
// "promptsExported" how many of them the gateway exports after the
// entry's "tools" and "prompts" (SPEC §4.9; "unmatched": the names there
// that match nothing the server offers, registry.Chosen).
// status is "ok" when every server is running or restartable (exited),
// "starting" while any is starting, "degraded" when any failed to start.
// It never holds the token, envs or argv.
type Health struct {
	Status      string         `json:"status"`
	ServerCount int            `json:"serverCount"`
	ToolCount   int            `json:"toolCount"`
	Tools       int            `json:"tools"`
	Prompts     int            `json:"promptCount"`
	Resources   int            `json:"resourceCount"`
	Templates   int            `json:"resourceTemplateCount"`
	Servers     []ServerHealth `json:"servers"`
}

// ServerHealth is one server in /health: its supervisor.Status, and what
// its entry chose of its lists (registry.Chosen).
type ServerHealth struct {
	supervisor.Status
	registry.Chosen
}

// Health reports the gateway's state.
func (g *Gateway) Health() Health {
	gen := g.reg.Load()
	tools, prompts, resources, templates := gen.Counts()
	h := Health{Status: "ok", ServerCount: len(g.ups), ToolCount: tools, Servers: []ServerHealth{},
		Prompts: prompts, Resources: resources, Templates: templates}
	h.Tools = h.ToolCount
	for _, u := range g.ups {
		st := u.Status()
		switch st.State {
		case supervisor.StateFailed:
			h.Status = "degraded"
		case supervisor.StateStarting:
			if h.Status == "ok" {
				h.Status = "starting"
			}
		}
		h.Servers = append(h.Servers, ServerHealth{Status: st, Chosen: gen.Chosen(st.Name)})
	}
	return h
}

// ToolCount returns the number of exported tools.
func (g *Gateway) ToolCount() int {
	tools, _, _, _ := g.reg.Load().Counts()
	return tools
}

// SessionCount returns the number of live legacy sessions.
func (g *Gateway) SessionCount() int { return g.h.legacy.Count() }

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
