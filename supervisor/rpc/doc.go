// Package rpc is the JSON-RPC connection to one run of an upstream
// server, above whatever transport carries its messages (SPEC §7): the
// requests the gateway sends and their answers, and what the server sends
// unasked. It is to the transports (packages supervisor/stdio and
// supervisor/httpup) what net/http's Client is to its RoundTripper: Conn
// hands each message to a Transport, and the transport hands each message
// it reads to Conn.Dispatch.
//
//   - Every request gets the connection's own id, so ids of different
//     clients never collide upstream (conn.go, the request path); it
//     stays pending until its answer, ctx's end or the connection's death
//     in the pending-call table (callTable, pending.go), which also holds
//     the death and queues each call's notifications. A client's
//     progressToken is swapped for the request's id and back.
//   - What the server sends goes to the call or client it is for
//     (dispatch.go): responses to their calls, progress and log messages
//     to the call's Peer, in order, without blocking the reader; a
//     server-to-client request is answered (ping) or relayed to the
//     client of the call it came for (relay, serverrequest.go). List
//     changes, resource updates and task status go to the owner's Hooks.
//   - A modern server (SPEC §7.8): every request carries request _meta
//     (meta.go, modern.go); the gateway's own subscriptions/listen are
//     kept here (Subscription and listenSet, listen.go). For a legacy
//     client of a modern server, InputRounds answers its
//     InputRequiredResults by asking the client and retrying on the same
//     connection (inputrounds.go, SPEC §4.6).
//   - A caller may stop waiting for a call that goes on (Detacher,
//     detach.go): its wait passes to DetachedWait.
//   - Telemetry (SPEC §11, telemetryHooks, telemetry.go): each request's
//     duration goes to Hooks.Metrics; a request of a traced call gets a client span whose
//     W3C context replaces traceparent in the params._meta the server
//     receives. Without tracing, params are not touched.
//
// Conn knows no process, url or restart: when a run starts, ends and is
// replaced is package supervisor's. Results, params and errors are
// relayed as raw JSON (package jsonrpc).
//
// # Goroutines
//
// Conn starts one goroutine per call that gets notifications (its
// delivery, pending.go), which the call waits for before it returns; one
// per server-to-client request relayed to a client (serverrequest.go);
// and those its owner asks for with Go. WaitHandlers waits for the last
// two kinds, which the relay counts. The reader that calls Dispatch is the transport's.
package rpc
