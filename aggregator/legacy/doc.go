// Package legacy is the session-era front of /mcp (MCP 2024-11-05 …
// 2025-11-25; SPEC §3.2, §3.5–§3.8): the table of legacy sessions, a
// session's POSTs (one message or a batch), its GET stream, its method
// table, the relayed surface beyond tools, its log level, and its
// 2025-11-25 task methods. It relays through package relay and runs
// tasks through package taskrun; it never sees a modern request. The
// gateway (package aggregator) reaches it through Front alone: ServePOST,
// Lookup and End for GET and DELETE, the fan-out of news (NotifyAll,
// Notify), CancelAll, EndStreams and Count.
//
//	front.go     Front, Options, New; Versions; what an ended session
//	             lets go of
//	post.go      a session-era POST (ServePOST): its session found or
//	             opened, its messages and batches
//	sessions.go  the session table: cap, idle expiry, DELETE (§3.5); a
//	             session's running requests; ErrUnknownSession
//	get.go       a session's GET stream and the news it gets (§3.6, §4.5):
//	             list changes, task status, resource updates
//	methods.go   initialize and the method table: ping, logging/setLevel,
//	             the lists (§3.7, §3.8); the one course of a request that
//	             reaches a server (tools/call, prompts/get, resources/read,
//	             completion/complete); resources/subscribe and
//	             unsubscribe (§4.8)
//	peer.go      what a server sends during a session's call, to its client
//	loglevel.go  per-session log levels, the servers' the most verbose (§4.8)
//	tasks.go     a session's tasks (§4.7): task-augmented tools/call,
//	             tasks/get, tasks/result, tasks/list, tasks/cancel
package legacy
