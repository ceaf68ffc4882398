package supervisor

import (
	"context"
	"encoding/json"
)

// SetLogLevel asks the server for log messages at level and above
// ("debug" … "emergency"; MCP logging/setLevel, SPEC §4.8): at once on its
// live run, and on every later run as it starts. Only a legacy server
// that declared logging gets it; a modern one takes a level per request
// (request _meta, ClientInfo.LogLevel). The aggregator sends the most
// verbose level any of its sessions asked for and filters per session
// itself. A server that refuses is logged.
func (u *Upstream) SetLogLevel(ctx context.Context, level string) {
	u.subMu.Lock()
	defer u.subMu.Unlock()
	if u.level == level {
		return
	}
	u.level = level
	u.mu.Lock()
	r := u.cur
	u.mu.Unlock()
	if r != nil {
		u.applyLevel(ctx, r)
	}
}

// applyLevel sends run r the level, if there is one and r takes it. Call
// with u.subMu held.
func (u *Upstream) applyLevel(ctx context.Context, r *run) {
	if u.level == "" || r.era != EraLegacy || !r.caps.Logging {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, subscribeWait)
	defer cancel()
	params, _ := json.Marshal(map[string]string{"level": u.level})
	if _, err := r.conn.Call(ctx, "logging/setLevel", params, nil); err != nil {
		u.opts.Logger.Warn("logging/setLevel failed", "server", u.name, "level", u.level, "error", err)
	}
}
