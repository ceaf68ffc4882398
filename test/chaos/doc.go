// Package chaos runs the gateway binary under mixed load while faults are
// injected, and checks what an operator would: that no call hangs, that
// every failed call says which server failed, that nothing is orphaned
// and that the daemon's goroutines, open fds and RssAnon come back down
// once the load ends (issue 36).
//
// It uses only the contract from outside (SPEC §2, §3, §7, §10, §11): the
// launcher `mcp-gateway --config` with its paths and port flags,
// `mcp-gateway stop`, HTTP on /mcp, /health and /metrics, and the log file.
// Its servers are the pinned npm servers of test/node_modules:
// server-everything over stdio (under a shell, so that it has a child) and
// in its streamableHttp mode twice (once started by the driver on a port of
// its own, once by the gateway through runCmd), memory and filesystem as
// template catalog overrides, and sequential-thinking as an entry that only
// the catalog file names.
//
// Where to look:
//
//	run.go       Run: the gateway up, the load and the faults, the checks
//	client.go    a small MCP client over net/http, legacy sessions and
//	             modern (2026-07-28) requests; its SSE reader
//	workload.go  the calls: tools, prompts, resources, subscriptions, a
//	             task, an elicitation round; each call's outcome
//	faults.go    the fault driver: kills, stops, HTTP restarts, reloads,
//	             dropped connections, DELETEs, bad bodies
//	procs.go     the daemon's process tree, fds and RssAnon from /proc
//	report.go    the counts, latencies, resources and slopes printed at the end
//
// `make chaos` runs 10,000 calls (cmd/chaos), `make soak` 30 minutes of
// steady load without faults, and `go test ./test/chaos/` (inside
// `make test`) a bounded version of about a minute. docs/chaos.md keeps
// the figures.
package chaos
