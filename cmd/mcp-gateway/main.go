// Command mcp-gateway serves the tools, prompts and resources of MCP servers (stdio and HTTP) on one MCP
// Streamable HTTP endpoint (SPEC §1). This package owns the command line:
// the launcher (SPEC §2, launch.go, spawning the daemon in spawn.go), `serve`
// (SPEC §8.2, serve.go; what both take is in input.go), the daemon (daemon.go,
// its start in start.go and its oklog/run actors in actors.go), resolving the
// config (resolve.go), the flags and environment of SPEC §10 (settings.go),
// and the commands catalog, pull, warm, status, stop and reload
// (catalogcmd.go, pull.go, warmcmd.go, status.go, control.go). A warm
// daemon's phase before its config is warm.go; the launcher's hand-over
// to it, handover.go; the keeper above the daemon, spawn.go. The catalog reload itself is the
// supervisor's (supervisor.Reloader); this package only wires it. Main is in
// cli.go so that tests can run the whole CLI in-process.
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }
