// Package aggregator owns what clients see (SPEC §3, §4): the MCP
// Streamable HTTP endpoint on /mcp over the registry of the servers'
// merged tools, prompts, resources and resource templates: the gateway's
// own relay, which reads only each message's envelope and passes every
// other byte through as the client or server wrote it. Its leaves are
// packages of their own:
//
//	registry  what is served and where each name or URI leads (§4.1–§4.5,
//	          §4.8): the merge, the lists, resource URIs, the capabilities,
//	          resource subscriptions
//	record    what an operator sees of each request (§11): its call line,
//	          call series and server span
//	tasks     the task table and its kinds: ids, owners, limits, TTL, a
//	          made task's state and Task objects (§4.7)
//	auth      who may come in: the bearer token, the Origin (§3.2, §3.4)
//	wire      framing: a body's messages, an answer as JSON or SSE
//	names     exported names (§4.2)
//	reqstate  the sealed MRTR requestState (§4.6)
//
// They meet here, in the fronts and the call spine (call.go), through
// their own values (a registry.Route, a record.Record, a tasks.Task) and never this
// package's.
//
// The handler is the fronts: a legacy session's methods and a modern
// request's. What they share are types of their own, each holding only
// what it uses: bridges (bridge.go: modern calls that may park, their
// table and expiry), taskRunner (tasks.go: the calls of gateway-made,
// followed and relayed tasks, over the tasks.Table), listeners (listen.go:
// the subscriptions/listen streams and the news they get) and sessions
// (sessions.go: the session table, the GET streams' news).
//
// Where to find a rule, in the order a request meets them:
//
//	http.go       New's one handler: /mcp behind package auth's Origin check (§3.4)
//	              and bearer token (§3.2), /health (§3.3), /metrics (§11.2)
//	transport.go  /mcp by HTTP method, version header, Accept
//	post.go       POST: session rule, batches, 202; body.go reads the body
//	              under the memory budget (§3.9: 413, 503, 408)
//	sessions.go   the legacy session table: cap, idle expiry, DELETE (§3.5)
//	methods.go    a session's method table: initialize, ping, logging/setLevel,
//	              the lists, tools/call (§3.7, §3.8); surface.go the rest of
//	              the surface: prompts/get, resources/read, completion/complete,
//	              resources/subscribe and unsubscribe (§4.8)
//	modern.go     MCP 2026-07-28 requests (§3.1, §3.10); headers.go checks
//	              their headers against the body; modernsurface.go the lists'
//	              and reads' caching hints, a listen's resourceSubscriptions
//	call.go       the spine of every relayed request: route, check, call,
//	              result (§4.3, §4.4), and what hangs off it; route.go routes
//	              prompts/get, resources/read and completion/complete (§4.8)
//	peer.go       what a server sends during a session's call, to its client
//	bridge.go     a modern client's call: attached, detached, parked, resumed
//	              (§4.6), run on its request until the server asks;
//	              bridgepeer.go its Peer side; park.go the rounds and expiry
//	get.go        a session's GET stream and list_changed fan-out (§3.6, §4.5)
//	listen.go     subscriptions/listen streams (§3.10, §4.5)
//	loglevel.go   per-session log levels, the servers' the most verbose (§4.8)
//	gateway.go    the Gateway: the registry swap, list changes, shutdown (§4.5, §7.6)
//	updates.go    a server's resources/updated, to the subscribed clients
//	              (registry.Subscriptions), each in its era's way (§4.8)
//	health.go     the /health document (§3.3)
//	recording.go  where a request's record begins (package record: the call
//	              line, the call series and the server span, §11), one place
//	              per front (serveSession, serveModern), its client named;
//	              metrics.go what /metrics reads at each scrape (§11.2)
//	tasks.go      gateway-made tasks (2025-11-25 basic/utilities/tasks);
//	              taskRunner, which runs every task's call
//	tasklegacy.go the task methods of a legacy session
//	taskmodern.go the 2026-07-28 tasks extension (io.modelcontextprotocol/tasks)
//	taskrelay.go  servers' own tasks, routed by task id to their process
//	tasknotify.go task status notifications, to the creator only
//	taskpoll.go   a relayed task's changes, polled for its creator's listen
//	taskfollow.go a server's task followed for a caller of the other era
//	toolsearch.go tool search (§4.10): search mode's tools/list by query or
//	              setting, search_tools, call_tool as the direct call it names
package aggregator
