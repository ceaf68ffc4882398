// Package aggregator owns what clients see (SPEC §3, §4): the MCP
// Streamable HTTP endpoint on /mcp over the registry of the servers'
// merged tools, prompts, resources and resource templates: the gateway's
// own relay, which reads only each message's envelope and passes every
// other byte through as the client or server wrote it. Its parts are
// packages of their own:
//
//	legacy    the legacy front (§3.2, §3.5–§3.8): the session table, a
//	          session's POSTs, GET stream, methods, surface, log levels and
//	          task methods, reached through legacy.Front
//	modern    the modern front (§3.1, §3.10): MCP 2026-07-28 requests, their
//	          headers, calls bridged across eras and parked (§4.6),
//	          subscriptions/listen (§4.5) and the tasks extension (§4.7),
//	          reached through modern.Front
//	relay     the call spine of every relayed request (§4.3, §4.4, §4.8):
//	          route (relay.Router, tool search's own tools, §4.10), check,
//	          call (relay.Do), result (relay.Outcome); the client rules
//	taskrun   the calls of the tasks kept for callers (§4.7): gateway-made,
//	          followed and relayed (taskrun.Runner)
//	registry  what is served and where each name or URI leads (§4.1–§4.5,
//	          §4.8): the merge, the lists, resource URIs, the capabilities,
//	          resource subscriptions
//	record    what an operator sees of each request (§11): its call line,
//	          call series and server span
//	tasks     the task table and its kinds: ids, owners, limits, TTL, a
//	          made task's state and Task objects (§4.7)
//	auth      who may come in: the bearer token, the Origin (§3.2, §3.4)
//	wire      framing: a body's messages, an answer as JSON or SSE
//	body      a POST body read under its limits and the memory budget (§3.9)
//	names     exported names (§4.2)
//	reqstate  the sealed MRTR requestState (§4.6)
//	toolsearch tool search's index and ranking (§4.10)
//
// They meet here, in the front door, through their own values (a
// relay.Call, a registry.Route, a record.Record, a tasks.Task) and never
// this package's.
//
// The handler is the front door (auth, HTTP method, era); the fronts are
// legacy.Front and modern.Front, which share the taskrun.Runner, the task
// table and the resource subscriptions the handler makes.
//
// Where to find a rule, in the order a request meets them; each file
// uses only the files below it:
//
//	http.go       Gateway.Handler: /mcp behind package auth's Origin check
//	              (§3.4) and bearer token (§3.2), /health (§3.3), /metrics (§11.2)
//	readout.go    what the daemon reads of the gateway: /health, the counts,
//	              the merged tools for the code API (§12)
//	transport.go  /mcp by HTTP method, version header, Accept; a POST's
//	              Content-Type, body (package body: 413, 503, 408) and era:
//	              a legacy POST, GET and DELETE are legacy.Front's, a modern
//	              POST modern.Front's
//	gateway.go    the Gateway and its endpoint's parts (New, newHandler): the
//	              registry swap, list changes, shutdown (§4.5, §7.6), what the
//	              daemon tells it (resource updates, task status), a task's
//	              news to its owner, of either front (§4.7)
//	metrics.go    what /metrics reads at each scrape (§11.2)
//	options.go    HTTPOptions and their defaults
//	recording.go  where a request's record begins (package record: the call
//	              line, the call series and the server span, §11), one place
//	              for both fronts (legacy.Options.Begin, modern.Options.Begin),
//	              its client named
package aggregator
