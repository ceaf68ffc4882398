package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Gateway is the MCP server clients talk to: the merged tool registry over
// the upstreams, and the /mcp handlers that serve it (Handler).
type Gateway struct {
	ups     []*supervisor.Upstream
	log     *slog.Logger
	version string
	reg     atomic.Pointer[registry]
	states  *reqstate.Sealer // requestStates of the MRTR bridge

	rebuildMu sync.Mutex

	handlersMu sync.Mutex
	handlers   []*handler
}

// New builds the gateway over the upstreams, in config-key order. Call
// Rebuild after the upstreams have started.
func New(ups []*supervisor.Upstream, version string, log *slog.Logger) *Gateway {
	g := &Gateway{ups: ups, log: log, version: version, states: reqstate.NewSealer()}
	g.reg.Store(&registry{routes: map[string]route{}})
	return g
}

// listChanged is notifications/tools/list_changed.
var listChanged = jsonrpc.Notification("notifications/tools/list_changed", nil)

// Rebuild recomputes the merged tool list from the upstreams' current tools
// and, if it changed, notifies every session on its GET stream (SPEC
// §4.5).
func (g *Gateway) Rebuild() {
	g.rebuildMu.Lock()
	defer g.rebuildMu.Unlock()
	next := buildRegistry(g.ups, g.log)
	prev := g.reg.Swap(next)
	if sameList(prev.tools, next.tools) {
		return
	}
	for _, h := range g.allHandlers() {
		h.notifyAll(listChanged)
		h.notifyListeners()
	}
}

func sameList(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if string(a[i]) != string(b[i]) {
			return false
		}
	}
	return true
}

// CancelCalls cancels every tools/call still running, for every session:
// each gets a JSON-RPC error (CodeServerUnavailable) with message, and its
// upstream gets notifications/cancelled. The daemon calls it at shutdown,
// once in-flight calls have had their drain time (SPEC §7.6), so that
// their clients get an answer rather than a closed connection.
func (g *Gateway) CancelCalls(message string) {
	cause := &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: message}
	g.EndStreams()
	for _, h := range g.allHandlers() {
		for _, s := range h.sessions.all() {
			s.cancelAll(cause)
		}
		h.cancelBridges(cause)
		h.tasks.cancelAll(cause)
	}
}

// EndStreams ends every stream that waits for news rather than for a
// call: the sessions' GET streams, and subscriptions/listen streams, which
// get their closing response (MCP 2026-07-28 subscriptions, Graceful
// Closure). The daemon calls it as shutdown starts, so that the drain
// waits only for calls (SPEC §7.6).
func (g *Gateway) EndStreams() {
	for _, h := range g.allHandlers() {
		for _, s := range h.sessions.all() {
			s.mu.Lock()
			if s.get != nil {
				s.get.stop()
			}
			s.mu.Unlock()
		}
		h.stopListeners()
	}
}

// ToolCount returns the number of exported tools.
func (g *Gateway) ToolCount() int { return len(g.reg.Load().tools) }

// SessionCount returns the number of live legacy sessions over every
// handler.
func (g *Gateway) SessionCount() int {
	n := 0
	for _, h := range g.allHandlers() {
		n += h.sessions.count()
	}
	return n
}

func (g *Gateway) allHandlers() []*handler {
	g.handlersMu.Lock()
	defer g.handlersMu.Unlock()
	return g.handlers
}

// callTool relays a tools/call (SPEC §4.3): the exported name is routed to
// its server and replaced by the tool's original name; every other byte of
// params reaches the server as the client sent it. A progressToken must be
// a string or a number (MCP, Progress); the supervisor swaps it for its
// own and restores it on the way back.
//
// Errors: *jsonrpc.Error, either the server's own (code, message and data
// unchanged, SPEC §4.4) or the gateway's: -32602 for an unknown tool or
// bad params, CodeServerUnavailable when the server could not serve, or
// the cause a shutdown cancelled the call with.
func (g *Gateway) callTool(ctx context.Context, params json.RawMessage, p supervisor.Peer) (json.RawMessage, error) {
	res, _, _, err := g.callToolRun(ctx, 0, params, p)
	return res, err
}

// toolRoute returns the route of a tools/call's params.name.
func (g *Gateway) toolRoute(params json.RawMessage) (route, string, error) {
	if params == nil || params[0] != '{' {
		return route{}, "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: tools/call needs {\"name\": ..., \"arguments\": {...}}"}
	}
	rawName, _ := jsonrpc.Member(params, "name")
	name, ok := jsonrpc.Text(rawName)
	if !ok {
		return route{}, "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: tools/call needs a string \"name\""}
	}
	rt, err := g.routeNamed(name)
	return rt, name, err
}

