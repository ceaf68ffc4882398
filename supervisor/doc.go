// Package supervisor owns the upstream MCP servers and the policy that
// keeps them (SPEC §7): one Upstream per configured server; its runs (a
// run is one child process, from its start to its exit, or for an HTTP
// server one connection to it, with the child that serves it if it has
// runCmd); when a run starts, ends and is replaced. Restart and back-off
// are decided here and nowhere else (STYLE §3, §15). Below it: a child's
// mechanics (package proc), the JSON-RPC connection to a run (package
// rpc), and the transports under it, stdio (package stdio) and HTTP
// (package httpup); the log file and its masking are internal/logfile's.
//
// # Layout
//
// Supervisor (supervisor.go) holds the set: New, StartAll, Shutdown,
// under the Options every part reads (options.go);
// Configure hands a warm set its config (configure.go, SPEC §2.9), and
// Reload gives the set new launch specs, restarting gracefully the
// servers whose spec changed (reload.go, §6.3); the catalog reload that
// computes them is package reloader's (supervisor/reloader), above this
// one.
// Each server is an Upstream (upstream.go), thin: the call path, which
// reads top to bottom in call.go and states its contract (start on
// demand, errors, run pinning, detaching, detach.go), over three types of
// one idea each that meet at small interfaces, each declared by its user:
//
//   - lifecycle (run.go, reload.go): which run is live; the start that
//     concurrent callers share; a run's end, recorded; back-off (§7.3,
//     backoff.go) and the next call's restart (§7.2); the graceful
//     restart (§6.3, reload.go). It asks a runStarter for a run.
//   - launcher (launcher.go, start.go, httprun.go, modern.go): one run
//     from spawn to handshake and the goroutine that owns its end, over
//     stdio or HTTP (§5.6, §7.9), in either era (§7.8: a server that refuses the legacy
//     initialize with -32022 listing only modern versions is driven as
//     modern, modern.go). It tells runEnds (the lifecycle) of each end,
//     and asks runSurface for a new run's lists and subscriptions. Each
//     server runs with the daemon's environment minus GATEWAY_ACCESS_TOKEN
//     and the gateway's own MCP_GATEWAY_* settings, plus its own envs
//     (§7.1, env.go); the same environment is what a warm server is
//     compared by (§2.9).
//   - surface (lists.go, capabilities.go, subscribe.go): the
//     server's four lists, read at a start and again on list_changed
//     (§3.8, §4.5); its resource subscriptions, made in the server's own
//     way and again on each new run (§4.8); the log level asked of a
//     legacy server. It reaches the live run through liveRuns.
//
// runctl.go describes a run and how either kind is halted.
//
// Results, params and errors are relayed as raw JSON; see package jsonrpc.
//
// # Goroutines of a run
//
// A stdio run has, for its whole life, the child's owner and its stderr
// copier (package proc), and serveRun (start.go), the reader: it reads
// stdout (stdio.Transport.Read) until it ends, waits for the exit, fails
// the calls still pending, waits for the goroutines the run started
// (below), tells the lifecycle of the end and closes run.done. An HTTP
// run has serveHTTPRun (httprun.go) instead, which waits for the
// server's loss, its child's exit or a halt, then fails the pending
// calls, closes the transport (which waits for its goroutines, package
// httpup) and stops the child. The launcher counts both kinds; Shutdown
// waits for them, and Stop, Restart and a failed start wait on run.done.
//
// Others exist only while there is work, and each is waited for: those
// of the connection (package rpc: a call's notification delivery, a
// relayed server-to-client request), at most one re-list after
// list_changed (lists.go), counted with the connection's, which the
// run's owner waits for; and during a graceful restart, one that waits
// for the old run's calls (reload.go drainAndStop), which waits for it.
// The daemon's keeper (proc.KeeperCommand) takes the servers' trees down
// should the daemon die.
//
// # Waits
//
// Every wait is named, with what it bounds: the exit of a server that
// closed its stdout (exitGrace); a start and a re-list
// (Options.StartTimeout, DefaultStartTimeout); a list other than tools at
// a start (otherListWait); a modern server's subscription acknowledgment
// (listenAckWait); a resource subscription, its end and a
// logging/setLevel (subscribeWait); a graceful restart's drain
// (DefaultDrain, afterStopWait); the back-off (BackoffBase, BackoffMax,
// BackoffReset); an HTTP server's command starting (answerPoll) and
// stopping (httpCloseWait). The stop sequence's are proc's
// (proc.StopTimeouts), a stdin write's stdio's, and an HTTP server's
// connection, streams and session httpup's.
package supervisor
