package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/bytesize"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// pathFlags lists the SPEC §10 settings: flag, environment, default.
var pathFlags = []struct {
	flag, env, def, usage string
	field                 func(*daemon.Settings) *string
}{
	{"listen", "MCP_GATEWAY_LISTEN", "", "listen address (empty: all interfaces)", func(s *daemon.Settings) *string { return &s.Listen }},
	{"token-file", "MCP_GATEWAY_TOKEN_FILE", "/etc/mcp-gateway/.token", "token file, written 0600", func(s *daemon.Settings) *string { return &s.TokenFile }},
	{"catalog-file", "MCP_GATEWAY_CATALOG_FILE", "/etc/mcp-gateway/catalog.json", "catalog override file", func(s *daemon.Settings) *string { return &s.CatalogFile }},
	{"log-file", "MCP_GATEWAY_LOG_FILE", "/var/log/mcp-gateway.log", "log file (rotated at 10 MB)", func(s *daemon.Settings) *string { return &s.LogFile }},
	{"run-dir", "MCP_GATEWAY_RUN_DIR", ipc.DefaultRunDir, "run dir: pid file and control socket", func(s *daemon.Settings) *string { return &s.RunDir }},
	{"servers-dir", "MCP_GATEWAY_SERVERS_DIR", "/opt/mcp-gateway/servers", "where pulled packages and GitHub clones live", func(s *daemon.Settings) *string { return &s.ServersDir }},
	{"github-url", "MCP_GATEWAY_GITHUB_URL", "https://github.com", "GitHub base URL (tests, mirrors)", func(s *daemon.Settings) *string { return &s.GitHubURL }},
	{"adapters-dir", "MCP_GATEWAY_ADAPTERS_DIR", "/etc/mcp-gateway/adapters", "external adapter binaries", func(s *daemon.Settings) *string { return &s.AdaptersDir }},
}

// settingsFlags registers the settings on fs. Call resolve after Parse.
type settingsFlags struct {
	s             daemon.Settings
	port          string
	origins       string
	budget, share bytesize.Flag
	envErr        error // a size or switch flag's environment variable that does not parse
	toolSearch    string
	threshold     string
}

func addSettingsFlags(fs *flag.FlagSet, forDaemon bool) *settingsFlags {
	sf := &settingsFlags{}
	for _, p := range pathFlags {
		fs.StringVar(p.field(&sf.s), p.flag, envOr(p.env, p.def), p.usage+" (env "+p.env+")")
	}
	if !forDaemon {
		return sf
	}
	fs.StringVar(&sf.s.CodeDir, "code-dir", envOr(supervisor.CodeDirEnv, defaultCodeDir), "where the merged tools are written as Python and JavaScript functions; off: not written (env "+supervisor.CodeDirEnv+", SPEC §12)")
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

func (sf *settingsFlags) resolve() (daemon.Settings, error) {
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
func (sf *settingsFlags) daemonLimits(s *daemon.Settings) error {
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
func (sf *settingsFlags) toolSearchSettings(s *daemon.Settings) error {
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

// The --code-dir setting (SPEC §12.1): its default, and the word that
// turns code mode off.
const (
	defaultCodeDir = "/opt/mcp-gateway/code"
	codeOff        = "off"
)

// resolveCodeDir makes a --code-dir absolute; "off" (any case) or ""
// becomes "", code mode off.
func resolveCodeDir(dir *string) error {
	if *dir == "" || strings.EqualFold(strings.TrimSpace(*dir), codeOff) {
		*dir = ""
		return nil
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return fmt.Errorf("resolve --code-dir %q: %w", *dir, err)
	}
	*dir = abs
	return nil
}
