package daemon

// The document `mcp-gateway status` shows (SPEC §8.1), as the daemon makes it.

import (
	"os"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
)

// StatusDoc is what `status` shows: the /health document (SPEC §3.3) with
// each server's uptime, plus the daemon's own facts. Servers shadows the
// embedded Health.Servers.
type StatusDoc struct {
	aggregator.Health
	Servers       []ServerStatus `json:"servers"`
	PID           int            `json:"pid"`
	Version       string         `json:"version"`
	Addr          string         `json:"addr"`
	StartedAt     time.Time      `json:"startedAt"`
	UptimeSeconds int64          `json:"uptimeSeconds"`
	CatalogFile   string         `json:"catalogFile"`
	LogFile       string         `json:"logFile"`
	CodeDir       string         `json:"codeDir,omitempty"` // the code API (SPEC §12); "" when off
}

// ServerStatus is one server in a StatusDoc: its /health entry and its
// uptime.
type ServerStatus struct {
	aggregator.ServerHealth
	UptimeSeconds int64 `json:"uptimeSeconds,omitempty"`
}

// StatusWarm is the status of a warm daemon (SPEC §2.9): its servers run,
// it has no config, no port and no token yet.
const StatusWarm = "warm"

// statusOf is the status document of health, the daemon listening on
// addr ("" for none): one of this version, started at started, with
// settings s.
func statusOf(h aggregator.Health, addr, version string, started time.Time, s Settings) StatusDoc {
	if addr != "" {
		addr = DisplayAddr(addr)
	}
	doc := StatusDoc{
		Health: h, Servers: []ServerStatus{}, PID: os.Getpid(), Version: version, Addr: addr,
		StartedAt: started, UptimeSeconds: int64(time.Since(started).Seconds()),
		CatalogFile: s.CatalogFile, LogFile: s.LogFile,
	}
	if addr != "" { // a warm daemon writes none yet
		doc.CodeDir = s.CodeDir
	}
	doc.Health.Servers = nil
	for _, st := range h.Servers {
		ss := ServerStatus{ServerHealth: st}
		if !st.StartedAt.IsZero() {
			ss.UptimeSeconds = int64(time.Since(st.StartedAt).Seconds())
		}
		doc.Servers = append(doc.Servers, ss)
	}
	return doc
}

// DisplayAddr is addr as the ready line and status show it: all
// interfaces as 0.0.0.0, not [::].
func DisplayAddr(addr string) string {
	if strings.HasPrefix(addr, "[::]:") {
		return "0.0.0.0:" + strings.TrimPrefix(addr, "[::]:")
	}
	return addr
}
