package supervisor

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
)

// State is an upstream server's lifecycle state, as /health shows it
// (SPEC §3.3).
type State string

const (
	StateStarting State = "starting"
	StateRunning  State = "running"
	StateExited   State = "exited"  // ended; the next call restarts it
	StateFailed   State = "failed"  // could not be started; the next call retries
	StateStopped  State = "stopped" // stopped by the gateway
)

// ProtocolVersion is what the gateway asks each upstream server for; the
// server may answer with an older one, which the gateway accepts.
const ProtocolVersion = "2025-11-25"

// Status is a snapshot of one upstream server for /health and status.
type Status struct {
	Name     string `json:"name"`
	State    State  `json:"state"`
	PID      int    `json:"pid,omitempty"`
	Restarts int    `json:"restarts"`
	// Tools, Prompts, Resources and Templates count the server's own
	// lists as it last sent them (SPEC §3.3, §3.8), before the gateway
	// merges and names them.
	Tools     int       `json:"tools"`
	Prompts   int       `json:"prompts"`
	Resources int       `json:"resources"`
	Templates int       `json:"resourceTemplates"`
	Calls     int64     `json:"calls"`
	StartedAt time.Time `json:"startedAt,omitzero"`
	LastExit  string    `json:"lastExit,omitempty"`
	LastError string    `json:"lastError,omitempty"`
	Protocol  string    `json:"protocolVersion,omitempty"`
	// Era is how the gateway drives the server: EraLegacy ("legacy") or
	// EraModern ("modern"), SPEC §7.8; "" until it first started. It stays
	// the last run's while the server is not running.
	Era string `json:"era,omitempty"`
	// Transport is how the running server is reached: "stdio",
	// "streamable-http", or "http+sse" (the older HTTP+SSE, SPEC §7.9);
	// "" while it is not running.
	Transport string `json:"transport,omitempty"`
}

// Upstream is one configured server. Its methods are safe for concurrent
// use. Errors leaving this package name the server once.
//
// It is thin: the call path (call.go) and what it says of the server,
// over three parts of one idea each, which meet at small interfaces
// declared by the part that uses them:
//
//   - life, the lifecycle (run.go, reload.go): which run is live, the
//     start that concurrent callers share, a run's end, back-off and
//     graceful restart (SPEC §6.3, §7.2, §7.3);
//   - its launcher (launcher.go, start.go, httprun.go, modern.go): one
//     run from spawn to handshake, stdio or HTTP, legacy or modern, and
//     the goroutine that owns its end (SPEC §7.8, §7.9);
//   - surf, the surface (lists.go, subscribe.go): the
//     server's lists, resource subscriptions and log level (SPEC §3.8,
//     §4.5, §4.8).
type Upstream struct {
	name  string
	opts  *Options
	life  *lifecycle
	surf  *surface
	calls atomic.Int64
}

func newUpstream(name string, spec adapters.LaunchSpec, opts *Options) *Upstream {
	life := &lifecycle{name: name, opts: opts, spec: spec, baseEnv: opts.BaseEnv, state: StateStarting}
	surf := &surface{name: name, opts: opts, runs: life}
	life.starter = &launcher{name: name, opts: opts, ends: life, surf: surf}
	return &Upstream{name: name, opts: opts, life: life, surf: surf}
}

// Name returns the server's config key.
func (u *Upstream) Name() string { return u.name }

// Tools returns the server's last listed tools, in the server's order.
func (u *Upstream) Tools() []Entry { return u.Lists().Tools }

// Lists returns the server's last listed tools, prompts, resources and
// resource templates, each in the server's order (lists.go).
func (u *Upstream) Lists() Lists { return u.life.lastLists() }

// Capabilities returns what the server's last run declared; the zero
// value before its first start.
func (u *Upstream) Capabilities() Capabilities { return u.life.capabilities() }

// Instructions returns what the server's last run said to read first:
// the instructions of its initialize (or server/discover) result, else
// its serverInfo's description; "" when neither, or before a run. The
// code API's INDEX.md gives its first line (SPEC §12.2).
func (u *Upstream) Instructions() string { return u.life.instructions() }

// Status returns a snapshot.
func (u *Upstream) Status() Status {
	st := u.life.status()
	st.Calls = u.calls.Load()
	return st
}

// InFlight returns how many requests for clients wait for the running
// process's answer (0 when none runs), for /metrics.
func (u *Upstream) InFlight() int {
	if r := u.life.current(); r != nil {
		return r.conn.ClientCalls()
	}
	return 0
}

// Start starts the server if it is not running, and waits until it has
// answered initialize and tools/list. Concurrent callers share one start.
func (u *Upstream) Start(ctx context.Context) error {
	_, err := u.life.liveRun(ctx)
	return err
}

// Notify sends a notification to the running server; it does nothing if
// the server is not running.
func (u *Upstream) Notify(method string, params json.RawMessage) {
	if r := u.life.current(); r != nil {
		_ = r.conn.Notify(method, params)
	}
}

// Stop stops the running server with the stop sequence and waits for it.
// A later call starts it again unless the supervisor is shutting down.
func (u *Upstream) Stop(ctx context.Context) { u.life.stop(ctx) }

// Restart restarts a running server on its current spec (after SetSpec),
// gracefully, and reports whether the old run was stopped; see
// lifecycle.restart (reload.go) for the steps. drain bounds the wait for
// the calls in flight (DefaultDrain if zero).
func (u *Upstream) Restart(ctx context.Context, drain time.Duration) (bool, error) {
	return u.life.restart(ctx, drain)
}

// Choice returns the entry's "tools" and "prompts" (SPEC §4.9), which
// the aggregator applies to the server's lists; the supervisor lists and
// calls every tool whatever they say.
func (u *Upstream) Choice() (tools, prompts choice.Choice) { return u.life.choice() }

// SetSpec replaces the launch spec (catalog reload). It reports whether
// the spec changed; the caller restarts the server if it did. A spec
// that differs only in its choice of tools and prompts (Choice) is
// taken without a restart.
func (u *Upstream) SetSpec(spec adapters.LaunchSpec) bool { return u.life.setSpec(spec) }

// Subscribe subscribes the gateway to the resource at uri on the server,
// starting it first if it is not running (SPEC §7.2, §4.8). Subscribing
// again to a URI subscribed already does nothing. The server's refusal
// comes back as its *jsonrpc.Error (a modern server's acknowledgment that
// leaves the URI out is -32602); other errors name the server
// (subscribe.go).
func (u *Upstream) Subscribe(ctx context.Context, uri string) error {
	return u.surf.subscribe(ctx, uri)
}

// Unsubscribe ends the gateway's subscription to uri on the server, on
// its live run if it has one (a stopped server is not started for it).
// A failure is logged: the gateway no longer relays the URI's updates
// either way.
func (u *Upstream) Unsubscribe(ctx context.Context, uri string) { u.surf.unsubscribe(ctx, uri) }

// SetLogLevel asks the server for log messages at level and above
// ("debug" … "emergency"; MCP logging/setLevel, SPEC §4.8): at once on its
// live run, and on every later run as it starts. Only a legacy server
// that declared logging gets it; a modern one takes a level per request
// (request _meta, ClientInfo.LogLevel). The aggregator sends the most
// verbose level any of its sessions asked for and filters per session
// itself. A server that refuses is logged (subscribe.go).
func (u *Upstream) SetLogLevel(ctx context.Context, level string) { u.surf.setLogLevel(ctx, level) }

// shutdown stops the server for good.
func (u *Upstream) shutdown(ctx context.Context) {
	u.life.retire(ctx, "stopped by the gateway, which is shutting down")
}

func ptr[T any](v T) *T { return &v }
