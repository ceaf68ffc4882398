package main

import (
	"fmt"
	"io"
	"os"

	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// runServe is `mcp-gateway serve`: the daemon in the foreground (SPEC §8.2),
// config from --config/--config-file, token from GATEWAY_ACCESS_TOKEN (or
// generated). It returns when SIGTERM/SIGINT arrives.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "Usage: mcp-gateway serve --config '<json>' | --config-file FILE [flags]\n\nRuns the gateway in the foreground (for debugging, containers and tests).", stderr)
	inline := fs.String("config", "", "config JSON")
	file := fs.String("config-file", "", "config file")
	sf := addSettingsFlags(fs, true)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	s, err := sf.resolve()
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 2
	}
	config, err := readConfig(*inline, *file)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return configExit(err)
	}
	token, ok := os.LookupEnv(supervisor.TokenEnv)
	if !ok {
		token = ipc.NewToken()
	}
	warnToken(stderr, token)
	if _, warnings, err := resolveServers(s, config, nil); err != nil {
		printResolveError(stderr, err)
		return 1
	} else {
		printWarnings(stderr, warnings)
	}
	d := &daemon{settings: s, config: config, token: token, out: stdout}
	if err := d.run(); err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	return 0
}
