package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/bytesize"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
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

// pathFlags lists the SPEC §10 settings: flag, environment, default.
var pathFlags = []struct {
	flag, env, def, usage string
	field                 func(*Settings) *string
}{
	{"listen", "MCP_GATEWAY_LISTEN", "", "listen address (empty: all interfaces)", func(s *Settings) *string { return &s.Listen }},
	{"token-file", "MCP_GATEWAY_TOKEN_FILE", "/etc/mcp-gateway/.token", "token file, written 0600", func(s *Settings) *string { return &s.TokenFile }},
	{"catalog-file", "MCP_GATEWAY_CATALOG_FILE", "/etc/mcp-gateway/catalog.json", "catalog override file", func(s *Settings) *string { return &s.CatalogFile }},
	{"log-file", "MCP_GATEWAY_LOG_FILE", "/var/log/mcp-gateway.log", "log file (rotated at 10 MB)", func(s *Settings) *string { return &s.LogFile }},
	{"run-dir", "MCP_GATEWAY_RUN_DIR", ipc.DefaultRunDir, "run dir: pid file and control socket", func(s *Settings) *string { return &s.RunDir }},
	{"servers-dir", "MCP_GATEWAY_SERVERS_DIR", "/opt/mcp-gateway/servers", "where pulled packages and GitHub clones live", func(s *Settings) *string { return &s.ServersDir }},
	{"github-url", "MCP_GATEWAY_GITHUB_URL", "https://github.com", "GitHub base URL (tests, mirrors)", func(s *Settings) *string { return &s.GitHubURL }},
	{"adapters-dir", "MCP_GATEWAY_ADAPTERS_DIR", "/etc/mcp-gateway/adapters", "external adapter binaries", func(s *Settings) *string { return &s.AdaptersDir }},
}

// settingsFlags registers the settings on fs. Call resolve after Parse.
type settingsFlags struct {
	s             Settings
	port          string
	origins       string
	budget, share bytesize.Flag
	envErr        error // a size or switch flag's environment variable that does not parse
	toolSearch    string
	threshold     string
}

func addSettingsFlags(fs *flag.FlagSet, daemon bool) *settingsFlags {
	sf := &settingsFlags{}
	for _, p := range pathFlags {
		fs.StringVar(p.field(&sf.s), p.flag, envOr(p.env, p.def), p.usage+" (env "+p.env+")")
	}
	if !daemon {
		return sf
	}
	fs.StringVar(&sf.s.CodeDir, "code-dir", envOr(codeDirEnv, defaultCodeDir), "where the merged tools are written as Python and JavaScript functions; off: not written (env "+codeDirEnv+", SPEC §12)")
	fs.StringVar(&sf.port, "port", envOr("MCP_GATEWAY_PORT", "50005"), "port (env MCP_GATEWAY_PORT)")
	fs.DurationVar(&sf.s.StartupTimeout, "startup-timeout", supervisor.DefaultStartTimeout, "how long the servers may take to start (SPEC §2.4)")
	fs.StringVar(&sf.origins, "allowed-origins", envOr("MCP_GATEWAY_ALLOWED_ORIGINS", ""), "comma-separated Origin values allowed besides localhost (env MCP_GATEWAY_ALLOWED_ORIGINS)")
	fs.DurationVar(&sf.s.SessionTimeout, "session-timeout", aggregator.DefaultSessionTimeout, "idle session expiry")
	fs.IntVar(&sf.s.MaxSessions, "max-sessions", aggregator.DefaultMaxSessions, "most concurrent MCP sessions")
	fs.DurationVar(&sf.s.BodyTimeout, "body-timeout", aggregator.DefaultBodyTimeout, "how long one request body may take to arrive (408 past it)")
	sf.budget, sf.share = budget.Default, logfile.DefaultShare
	callLog, callLogErr := envSwitch("MCP_GATEWAY_CALL_LOG", true)
	sf.envErr = errors.Join(sf.budget.SetEnv("MCP_GATEWAY_MEMORY_BUDGET"), sf.share.SetEnv("MCP_GATEWAY_LOG_SHARE"), callLogErr)
	fs.BoolVar(&sf.s.CallLog, "call-log", callLog, "one log line per tools/call, prompts/get and resources/read; --call-log=false for very busy gateways (env MCP_GATEWAY_CALL_LOG: on, off)")
	fs.Var(&sf.budget, "memory-budget", "memory for request bodies and servers' answers held at once, e.g. 256MiB; "+
		"the runtime's memory limit is set above it unless GOMEMLIMIT is (env MCP_GATEWAY_MEMORY_BUDGET)")
	fs.StringVar(&sf.toolSearch, "tool-search", envOr("MCP_GATEWAY_TOOL_SEARCH", string(aggregator.ToolSearchOff)),
		"tools/list as search_tools and call_tool (SPEC §4.10): off, on, or auto past --tool-search-threshold tools; a client's /mcp?tools=all or ?tools=search wins (env MCP_GATEWAY_TOOL_SEARCH)")
	fs.StringVar(&sf.threshold, "tool-search-threshold", envOr("MCP_GATEWAY_TOOL_SEARCH_THRESHOLD", strconv.Itoa(aggregator.DefaultToolSearchThreshold)),
		"--tool-search auto: search mode when more tools than this are exported (env MCP_GATEWAY_TOOL_SEARCH_THRESHOLD)")
	fs.Var(&sf.share, "log-share", "bytes per second each server may write to the log, e.g. 64KiB; 0: no limit (env MCP_GATEWAY_LOG_SHARE)")
	return sf
}

