// Command mcp-gateway serves the tools, prompts and resources of MCP servers (stdio and HTTP) on one MCP
// Streamable HTTP endpoint (SPEC §1). This package owns the command line:
// the launcher (SPEC §2, launch.go, spawning the daemon's keeper in
// spawn.go), `serve` (SPEC §8.2, serve.go; what both take is in input.go),
// the flags and environment of SPEC §10 (settings.go), and the commands
// catalog, pull, warm, status, stop, reload and code (catalogcmd.go,
// pull.go, warmcmd.go, status.go, control.go, codecmd.go). The launcher's
// hand-over to a warm daemon is handover.go. The daemon itself, the
// process the keeper starts, is package daemon (cmd/mcp-gateway/daemon);
// this package only starts it and talks to it. Main is in cli.go so that
// tests can run the whole CLI in-process; what every command shares in
// reading its arguments is args.go.
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }
