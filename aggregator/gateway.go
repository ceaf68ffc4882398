package aggregator

import (
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Gateway is the MCP server clients talk to: the merged tool registry over
// the upstreams, and the /mcp handler that serves it (Handler).
type Gateway struct {
	ups     []*supervisor.Upstream
	byName  map[string]*supervisor.Upstream
	log     *slog.Logger
	version string
	reg     atomic.Pointer[registry]
	states  *reqstate.Sealer // requestStates of the MRTR bridge
	h       *handler         // the endpoint: its sessions, calls, tasks and streams
	tel     Telemetry        // what it tells of its requests (record.go)

	rebuildMu sync.Mutex
}

// New builds the gateway over the upstreams, in config-key order, and its
// endpoint with options o (zero fields take their defaults; a nil
// o.Health serves Gateway.Health). Call Rebuild after the upstreams have
// started. With o.Telemetry.Metrics, the servers' and the endpoint's
// state are registered there (metrics.go); a registry that has them
// already (from another Gateway) is logged and left as it is.
func New(ups []*supervisor.Upstream, version string, log *slog.Logger, o HTTPOptions) *Gateway {
	g := &Gateway{ups: ups, byName: map[string]*supervisor.Upstream{}, log: log, version: version, states: reqstate.NewSealer(), tel: o.Telemetry}
	for _, u := range ups {
		g.byName[u.Name()] = u
	}
	g.reg.Store(emptyRegistry())
	g.h = newHandler(g, o)
	if m := o.Telemetry.Metrics; m != nil {
		if err := m.Register(stateCollector{g}); err != nil {
			log.Error("register the gateway's metrics", "error", err)
		}
	}
	return g
}

// Rebuild recomputes what the gateway serves from the upstreams' current
// lists and notifies every client of each list that changed (SPEC §4.5):
// legacy sessions on their GET stream, modern ones on their
// subscriptions/listen streams that asked for it.
func (g *Gateway) Rebuild() {
	g.rebuildMu.Lock()
	defer g.rebuildMu.Unlock()
	prev := g.reg.Load()
	next := buildRegistry(g.ups, g.log, prev)
	g.reg.Store(next)
	for _, c := range []struct {
		same bool
		kind listKind
	}{{prev.tools.same(next.tools), listTools}, {prev.promptList.same(next.promptList), listPrompts}, {prev.uris.same(&next.uris), listResources}} {
		if !c.same {
			g.h.notifyAll(jsonrpc.Notification(c.kind.method(), nil))
			g.h.notifyListeners(c.kind)
		}
	}
}

// CancelCalls cancels every tools/call still running, for every session:
// each gets a JSON-RPC error (CodeServerUnavailable) with message, and its
// upstream gets notifications/cancelled. The daemon calls it at shutdown,
// once in-flight calls have had their drain time (SPEC §7.6), so that
// their clients get an answer rather than a closed connection.
func (g *Gateway) CancelCalls(message string) {
	cause := &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: message}
	g.EndStreams()
	h := g.h
	for _, s := range h.sessions.all() {
		s.cancelAll(cause)
	}
	h.cancelBridges(cause)
	h.tasks.cancelAll(cause)
}

// EndStreams ends every stream that waits for news rather than for a
// call: the sessions' GET streams, and subscriptions/listen streams, which
// get their closing response (MCP 2026-07-28 subscriptions, Graceful
// Closure). The daemon calls it as shutdown starts, so that the drain
// waits only for calls (SPEC §7.6). The 401 log's last count is dropped
// then: nothing more is logged for the endpoint.
func (g *Gateway) EndStreams() {
	g.h.auth.stop()
	for _, s := range g.h.sessions.all() {
		s.mu.Lock()
		if s.get != nil {
			s.get.stop()
		}
		s.mu.Unlock()
	}
	g.h.stopListeners()
}

// ToolCount returns the number of exported tools.
func (g *Gateway) ToolCount() int { return len(g.reg.Load().tools.items) }

// SessionCount returns the number of live legacy sessions.
func (g *Gateway) SessionCount() int { return g.h.sessions.count() }
