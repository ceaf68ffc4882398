// Package modern is the modern front of /mcp (MCP 2026-07-28 and later;
// SPEC §3.1, §3.10): requests with neither initialize nor a session, each
// carrying its protocol version and the client's capabilities in
// params._meta, mirrored in HTTP headers. It owns their shapes: the
// headers checked against the body (-32020, -32022, -32602), every result
// with its resultType, the lists' and reads' ttlMs and cacheScope
// (server/utilities/caching), the MRTR InputRequiredResult and its sealed
// requestState (§4.6), subscriptions/listen and its notifications tagged
// with the subscription id (§4.5, §4.8), and the tasks extension
// (io.modelcontextprotocol/tasks: CreateTaskResult, DetailedTask,
// notifications/tasks; §4.7). It relays through package relay and runs
// tasks through package taskrun; it never sees a session. The gateway
// (package aggregator) reaches it through Front alone: ServePOST, the
// fan-out of news (NotifyLists, NotifyTask), EndStreams, CancelAll and
// Parked; Versions, IsVersion, InMeta and UnsupportedVersion tell the
// front door which era a request is.
//
//	front.go         Front, Options, New; Versions, UnsupportedVersion; what
//	                 the gateway asks of the front
//	modern.go        ServePOST: the method table (§3.10), server/discover,
//	                 a tools/call routed and relayed, a retry's requestState
//	headers.go       the headers against the body: MCP-Protocol-Version,
//	                 Mcp-Method, Mcp-Name, Mcp-Param-{Name}; _meta read once
//	modernsurface.go the lists with their caching hints, a modern
//	                 tools/list (§4.10), prompts/get, resources/read,
//	                 completion/complete, a listen's resourceSubscriptions
//	bridge.go        a modern client's call: attached, detached, parked,
//	                 resumed (§4.6); bridgepeer.go its supervisor.Peer side;
//	                 park.go the rounds, the parked table and expiry
//	listen.go        subscriptions/listen streams and their queues (§4.5)
//	taskmodern.go    the tasks extension (§4.7): gateway-made tasks for a
//	                 legacy server's call, a modern server's own relayed,
//	                 tasks/get, tasks/update, tasks/cancel
//	tasknotify.go    notifications/tasks to the creator's listen streams
//	taskpoll.go      a relayed task's changes, polled for its creator's listen
//	hooks.go         what package aggregator's tests reach inside
package modern
