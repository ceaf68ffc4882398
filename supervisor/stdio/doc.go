// Package stdio is the transport of a server that speaks MCP over its
// stdin and stdout (MCP basic/transports "stdio"; SPEC §7.4): one
// JSON-RPC message per line, each way, under a connection of package
// supervisor/rpc.
//
//   - Out: a message and a newline are written to the child's stdin,
//     one at a time, within writeTimeout; a child that stops reading for
//     that long is killed, so no call hangs on a full pipe. A request is
//     written like any message (stdio ties no answer to it), and a call
//     is cancelled with notifications/cancelled, the only signal.
//   - In: Transport.Read reads stdout with the JSON-RPC reader of
//     package jsonrpc, lines up to 64 MiB, each into a buffer of its own
//     from the daemon's memory budget (internal/budget, SPEC §3.9); it
//     becomes the message without a copy. A line that is not JSON-RPC is
//     logged (masked) and skipped; a line too long or too deep to decode
//     fails the call it answers, when its id can be found.
//
// Read runs on the goroutine of the run's owner (package supervisor's
// serveRun), which ends the run when stdout ends. The child itself, its
// pipes and its stderr are package supervisor/proc's.
package stdio
