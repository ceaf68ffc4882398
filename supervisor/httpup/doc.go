// Package httpup is the HTTP client of an upstream server (SPEC §5.6,
// §7.9): the Transport under a connection of package supervisor/rpc for a
// server configured with a url. It speaks MCP Streamable HTTP in either
// era, or, where a server offers only that, the older HTTP+SSE.
//
//   - Transport (transport.go, answer.go) is the request/answer path:
//     every message is a POST with the configured headers (never anything
//     of the calling client's); a request's POST runs on the caller's
//     goroutine when its call cannot detach (Inline), else on a goroutine
//     of its own; Close ends every request in flight, the GET stream and
//     a legacy session (DELETE). It holds the parts below.
//   - link (link.go): what the parts share, held by each instead of the
//     Transport: the connection, the url, the transport's lifetime and
//     lock, and the requests every part makes (a POST, its
//     acknowledgment, a GET for a stream, an event's message, the ping
//     of a probe), each with the headers of a protocol: the Transport,
//     or a legacy server's session.
//   - remote (client.go): the url as requests reach it, with the
//     configured headers, every body read under the budget, and the
//     server's loss noticed (failed, Config.Lost).
//   - A legacy server's session (session, session.go): Mcp-Session-Id
//     and MCP-Protocol-Version on every request after initialize, the GET
//     stream for what the server sends unasked, a new session after a 404
//     for the old one. A modern server (toolHeaders, headers.go): no
//     session; the request metadata headers of MCP 2026-07-28
//     (Mcp-Method, Mcp-Name, Mcp-Param-{Name}); cancelling closes the
//     request's stream.
//   - Answers (answer.go): one JSON message or an SSE stream (sse.go),
//     each message to Conn.Dispatch with the id of the request it
//     answered; a stream that ends early is resumed (Last-Event-ID) or
//     fails its call, and a ping then tells whether the server is lost.
//     Every body is read in one place (body.go), bounded, under the
//     daemon's memory budget, and with a bound on a pause in the middle
//     of a message (Config.Stall).
//   - The older HTTP+SSE (sseTransport, legacysse.go): the endpoint
//     event of a GET stream names where to POST; every answer comes on
//     that stream. The Transport hands it every message once the
//     fallback found it.
//   - Errors (errors.go) name the cause: a server that cannot be reached
//     (DNS, connect, TLS, a reset) is lost (Config.Lost), an error status
//     or a body that is not MCP fails its call; urls are shown without
//     userinfo or query (ShownURL), body words masked.
//   - The client (client.go, NewClient) is one per supervisor: system
//     roots, proxies from the environment, no redirect to another origin;
//     a plain-http url without a proxy is reached by a small client of
//     our own on the caller's goroutine (wire.go).
//
// # Goroutines and waits
//
// Each counted in the transport's WaitGroup, which Close waits for: one
// per request in flight not carried inline (until its answer is read),
// the GET stream of a legacy server, or the HTTP+SSE stream's reader.
// Waits: connecting (dialTimeout, tlsTimeout), a POST that carries no
// request (postTimeout), a pause in a message (Config.Stall,
// DefaultEventStall), a new session (renewTimeout), the GET stream's
// reopening (getRetryMin, getRetryMax, getStable), an answer's resumption
// (maxResumes), the ping after a broken answer (probeTimeout), the
// HTTP+SSE endpoint event (endpointWait) and DELETE (deleteTimeout). No
// wait bounds an answer's headers: the call's context does.
//
// When a run starts and ends, and the server's command, are package
// supervisor's (its httprun.go).
package httpup
