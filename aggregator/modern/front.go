package modern

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/aggregator/taskrun"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is the modern front (MCP 2026-07-28, SPEC §3.1, §3.10): what
// it holds and serves over (Front, Options), what it hands its bridges
// (relayModernTask), and what the rest of the gateway asks of it (the
// fan-out of news, EndStreams, CancelAll, Parked, and ExpireParked for
// package aggregator's tests). A modern POST is served by ServePOST
// (modern.go) and the Front methods it calls (call.go), in files that
// stand on this one; this one stands on the parts a Front holds: the
// listen streams (listeners.go) and the bridges (bridgecall.go, park.go).

// Front serves modern requests: their methods (modern.go), their calls
// bridged to the servers (call.go, then bridge.go and park.go), and,
// through the parts it holds, their tasks (modernTasks, taskmodern.go)
// and their subscriptions/listen streams (listeners: listen.go,
// listeners.go, taskpoll.go), over what Options gives it.
type Front struct {
	reg       *registry.Registry
	router    *relay.Router
	runner    *taskrun.Runner
	states    *reqstate.Sealer
	version   string
	supported []string
	log       *slog.Logger
	begin     func(m *wire.Message, session string, hr *http.Request) *record.Record

	// uris is the URI memory of modern callers, who share the token
	// (registry.Memory).
	uris      registry.Memory
	tasks     *modernTasks // the tasks extension (taskmodern.go)
	listeners *listeners   // open subscriptions/listen streams (listen.go, listeners.go)
	bridges   *bridges     // modern clients' calls, and the parked ones (bridge.go)
}

// Options is what a Front serves over: the gateway's registry and router,
// its task runner and table, the resource subscriptions, the sealer of
// requestStates (SPEC §4.6), the gateway's version (serverInfo) and every
// protocol version it speaks, modern first (Supported: server/discover's
// supportedVersions, -32022's data), its log, Begin, which starts a
// request's record (session is always "" here), and TaskChanged, which
// tells a task's owner that it changed (Front.NotifyTask for a modern
// one). Base is every bridged call's and task poll's parent: its end
// cancels them all (at shutdown, after CancelAll). StateTTL is how long
// a parked call waits for its retry (HTTPOptions.StateTTL).
type Options struct {
	Registry      *registry.Registry
	Router        *relay.Router
	Runner        *taskrun.Runner
	Tasks         *tasks.Table
	Subscriptions *registry.Subscriptions
	States        *reqstate.Sealer
	Version       string
	Supported     []string
	Log           *slog.Logger
	Begin         func(m *wire.Message, session string, hr *http.Request) *record.Record
	TaskChanged   func(t *tasks.Task)
	Base          context.Context
	StateTTL      time.Duration
}

// New makes the modern front over o.
func New(o Options) *Front {
	f := &Front{reg: o.Registry, router: o.Router, runner: o.Runner, states: o.States,
		version: o.Version, supported: o.Supported, log: o.Log, begin: o.Begin}
	f.tasks = &modernTasks{router: o.Router, runner: o.Runner, table: o.Tasks, uris: &f.uris, changed: o.TaskChanged}
	f.listeners = &listeners{log: o.Log, reg: o.Registry, subs: o.Subscriptions, uris: &f.uris, table: o.Tasks, runner: o.Runner, base: o.Base,
		set: map[*listener]struct{}{}}
	f.bridges = &bridges{states: o.States, log: o.Log, stateTTL: o.StateTTL, base: o.Base, relayTask: f.relayModernTask, parked: map[string]*bridgeCall{}}
	return f
}

// relayModernTask registers a modern server's CreateTaskResult
// ({"resultType": "task", "taskId", "ttlMs", …}; the caller has read its
// resultType) for the caller (owner) and rewrites its taskId; parent is
// the context of the call that made it (its trace, the gateway's base).
func (f *Front) relayModernTask(parent context.Context, owner string, o relay.Outcome, res json.RawMessage, p supervisor.Peer) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(parent, taskrun.RelayTimeout)
	defer cancel()
	t, err := f.runner.RegisterRelayed(ctx, owner, res, "ttlMs", o, p)
	if t == nil {
		return res, err
	}
	return jsonrpc.Replace(res, "taskId", jsonrpc.Quote(t.ID))
}

// NotifyLists sends kind's list_changed on every subscriptions/listen
// stream that asked for it (SPEC §4.5).
func (f *Front) NotifyLists(kind registry.ListKind) { f.listeners.notifyLists(kind) }

// NotifyTask queues notifications/tasks for a modern caller's task t on
// each of its listen streams that named it (SPEC §4.7; listeners.go).
func (f *Front) NotifyTask(t *tasks.Task) { f.listeners.notifyTask(t) }

// EndStreams ends every subscriptions/listen stream gracefully, with the
// listen request's response (MCP 2026-07-28 subscriptions, Graceful
// Closure; shutdown, SPEC §7.6).
func (f *Front) EndStreams() { f.listeners.stopAll() }

// CancelAll cancels every parked call with cause, and parks none from
// then on (shutdown); the calls still running end with Options.Base.
func (f *Front) CancelAll(cause error) { f.bridges.cancelAll(cause) }

// Parked returns the number of calls parked for their clients' MRTR
// retry (SPEC §4.6; /metrics, §11.2).
func (f *Front) Parked() int { return f.bridges.parkedCount() }

// ExpireParked cancels every parked call now, as its expiry would
// (errParkExpired; its server gets notifications/cancelled). Unlike
// CancelAll, calls park again afterwards. Only package aggregator's tests
// use it, between calls: they act at a moment of a bridged call's life
// (bridge.go, park.go) that no request can aim at, as TestHookGathered
// (bridge.go) does.
func (f *Front) ExpireParked() { f.bridges.expireAll() }
