package aggregator

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/aggregator/auth"
	"github.com/mcp-gateway/mcp-gateway/aggregator/body"
	"github.com/mcp-gateway/mcp-gateway/aggregator/legacy"
	"github.com/mcp-gateway/mcp-gateway/aggregator/modern"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/aggregator/taskrun"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Gateway is the MCP server clients talk to: the merged tool registry over
// the upstreams, and the /mcp handler that serves it (Handler).
type Gateway struct {
	ups     []*supervisor.Upstream
	log     *slog.Logger
	version string
	reg     *registry.Registry // what it serves: tools, prompts, resources, subscriptions' routes
	states  *reqstate.Sealer   // requestStates of the MRTR bridge
	h       *handler           // the endpoint: its sessions, calls, tasks and streams
	tel     Telemetry          // what it tells of its requests (package record)
	router  *relay.Router      // routes every front's relayed requests (package relay)

	rebuildMu sync.Mutex
	onTools   func() // OnToolsChanged's hook, under rebuildMu
}

// New builds the gateway over the upstreams, in config-key order, and its
// endpoint with options o (zero fields take their defaults; a nil
// o.Health serves Gateway.Health). Call Rebuild after the upstreams have
// started. With o.Telemetry.Metrics, the servers' and the endpoint's
// state are registered there (metrics.go); a registry that has them
// already (from another Gateway) is logged and left as it is.
func New(ups []*supervisor.Upstream, version string, log *slog.Logger, o HTTPOptions) *Gateway {
	g := &Gateway{ups: ups, log: log, version: version, reg: registry.New(ups, log), states: reqstate.NewSealer(), tel: o.Telemetry}
	g.router = relay.NewRouter(g.reg, o.ToolSearch, o.ToolSearchThreshold)
	g.h = newHandler(g, o)
	if m := o.Telemetry.Metrics; m != nil {
		h := g.h
		c := stateCollector{ups: ups, sessions: h.legacy.Count, parked: h.modern.Parked,
			tasks: func() int { n, _ := h.tasks.Usage(); return n }}
		if err := m.Register(c); err != nil {
			log.Error("register the gateway's metrics", "error", err)
		}
	}
	return g
}

// handler serves /mcp for one Gateway.
type handler struct {
	o      HTTPOptions
	legacy *legacy.Front // legacy sessions (package legacy)
	modern *modern.Front // modern requests (package modern)
	bodies body.Reader   // POST bodies, within their limits and the memory budget (package body)

	tasks   *tasks.Table            // tasks made or relayed for callers (package tasks)
	runner  *taskrun.Runner         // their calls (package taskrun)
	subs    *registry.Subscriptions // resource subscriptions (registry.Subscriptions)
	auth    *auth.Log               // 401s, logged at a bounded rate (package auth)
	records recorder                // where each request's record begins, for both fronts (recording.go)
	// baseCtx is every bridged call's parent; cancelBase ends them all
	// (CancelCalls, at shutdown).
	baseCtx    context.Context
	cancelBase context.CancelCauseFunc
}

// newHandler makes g's /mcp handler with o's defaults filled in.
func newHandler(g *Gateway, o HTTPOptions) *handler {
	o = o.withDefaults()
	h := &handler{o: o, records: recorder{tel: &g.tel}, bodies: body.Reader{Budget: o.Budget, MaxBytes: o.MaxBodyBytes, Timeout: o.BodyTimeout},
		tasks: tasks.NewTable(o.Tasks), subs: registry.NewSubscriptions(), auth: auth.NewLog(g.log)}
	h.baseCtx, h.cancelBase = context.WithCancelCause(context.Background())
	h.runner = taskrun.New(h.tasks, h.baseCtx, h.taskChanged)
	h.modern = modern.New(modern.Options{Registry: g.reg, Router: g.router, Runner: h.runner, Tasks: h.tasks, Subscriptions: h.subs,
		States: g.states, Version: g.version, Supported: supportedVersions(), Log: g.log, Begin: h.records.begin, TaskChanged: h.taskChanged,
		Base: h.baseCtx, StateTTL: o.StateTTL})
	h.legacy = legacy.New(legacy.Options{Registry: g.reg, Router: g.router, Runner: h.runner, Tasks: h.tasks, Subscriptions: h.subs,
		Upstreams: g.ups, Version: g.version, Log: g.log, Begin: h.records.begin, MaxSessions: o.MaxSessions, SessionTimeout: o.SessionTimeout})
	return h
}

