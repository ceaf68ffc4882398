package aggregator

import (
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

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
