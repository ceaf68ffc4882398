package main

import (
	"fmt"
	"io"
)

// runServe is `mcp-gateway serve`: the daemon in the foreground (SPEC §8.2),
// config from --config/--config-file, token from GATEWAY_ACCESS_TOKEN (or
// generated). It returns when SIGTERM/SIGINT arrives.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "Usage: mcp-gateway serve --config '<json>' | --config-file FILE [flags]\n\nRuns the gateway in the foreground (for debugging, containers and tests).", stderr)
	in, code, ok := parseDaemonInput(fs, args, stderr)
	if !ok {
		return code
	}
	d := &daemon{settings: in.settings, config: in.config, token: tokenFromEnv(stderr), out: stdout}
	if err := d.run(); err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	return 0
}
