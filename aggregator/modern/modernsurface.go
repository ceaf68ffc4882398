package modern

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file serves modern clients (MCP 2026-07-28) the server surface
// beyond tools (SPEC §3.8, §3.10, §4.8): the merged lists with their
// caching hints, resources/read's caching hints, and the
// resourceSubscriptions of a subscriptions/listen. prompts/get,
// resources/read and completion/complete are relayed as tools/call is
// (modern.go relayModern).

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

// subscribeListed subscribes a listen stream to the URIs of its filter's
// resourceSubscriptions, each routed as resources/read is, and returns
// the acknowledgment's member naming those it could subscribe to ("" when
// it asked for none, or got none). A URI no server owns, or whose server
// refuses, is left out, as MCP's acknowledgment leaves out what a server
// does not honor.
func (f *Front) subscribeListed(ctx context.Context, l *listener, filter json.RawMessage) string {
	raw, _ := jsonrpc.Member(filter, "resourceSubscriptions")
	var uris []string
	if len(raw) == 0 || json.Unmarshal(raw, &uris) != nil || len(uris) == 0 {
		return ""
	}
	var agreed []string
	seen := map[string]bool{}
	for _, uri := range uris {
		if seen[uri] {
			continue
		}
		seen[uri] = true
		u := f.reg.Owner(uri, &f.uris)
		if u == nil {
			continue
		}
		if err := f.subs.Add(ctx, u, uri, l); err != nil {
			f.log.Info("subscriptions/listen: resource subscription refused", "server", u.Name(), "uri", uri, "error", err.Error())
			continue
		}
		agreed = append(agreed, string(jsonrpc.Quote(uri)))
	}
	if len(agreed) == 0 {
		return ""
	}
	return `"resourceSubscriptions":[` + strings.Join(agreed, ",") + `]`
}
