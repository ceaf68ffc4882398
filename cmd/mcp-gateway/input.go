package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// daemonInput is what the launcher (SPEC §2) and `serve` (SPEC §8.2)
// both take from their command line before a daemon starts: settings
// (SPEC §10) and a config validated against the catalog and the adapters
// (SPEC §2.1). The token comes from tokenFromEnv.
type daemonInput struct {
	settings daemon.Settings
	config   []byte
	servers  []adapters.Server // the config, resolved
}

// parseDaemonInput registers --config, --config-file and the daemon's
// settings on fs, parses args, reads the config and resolves it, printing
// its warnings. If ok is false, the caller exits with code: 0 for --help,
// 2 for bad usage, 1 for a config that does not resolve (the reason is
// printed on stderr).
func parseDaemonInput(fs *flag.FlagSet, args []string, stderr io.Writer) (in daemonInput, code int, ok bool) {
	inline := fs.String("config", "", `config JSON, e.g. '{"time": {}, "filesystem": {"paths": ["/data"]}}'`)
	file := fs.String("config-file", "", "read the config from this file")
	sf := addSettingsFlags(fs, true)
	if code, ok := parseFlags(fs, args); !ok {
		return in, code, false
	}
	s, err := sf.resolve()
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return in, 2, false
	}
	config, err := readConfig(*inline, *file)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return in, configExit(err), false
	}
	// Validate before anything starts (SPEC §2.1).
	servers, warnings, _, err := daemon.Resolve(s, config, nil)
	if err != nil {
		printResolveError(stderr, err)
		return in, 1, false
	}
	printWarnings(stderr, warnings)
	return daemonInput{settings: s, config: config, servers: servers}, 0, true
}

// tokenFromEnv returns GATEWAY_ACCESS_TOKEN, or a new random token if it
// is unset (SPEC §2.5), and warns on stderr about one no request can match.
func tokenFromEnv(stderr io.Writer) string {
	token, ok := os.LookupEnv(supervisor.TokenEnv)
	if !ok {
		token = ipc.NewToken()
	}
	warnToken(stderr, token)
	return token
}

// printWarnings prints the warnings of a config's resolve.
func printWarnings(w io.Writer, warnings []string) {
	for _, warn := range warnings {
		fmt.Fprintln(w, "mcp-gateway: warning:", warn)
	}
}

// printResolveError prints err under a heading naming what was wrong.
func printResolveError(w io.Writer, err error) {
	fmt.Fprintf(w, "mcp-gateway: %s\n", daemon.Explain(err))
}

// warnToken says when a given token can never be matched: empty (SPEC §3.2:
// every request is refused) or with spaces around it.
func warnToken(w io.Writer, token string) {
	switch {
	case token == "":
		fmt.Fprintln(w, "mcp-gateway: warning: "+supervisor.TokenEnv+" is set but empty: every request will be refused with 401 (unset it to generate a token)")
	case strings.TrimSpace(token) != token || strings.ContainsAny(token, " \t\r\n"):
		fmt.Fprintln(w, "mcp-gateway: warning: "+supervisor.TokenEnv+" contains white space, which no Authorization header can carry: every request will be refused with 401")
	}
}
