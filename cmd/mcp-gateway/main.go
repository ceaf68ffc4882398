// Command mcp-gateway serves the tools of stdio MCP servers on one MCP
// Streamable HTTP endpoint (SPEC §1). This package owns the command line:
// the launcher (SPEC §2, launch.go), `serve` and the daemon's oklog/run
// group (SPEC §8.2, serve.go, daemon.go), the flags and environment of
// SPEC §10 (settings.go), and the commands catalog, pull, status, stop and
// reload (catalogcmd.go, pull.go, control.go). Main is in cli.go so that
// tests can run the whole CLI in-process.
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }
