package modern

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// This file serves modern clients (MCP 2026-07-28) the server surface
// beyond tools (SPEC §3.8, §3.10, §4.8): the merged lists with their
// caching hints (cache.go) and a modern tools/list. prompts/get,
// resources/read and completion/complete are relayed as tools/call is
// (call.go relayModern); the resourceSubscriptions of a
// subscriptions/listen are its own (listen.go).

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
	page, err := l.Page(registry.CursorOf(req.Params))
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
	page, err := f.router.ToolsPage(c, registry.CursorOf(req.Params))
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
