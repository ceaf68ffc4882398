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
// Each file uses only files listed below it:
//
//	modern.go        ServePOST: the method table (§3.10), server/discover,
//	                 a tools/call checked and relayed (modernCall), the
//	                 lists with their caching hints, a modern tools/list
//	                 (§4.10), prompts/get, resources/read,
//	                 completion/complete
//	call.go          a request relayed as a bridged call: a retry's
//	                 requestState opened, a parked call resumed
//	listen.go        subscriptions/listen served: its filter, taskIds and
//	                 resourceSubscriptions, the acknowledgment (§4.5)
//	front.go         Front, Options, New; what the gateway asks of the
//	                 front, and ExpireParked for package aggregator's tests
//	taskpoll.go      a relayed task's changes, polled for its creator's listen
//	bridge.go        a modern client's call run: inline or parkable,
//	                 attached, detached, awaited, finished (§4.6)
//	taskmodern.go    the tasks extension (§4.7): gateway-made tasks for a
//	                 legacy server's call, a modern server's own relayed,
//	                 tasks/get, tasks/update, tasks/cancel
//	park.go          a bridged call's supervisor.Peer side; the rounds,
//	                 the parked table and expiry
//	listeners.go     the open subscriptions/listen streams and their
//	                 queues; notifications/tasks to the creator's streams
//	headers.go       the headers against the body: MCP-Protocol-Version,
//	                 Mcp-Method, Mcp-Name, Mcp-Param-{Name}
//	bridgecall.go    a bridged call: its states and their moves, its asks
//	cache.go         the caching hints: ttlMs and cacheScope
//	request.go       what a modern request is: its versions, its _meta read
//	                 once, modernReq, the error codes, resultType; a
//	                 tools/call routed by its name
package modern
