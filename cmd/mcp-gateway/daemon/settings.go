package daemon

import (
	"net"
	"strconv"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
)

// Settings are the daemon's paths and limits (SPEC §10). Flags win over
// environment, environment over defaults.
type Settings struct {
	Port           int           `json:"port"`
	Listen         string        `json:"listen"`
	TokenFile      string        `json:"tokenFile"`
	CatalogFile    string        `json:"catalogFile"`
	LogFile        string        `json:"logFile"`
	RunDir         string        `json:"runDir"`
	ServersDir     string        `json:"serversDir"`
	GitHubURL      string        `json:"githubURL"`
	AdaptersDir    string        `json:"adaptersDir"`
	StartupTimeout time.Duration `json:"startupTimeout"`
	AllowedOrigins []string      `json:"allowedOrigins,omitempty"`
	SessionTimeout time.Duration `json:"sessionTimeout"`
	MaxSessions    int           `json:"maxSessions"`
	// MemoryBudget bounds what request bodies and servers' answers hold
	// (internal/budget); the runtime's soft memory limit derives from it.
	MemoryBudget int64 `json:"memoryBudget"`
	// LogShare is each server's share of the log, bytes per second (0:
	// no limit).
	LogShare int64 `json:"logShare"`
	// BodyTimeout bounds reading one request body.
	BodyTimeout time.Duration `json:"bodyTimeout"`
	// CallLog writes one log line per tools/call, prompts/get and
	// resources/read (SPEC §11.1).
	CallLog bool `json:"callLog"`
	// ToolSearch is off, on or auto (SPEC §4.10); auto is on past
	// ToolSearchThreshold exported tools.
	ToolSearch          aggregator.ToolSearch `json:"toolSearch"`
	ToolSearchThreshold int                   `json:"toolSearchThreshold"`
	// CodeDir is where the code API is written (SPEC §12.1), absolute;
	// "" when code mode is off.
	CodeDir string `json:"codeDir,omitempty"`
}

// Addr is the listen address, host:port.
func (s Settings) Addr() string { return net.JoinHostPort(s.Listen, strconv.Itoa(s.Port)) }
