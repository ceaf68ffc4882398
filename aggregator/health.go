package aggregator

import "github.com/mcp-gateway/mcp-gateway/supervisor"

// Health is the /health document (SPEC §3.3):
//
//	{"status": "ok"|"degraded"|"starting", "serverCount": 3, "toolCount": 25,
//	 "tools": 25, "servers": [{"name": …, "state": …, "restarts": 0, …}]}
//
// status is "ok" when every server is running or restartable (exited),
// "starting" while any is starting, "degraded" when any failed to start.
// It never holds the token, envs or argv.
type Health struct {
	Status      string              `json:"status"`
	ServerCount int                 `json:"serverCount"`
	ToolCount   int                 `json:"toolCount"`
	Tools       int                 `json:"tools"`
	Servers     []supervisor.Status `json:"servers"`
}

// Health reports the gateway's state.
func (g *Gateway) Health() Health {
	h := Health{Status: "ok", ServerCount: len(g.ups), ToolCount: g.ToolCount(), Servers: []supervisor.Status{}}
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
		h.Servers = append(h.Servers, st)
	}
	return h
}