func (sf *settingsFlags) resolve() (Settings, error) {
	s := sf.s
	// The daemon runs in "/", so relative paths are made absolute here,
	// where the user meant them.
	for _, p := range []*string{&s.TokenFile, &s.CatalogFile, &s.LogFile, &s.RunDir, &s.ServersDir, &s.AdaptersDir} {
		if *p == "" {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return s, fmt.Errorf("resolve path %q: %w", *p, err)
		}
		*p = abs
	}
	if err := resolveCodeDir(&s.CodeDir); err != nil {
		return s, err
	}
	if sf.port != "" {
		p, err := strconv.Atoi(sf.port)
		if err != nil || p < 0 || p > 65535 {
			return s, fmt.Errorf("invalid port %q: want 0-65535", sf.port)
		}
		s.Port = p
	}
	for _, o := range strings.Split(sf.origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			s.AllowedOrigins = append(s.AllowedOrigins, o)
		}
	}
	if sf.port != "" { // the daemon's flags are registered
		if err := sf.daemonLimits(&s); err != nil {
			return s, err
		}
		if s.StartupTimeout <= 0 {
			return s, errors.New("--startup-timeout must be positive")
		}
		if s.SessionTimeout <= 0 {
			return s, errors.New("--session-timeout must be positive")
		}
		if s.MaxSessions <= 0 {
			return s, fmt.Errorf("--max-sessions must be at least 1, got %d", s.MaxSessions)
		}
	}
	return s, nil
}

// daemonLimits resolves and checks the memory budget, the log share and
// the body timeout.
func (sf *settingsFlags) daemonLimits(s *Settings) error {
	if sf.envErr != nil {
		return sf.envErr
	}
	s.MemoryBudget, s.LogShare = int64(sf.budget), int64(sf.share)
	if s.MemoryBudget < budget.Minimum {
		return fmt.Errorf("--memory-budget must be at least %s (a quarter of it is the largest request body, and SPEC §3.9 needs 8 MiB), got %s",
			bytesize.Format(budget.Minimum), bytesize.Format(s.MemoryBudget))
	}
	if s.BodyTimeout <= 0 {
		return errors.New("--body-timeout must be positive")
	}
	return sf.toolSearchSettings(s)
}

// toolSearchSettings resolves and checks --tool-search and
// --tool-search-threshold (SPEC §4.10).
func (sf *settingsFlags) toolSearchSettings(s *Settings) error {
	mode, err := aggregator.ParseToolSearch(strings.ToLower(strings.TrimSpace(sf.toolSearch)))
	if err != nil {
		return fmt.Errorf("--tool-search (env MCP_GATEWAY_TOOL_SEARCH) %q: want off, on or auto", sf.toolSearch)
	}
	n, err := strconv.Atoi(strings.TrimSpace(sf.threshold))
	if err != nil || n < 1 {
		return fmt.Errorf("--tool-search-threshold (env MCP_GATEWAY_TOOL_SEARCH_THRESHOLD) %q: want a whole number of tools, at least 1", sf.threshold)
	}
	s.ToolSearch, s.ToolSearchThreshold = mode, n
	return nil
}

// envSwitch reads an on/off environment variable (on, off, true, false,
// 1, 0); unset is def.
func envSwitch(name string, def bool) (bool, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return def, fmt.Errorf("%s=%q: want on or off", name, v)
}

func envOr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}
