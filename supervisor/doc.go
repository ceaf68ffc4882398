// Package supervisor owns the upstream MCP servers and the policy that
// keeps them (SPEC §7): one Upstream per configured server; its runs (a
// run is one child process, from its start to its exit, or for an HTTP
// server one connection to it, with the child that serves it if it has
// runCmd); when a run starts, ends and is replaced; and the JSON-RPC
// connection to each run.
// How a child is started, waited for and stopped is package proc's
// (STYLE §15); the log file and its masking are package
// internal/logfile's.
//
//   - Each server runs in its own process group with the daemon's
//     environment minus GATEWAY_ACCESS_TOKEN and the gateway's own
//     MCP_GATEWAY_* settings, plus its own envs (§7.1, env.go).
//   - A server that exits is restarted by the next call, not in the
//     background; calls pending at the exit fail at once (§7.2). Quick
//     repeated failures back off (§7.3, see backoff.go).
//   - The ordinary call reads top to bottom in call.go, which states its
//     contract: start on demand, errors, run pinning, detaching.
//   - The connection (conn.go) gives every request its own id, keeps it
//     pending until its answer, swaps a client's progressToken, and hands
//     what the server sends to the call or client it is for (dispatch.go,
//     pending.go, serverrequest.go). It sits on a transport (conn.go
//     says what one must do): stdio (stdio.go): stdout is read as
//     newline-delimited JSON-RPC by our own reader, lines up to 64 MiB,
//     into buffers from the daemon's memory budget (Options.Budget,
//     §3.9); non-JSON lines are logged and skipped (§7.4). stderr goes to
//     the log line by line with secrets masked, within the server's share
//     of the log (§7.4, §7.5).
//   - HTTP servers (§5.6, §7.9; httprun.go): the HTTP transport
//     (http.go) speaks Streamable HTTP in either era (legacy sessions and
//     their GET stream, httpsession.go; modern request headers,
//     httpheaders.go) or the older HTTP+SSE (httpsse.go); every answer is
//     read in one place, bounded and under the memory budget
//     (httpbody.go, sse.go); a server that cannot be reached is lost,
//     and its pending calls fail at once (httperror.go names the cause).
//     The HTTP client is the supervisor's (httpclient.go): system roots,
//     no redirect to another origin; a plain-http url is reached on the
//     caller's goroutine (httpwire.go).
//   - Servers of either era (§7.8): each is first sent initialize at the
//     newest legacy version (start.go); one that refuses with -32022
//     listing only modern versions (2026-07-28 on) is driven as modern:
//     server/discover, request _meta on every request (meta.go), its own
//     subscriptions/listen for list changes (listen.go). Status.Era
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
//     HTTP servers of both eras get it alike; the span ends with the
//     reply (queued for export, off the call's path: telemetry.Tracer).
//     Without tracing, params are not touched.
//   - The server surface beyond tools (§3.8, §4.8): each run lists the
//     prompts, resources and resource templates its server declares,
//     again on their list_changed (lists.go, capabilities.go); the
//     gateway's resource subscriptions are made in the server's own way
//     and again on each new run (subscribe.go); a legacy server is asked
//     for the log level the aggregator wants (loglevel.go).
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
//     (serverrequest.go), and at most one re-list after the server's
//     list_changed (lists.go); both are counted in
//     conn.handlers, which serveRun waits for;
//   - during a graceful restart, one that waits for the old run's calls
//     (reload.go drainAndStop), which waits for it in turn.
//
// The child is the server itself, in its own process group; the
// daemon's keeper (proc.KeeperCommand) is what takes the servers' trees
// down should the daemon die.
//
// An HTTP server's run has serveHTTPRun (httprun.go) for its whole life,
// the owner of its end: it waits for the server's loss, its child's exit
// or a halt, then fails the pending calls, closes the transport (which
// waits for its goroutines) and stops the child. The transport's
// goroutines, each counted in its WaitGroup: one per request in flight
// (exchange, until its answer is read), the GET stream (listenGET) of a
// legacy server, or the HTTP+SSE stream's reader. With runCmd the child
// has its owner and stderr copier as above, and its stdout (not MCP here)
// is copied to the log by a reader the owner waits for.
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
// DefaultStartTimeout); a list other than tools at a start
// (otherListWait); a modern server's subscription acknowledgment
// (listenAckWait); a resource subscription, its end and a logging/setLevel
// (subscribeWait); a graceful restart's drain (DefaultDrain,
// afterStopWait); and the back-off (BackoffBase, BackoffMax,
// BackoffReset). An HTTP server's: connecting (dialTimeout, tlsTimeout;
// answerPoll while its command starts), a POST that carries no request
// (postTimeout), a pause in the middle of a message (Options.EventStall,
// DefaultEventStall), a new session (renewTimeout), the GET stream's
// reopening (getRetryMin, getRetryMax, getStable), an answer's
// resumption (maxResumes), the ping after a broken answer (probeTimeout),
// the HTTP+SSE endpoint event (endpointWait), DELETE (deleteTimeout) and
// its command's stop (httpCloseWait). No wait bounds an answer's headers:
// the call's context does.
package supervisor
