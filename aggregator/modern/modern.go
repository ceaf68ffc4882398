package modern

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file serves modern requests (MCP 2026-07-28, SPEC §3.1, §3.10):
// no initialize and no session; every request carries its protocol
// version and the client's capabilities in params._meta, mirrored in HTTP
// headers (headers.go). The methods are server/discover, tools/list,
// tools/call, the rest of the server surface (SPEC §3.8, §4.8: the
// prompts, resources and templates lists with their caching hints,
// cache.go; prompts/get, resources/read and completion/complete, relayed
// as tools/call is, call.go), subscriptions/listen (listen.go) and the
// tasks extension's tasks/get, tasks/update, tasks/cancel
// (taskmodern.go); any other is 404 with -32601.

// ServePOST answers a modern POST: one request (a notification gets 202;
// there are no batches and no client responses in 2026-07-28). version is
// the request's MCP-Protocol-Version header, read once; jsonOK and sseOK
// are what its Accept admits (none sent admits both).
func (f *Front) ServePOST(w http.ResponseWriter, r *http.Request, msgs []*wire.Message, batch, jsonOK, sseOK bool, version string) {
	if batch {
		wire.WriteError(w, wire.BadRequest(jsonrpc.CodeInvalidRequest, "Invalid Request: MCP 2026-07-28 has no JSON-RPC batches; POST one request"))
		return
	}
	m := msgs[0]
	switch {
	case m.IsNotification():
		w.WriteHeader(http.StatusAccepted) // notifications/cancelled is stdio's; closing the stream cancels here
		return
	case m.IsResponse():
		wire.WriteError(w, wire.BadRequest(jsonrpc.CodeInvalidRequest, "Invalid Request: MCP 2026-07-28 clients send no responses over HTTP (MRTR carries input in the retried request)"))
		return
	}
	rec := f.begin(m, "", r) // Options.Begin: ends once the answer is written
	defer rec.End()
	req, herr := validateModern(r, m, version, f.supported)
	if herr != nil {
		rec.HTTPFailed(herr)
		herr.ID = m.ID
		wire.WriteError(w, herr)
		return
	}
	req.accept, req.rec = accepted{jsonOK, sseOK}, rec
	switch m.Method {
	case "server/discover":
		wire.WriteResult(w, m.ID, discoverResult(f.reg, f.version, f.supported))
	case "tools/list":
		f.modernToolsList(w, r, req) // SPEC §4.10
	case "prompts/list", "resources/list", "resources/templates/list", "prompts/get", "resources/read", "completion/complete":
		f.modernSurface(w, r, req)
	case "tools/call":
		f.tasks.dropLegacy(req)
		if f.tasks.call(w, r, req) { // taskmodern.go (SPEC §4.7)
			return
		}
		f.modernCall(w, r, req)
	case "tasks/get", "tasks/update", "tasks/cancel":
		f.tasks.serve(w, r, req) // taskmodern.go (SPEC §4.7)
	case "subscriptions/listen":
		f.listeners.serve(w, r, req) // listen.go
	default:
		wire.WriteRPCError(w, http.StatusNotFound, m.ID, jsonrpc.CodeMethodNotFound,
			fmt.Sprintf("Method not found: %s (the gateway serves server/discover, the tools, prompts, resources and templates lists, tools/call, "+
				"prompts/get, resources/read, completion/complete, subscriptions/listen and tasks/get, tasks/update, tasks/cancel)", m.Method), nil)
	}
}

// discoverResult is the gateway's DiscoverResult (server/discover): every
// version it speaks (supported, modern first), its capabilities (reg's)
// and serverInfo (version).
func discoverResult(reg *registry.Registry, version string, supported []string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"resultType":        "complete",
		"supportedVersions": append([]string{}, supported...),
		"capabilities":      reg.Capabilities().Object(map[string]any{"extensions": map[string]any{extTasks: struct{}{}}}),
		"_meta":             map[string]any{metaServerInfo: map[string]string{"name": "mcp-gateway", "version": version}},
		"ttlMs":             cacheTTL.Milliseconds(),
		"cacheScope":        "private",
	})
	return b
}

// modernCall relays a modern tools/call as a bridged call (bridge.go):
// closing its response stream cancels it upstream (MCP 2026-07-28
// Cancellation); its progress and log messages (at or above _meta's
// logLevel) travel on its own SSE response; a retry with a requestState
// resumes a parked call or reaches the server process that issued it.
func (f *Front) modernCall(w http.ResponseWriter, r *http.Request, req *modernReq) {
	c, err := modernRoute(f.router, req)
	relay.Unnamed(req.rec, c, err) // toolsearch.go
	if err == nil {
		req.rec.Routed(c.Name, c.Route.Upstream.Name(), c.Route.Name)
		if e := checkParamHeaders(r, req.Params, c.ParamHeaders()); e != nil {
			req.rec.HTTPFailed(e)
			e.ID = req.ID
			wire.WriteError(w, e)
			return
		}
		if e := taskRequired(req.caps, c.Name, c.Route); e != nil {
			wire.WriteParts(w, http.StatusBadRequest, req.rec.ErrorParts(req.ID, e))
			return
		}
	}
	c.Mem = &f.uris
	f.relayModern(w, r, req, c, err)
}

// modernSurface answers a modern request of the surface beyond tools: a
// method whose capability no server offers is 404 with -32601, as an
// unknown method is.
func (f *Front) modernSurface(w http.ResponseWriter, r *http.Request, req *modernReq) {
	if !f.reg.Capabilities().Serves(req.Method) {
		wire.WriteParts(w, http.StatusNotFound, wire.ErrorParts(req.ID, registry.NotOffered(req.Method)))
		return
	}
	switch req.Method {
	case "prompts/get", "resources/read", "completion/complete":
		c, err := f.router.Request(req.Method, req.Params, &f.uris)
		f.relayModern(w, r, req, c, err)
	default:
		f.modernList(w, req)
	}
}

// modernList answers a list method: the page, with resultType, ttlMs and
// cacheScope added.
func (f *Front) modernList(w http.ResponseWriter, req *modernReq) {
	l, _ := f.reg.Load().List(req.Method)
	cursor, err := registry.CursorOf(req.Params)
	var page json.RawMessage
	if err == nil {
		page, err = l.Page(cursor)
	}
	modernPage(w, req, page, err)
}

// modernToolsList answers a modern tools/list: the list the request's
// query parameter tools chose, else the gateway's setting's.
func (f *Front) modernToolsList(w http.ResponseWriter, r *http.Request, req *modernReq) {
	c, herr := relay.ToolsQuery(r)
	if herr != nil {
		req.rec.HTTPFailed(herr)
		herr.ID = req.ID
		wire.WriteError(w, herr)
		return
	}
	cursor, err := registry.CursorOf(req.Params)
	var page json.RawMessage
	if err == nil {
		page, err = f.router.ToolsPage(c, cursor)
	}
	modernPage(w, req, page, err)
}

// modernPage writes a list method's page (or err, its -32602) as
// modernList answers.
func modernPage(w http.ResponseWriter, req *modernReq, page json.RawMessage, err error) {
	if err != nil {
		wire.WriteParts(w, http.StatusBadRequest, wire.ErrorParts(req.ID, err))
		return
	}
	tail := fmt.Sprintf(`,"resultType":"complete","ttlMs":%d,"cacheScope":%q}`, listCache.ttlMs, listCache.scope)
	wire.WriteParts(w, http.StatusOK, wire.ResultParts(req.ID, append(page[:len(page)-1:len(page)-1], tail...)))
}
