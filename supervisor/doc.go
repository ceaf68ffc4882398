// Package supervisor owns the upstream MCP servers and the policy that
// keeps them (SPEC §7): one Upstream per configured server; its runs (a
// run is one child process, from its start to its exit); when a run
// starts, ends and is replaced; and the JSON-RPC connection to each run.
// How a child is started, waited for and stopped is package proc's
// (STYLE §15); the log file and its masking are package
// internal/logfile's.
//
//   - Each server runs in its own process group with the daemon's
//     environment minus GATEWAY_ACCESS_TOKEN, plus its own envs (§7.1,
//     env.go).
//   - A server that exits is restarted by the next call, not in the
//     background; calls pending at the exit fail at once (§7.2). Quick
//     repeated failures back off (§7.3, see backoff.go).
//   - The ordinary call reads top to bottom in call.go, which states its
//     contract: start on demand, errors, run pinning, detaching.
//   - The connection (conn.go) gives every request its own id, keeps it
//     pending until its answer, swaps a client's progressToken, and hands
//     what the server sends to the call or client it is for (dispatch.go,
//     pending.go, serverrequest.go). It sits on a transport; today that is
//     stdio (stdio.go): stdout is read as newline-delimited JSON-RPC by
//     our own reader, lines up to 64 MiB, into buffers from the daemon's
//     memory budget (Options.Budget, §3.9); non-JSON lines are logged and
//     skipped (§7.4). stderr goes to the log line by line with secrets
//     masked, within the server's share of the log (§7.4, §7.5).
//   - Servers of either era (§7.8): each is first sent initialize at the
//     newest legacy version (start.go); one that refuses with -32022
//     listing only modern versions (2026-07-28 on) is driven as modern:
//     server/discover, request _meta on every request (meta.go), its own
//     subscriptions/listen for tool list changes (listen.go). Status.Era
//     says which (modern.go). A modern server's InputRequiredResult goes
//     back as sent to a modern client, whose retry CallRun sends to the
//     same run; for a legacy client the supervisor asks the client and
//     retries itself (mrtr.go, SPEC §4.6). A caller may stop waiting for a
//     call that goes on (a Detacher peer; detach.go): the wait then passes
//     to a goroutine of the caller's, through DetachedCall.Wait.
//   - Telemetry (SPEC §11, telemetry.go): each request's duration goes to
//     Options.Metrics; a request of a traced call (its ctx carries the
//     call's span, Options.Tracer) gets a client span, whose W3C context
//     replaces traceparent in the params._meta the server receives (and
//     sets tracestate and baggage), above the transport, so stdio and
//     HTTP servers of both eras get it alike. Without tracing, params are
//     not touched.
//   - A catalog change is applied by a Reloader: each server is resolved
//     again and restarted gracefully if its launch spec changed (§6.3,
//     reloader.go, reload.go).
//
// Results, params and errors are relayed as raw JSON; see package jsonrpc.
//
// # Goroutines of a run
//
// Each run has three goroutines for its whole life, after the model of
// Nomad's raw-exec handle (STYLE §3):
//
//   - the child's owner, in package proc: the only caller of cmd.Wait.
//     When the child exits it kills the rest of its process group, waits
//     for the two pipe readers below (bounded), records the exit and
//     closes Process.Exited. Everyone else learns of the exit from
//     Exited: serveRun, and the stop sequence.
//   - the stderr copier, in package proc: stderr to the log and to the
//     tail kept for error messages. The owner waits for it.
//   - serveRun (run.go), the reader: reads stdout (Process.ReadStdout,
//     stdio.read) and hands each message to the connection (dispatch.go).
//     At the end of stdout it waits for Exited, fails the calls still
//     pending, waits for the goroutines the run started (below), records
//     the end of the run in the Upstream and closes run.done.
//     Upstream.runs counts it; shutdown waits for it, and Stop, Restart
//     and a failed start wait on run.done.
//
// Others exist only while there is work, and each is waited for:
//
//   - one per call that gets notifications (pendingCall.deliver,
//     pending.go), started with the first one; the call closes its queue
//     and waits for it before it returns;
//   - one per server-to-client request relayed to a client
//     (serverrequest.go), and at most one re-list of the tools after the
//     server's list_changed (tools.go); both are counted in
//     conn.handlers, which serveRun waits for;
//   - during a graceful restart, one that waits for the old run's calls
//     (reload.go drainAndStop), which waits for it in turn.
//
// Under the shim (proc.ShimArgv) the child is the shim process, which
// runs the server with one goroutine of its own calling Wait.
//
// Restarts and back-off are decided here, in run.go, reload.go and
// backoff.go, and nowhere else.
//
// # Waits
//
// Every wait is named, with what it bounds: the stop sequence's
// proc.StopTimeouts and the drain of a dead child's pipes (package proc);
// the exit of a server that closed its stdout (exitGrace); a write to
// stdin (writeTimeout); a start and a re-list (Options.StartTimeout,
// DefaultStartTimeout); a modern server's subscription acknowledgment
// (listenAckWait); a graceful restart's drain (DefaultDrain,
// afterStopWait); and the back-off (BackoffBase, BackoffMax,
// BackoffReset).
package supervisor