// routeNamed returns the route of an exported tool name; -32602 if there
// is none.
func (g *Gateway) routeNamed(name string) (route, error) {
	rt, ok := g.reg.Load().routes[name]
	if !ok {
		return route{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool: %q", name)}
	}
	return rt, nil
}

// callToolRun is callTool on one process of the server (run; 0: any, see
// supervisor.Upstream.CallRun), returning the process that served it and
// the route taken.
func (g *Gateway) callToolRun(ctx context.Context, run uint64, params json.RawMessage, p supervisor.Peer) (json.RawMessage, uint64, route, error) {
	rt, name, err := g.toolRoute(params)
	if err != nil {
		return nil, 0, rt, err
	}
	res, served, err := g.callRoute(ctx, rt, name, run, params, p)
	return res, served, rt, err
}

// callRoute is callToolRun with the route of params.name (the exported
// name) already found.
func (g *Gateway) callRoute(ctx context.Context, rt route, name string, run uint64, params json.RawMessage, p supervisor.Peer) (json.RawMessage, uint64, error) {
	if err := checkProgressToken(params); err != nil {
		return nil, 0, err
	}
	return g.callChecked(ctx, rt, name, run, params, p)
}

// callChecked is callRoute for params whose progressToken the caller has
// checked (a modern call's, read in validateModern's one scan).
func (g *Gateway) callChecked(ctx context.Context, rt route, name string, run uint64, params json.RawMessage, p supervisor.Peer) (json.RawMessage, uint64, error) {
	if rt.tool != name {
		params, _ = jsonrpc.Replace(params, "name", jsonrpc.Quote(rt.tool))
	}
	res, served, err := rt.upstream.CallRun(ctx, run, "tools/call", params, p)
	var d *supervisor.DetachedCall
	if errors.As(err, &d) {
		return nil, served, err // the call goes on: callDetached has the rest
	}
	return g.callResult(ctx, rt, res, served, err)
}

// callDetached waits, on ctx (the call's own, in place of its request's),
// for a call its caller stopped waiting for (a parked bridged call,
// bridge.go) and returns what callChecked would have.
func (g *Gateway) callDetached(ctx context.Context, rt route, d *supervisor.DetachedCall) (json.RawMessage, uint64, error) {
	res, served, err := d.Wait(ctx)
	return g.callResult(ctx, rt, res, served, err)
}

// callResult is a call's outcome as the client gets it: an error as a
// *jsonrpc.Error (the server's own, the gateway's reason for cancelling,
// -32602 for a run that ended, else CodeServerUnavailable), and a result
// that is a JSON object.
func (g *Gateway) callResult(ctx context.Context, rt route, res json.RawMessage, served uint64, err error) (json.RawMessage, uint64, error) {
	if err != nil {
		var why *jsonrpc.Error
		if ctx.Err() != nil && errors.As(context.Cause(ctx), &why) {
			return nil, 0, why // cancelled by the gateway, which says why (CancelCalls)
		}
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return nil, 0, rpcErr
		}
		if errors.Is(err, supervisor.ErrRunEnded) {
			return nil, 0, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		}
		return nil, 0, &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: err.Error()}
	}
	if t := trimSpace(res); len(t) == 0 || t[0] != '{' {
		return nil, 0, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("server %q answered tools/call with a result that is not a JSON object", rt.upstream.Name())}
	}
	return res, served, nil
}

// checkProgressToken refuses a params._meta.progressToken that is neither
// a string nor a number (MCP, Progress: ProgressToken = string | number):
// null made progress notifications carry "progressToken":null to a client
// that never asked for them.
func checkProgressToken(params json.RawMessage) error {
	meta, metas := onlyMember(params, "_meta")
	var tok json.RawMessage
	var toks int
	if metas == 1 && meta[0] == '{' {
		tok, toks = onlyMember(meta, "progressToken")
	}
	return progressTokenError(metas, tok, toks)
}

// progressTokenError is checkProgressToken's verdict on what a scan found:
// metas _meta members in params, and in the (last) one, toks
// progressToken members, the last being tok.
func progressTokenError(metas int, tok json.RawMessage, toks int) error {
	// Twice, the gateway would swap one while the server read the other,
	// and its progress would reach another client's call (found by an
	// adversarial review): refused.
	switch {
	case metas > 1:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: _meta appears more than once"}
	case toks > 1:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: _meta.progressToken appears more than once"}
	case toks == 0:
		return nil
	}
	if c := tok[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("invalid _meta.progressToken %s: want a string or a number", tok)}
}

// onlyMember returns obj's member key (the last, if repeated) and how
// many there are, in one scan.
func onlyMember(obj []byte, key string) (json.RawMessage, int) {
	var (
		v json.RawMessage
		n int
	)
	_ = jsonrpc.Members(obj, func(k, val []byte) bool {
		if jsonrpc.KeyIs(k, key) {
			v, n = val, n+1
		}
		return true
	})
	return v, n
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}
