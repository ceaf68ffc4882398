// Package aggregator owns what clients see (SPEC §3, §4): the merged tool
// registry and its collision naming, and the MCP Streamable HTTP endpoint
// on /mcp: the gateway's own relay, which reads only each message's
// envelope and passes every other byte through as the client or server
// wrote it.
//
// Where to find a rule:
//
//	http.go       Handler, bearer auth (§3.2), Origin (§3.4), /health (§3.3)
//	transport.go  /mcp by HTTP method, version header, Accept, error bodies
//	post.go       POST: body limits, session rule, batches, 202
//	envelope.go   parsing a body into messages (ids, methods) (§4.3)
//	sessions.go   the session table: cap, idle expiry, DELETE (§3.5)
//	get.go        the GET stream and list_changed fan-out (§3.6, §4.5)
//	stream.go     a response as JSON or SSE, keep-alive, write limits
//	methods.go    initialize, ping, logging/setLevel, tools/list (§3.8)
//	gateway.go    tools/call routing and the registry swap (§4.3, §4.5)
//	relay.go      what a server sends during a call, to its client (§4.3)
//	modern.go     MCP 2026-07-28 requests (§3.1, §3.10)
//	registry.go, names.go  the merged list and collision naming (§4.1, §4.2)
//	bridge.go, state.go    server-to-client requests across eras (§4.6)
//	park.go, detach.go     parking a call for its client's retry; running it
//	                       on its request until the server asks (§4.6)
//	tasktable.go  task ids, their binding to callers, limits, TTL (§4.7)
//	tasks.go      gateway-made tasks (2025-11-25 basic/utilities/tasks)
//	tasklegacy.go the task methods of a legacy session (§4.7)
//	taskrelay.go  servers' own tasks, routed by task id to their process
//	taskmodern.go the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks)
//	tasknotify.go task status notifications, to the creator only
//	taskpoll.go   a relayed task's changes, polled for its creator's listen
//	taskfollow.go a server's task followed for a caller of the other era
package aggregator