// taskChanged notifies t's owner of its current state (SPEC §4.7): a
// legacy session gets notifications/tasks/status on its GET stream, a
// modern caller notifications/tasks on its listen streams that named t
// (modern.Front.NotifyTask).
func (h *handler) taskChanged(t *tasks.Task) {
	if id, ok := strings.CutPrefix(t.Owner, "session:"); ok {
		h.legacy.Notify(id, jsonrpc.Notification("notifications/tasks/status", t.Snapshot()))
		return
	}
	h.modern.NotifyTask(t)
}

// supportedVersions is every version the gateway speaks, modern first.
func supportedVersions() []string { return append(slices.Clone(modern.Versions), legacy.Versions...) }

// Rebuild recomputes what the gateway serves from the upstreams' current
// lists and notifies every client of each list that changed (SPEC §4.5):
// legacy sessions on their GET stream, modern ones on their
// subscriptions/listen streams that asked for it.
func (g *Gateway) Rebuild() {
	g.rebuildMu.Lock()
	defer g.rebuildMu.Unlock()
	changed := g.reg.Rebuild()
	for _, kind := range changed {
		g.h.legacy.NotifyAll(jsonrpc.Notification(kind.Method(), nil))
		g.h.modern.NotifyLists(kind)
	}
	g.toolsChanged(changed)
}

// OnToolsChanged sets fn to be called after every Rebuild that changed
// the merged tool list (SPEC §4.5, §12.1), with the new list already
// served. fn runs on the rebuilding goroutine, under the rebuild's lock:
// it must return at once (e.g. signal a goroutine of its own). nil: none.
func (g *Gateway) OnToolsChanged(fn func()) {
	g.rebuildMu.Lock()
	g.onTools = fn
	g.rebuildMu.Unlock()
}

// toolsChanged calls the OnToolsChanged hook if kinds holds the tools.
// Called with rebuildMu held.
func (g *Gateway) toolsChanged(kinds []registry.ListKind) {
	if g.onTools == nil {
		return
	}
	for _, k := range kinds {
		if k == registry.ListTools {
			g.onTools()
			return
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
	h.legacy.CancelAll(cause)
	h.modern.CancelAll(cause)
	h.cancelBase(cause)
	h.tasks.CancelAll(cause)
}

// EndStreams ends every stream that waits for news rather than for a
// call: the sessions' GET streams, and subscriptions/listen streams, which
// get their closing response (MCP 2026-07-28 subscriptions, Graceful
// Closure). The daemon calls it as shutdown starts, so that the drain
// waits only for calls (SPEC §7.6). The 401 log's last count is dropped
// then: nothing more is logged for the endpoint.
func (g *Gateway) EndStreams() {
	g.h.auth.Stop()
	g.h.legacy.EndStreams()
	g.h.modern.EndStreams()
}

// ResourceUpdated relays a server's notifications/resources/updated for
// the subscribed uri to the clients subscribed to it (SPEC §4.8). The
// daemon calls it from supervisor.Options.OnResourceUpdated; it does not
// block.
func (g *Gateway) ResourceUpdated(server, uri string, params json.RawMessage) {
	g.h.subs.Deliver(server, uri, params)
}

// TaskStatus relays a server's task status notification (see
// supervisor.Options.OnTaskStatus) to the creator of the task it names,
// with the gateway's task id: a legacy session, on its GET stream. A
// notification for a task the gateway does not know is dropped.
func (g *Gateway) TaskStatus(server string, run uint64, method string, params json.RawMessage) {
	id, ok := jsonrpc.Text(jsonrpc.Value(params, "taskId"))
	if !ok {
		return
	}
	t := g.h.tasks.Relayed(server, run, id)
	if t == nil {
		return
	}
	sid, legacy := strings.CutPrefix(t.Owner, "session:")
	if p, err := jsonrpc.Replace(params, "taskId", jsonrpc.Quote(t.ID)); err == nil && legacy {
		g.h.legacy.Notify(sid, jsonrpc.Notification(method, p))
	}
}
