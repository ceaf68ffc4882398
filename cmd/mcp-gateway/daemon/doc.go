// Package daemon is one run of the gateway daemon (SPEC §2, §7.6): the
// process the keeper starts (`mcp-gateway __daemon`, main.go), from the
// hand-over of its config, token and settings to the last server stopped.
// It owns the settings a daemon runs with (settings.go, SPEC §10; the
// CLI fills them in from flags and environment), resolving a config
// against the catalog and the adapters (resolve.go, which the launcher
// uses to validate before it starts one), the resources the process
// takes in order and the one place its servers stop (main.go: log,
// memory budget in memory.go, telemetry in telemetry.go), a warm
// daemon's phase before its config (warm.go, SPEC §2.9), the configured
// daemon's run (daemon.go: the servers' start in start.go), its oklog/run
// actors (actors.go; code mode's in code.go, SPEC §12), and the control
// socket's answers (control.go) with the status document they carry
// (status.go, SPEC §8.1). Only those three files (main.go, warm.go,
// daemon.go) hold the daemon's methods; the rest are functions of what
// they use. The catalog reload itself is the supervisor's
// (supervisor/reloader); the daemon only wires it.
//
// It sits below the command line (cmd/mcp-gateway: flags, the launcher,
// the commands) and above ipc, aggregator and supervisor; nothing here
// prints to a terminal.
package daemon
