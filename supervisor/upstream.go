package supervisor

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
	"github.com/mcp-gateway/mcp-gateway/supervisor/httpup"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/stdio"
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
type Upstream struct {
	name string
	opts *Options

	mu        sync.Mutex
	spec      adapters.LaunchSpec
	baseEnv   []string // the environment its runs start from (Options.BaseEnv, or Configure's)
	prepared  bool
	cur       *run
	starting  chan struct{} // non-nil while a start is in flight
	state     State
	restarts  int
	lastNum   uint64 // the number of the last run started; 0 before the first
	failures  int
	nextTry   time.Time
	lastExit  string
	lastError string
	lists     Lists        // the last run's lists (lists.go)
	caps      Capabilities // the last run's (capabilities.go)
	era       string       // the last run's
	// subs are the resource URIs the gateway is subscribed to on this
	// server, kept across runs (subscribe.go); level is the log level the
	// gateway asks a legacy server for (loglevel.go). Both under subMu.
	subMu   sync.Mutex
	subs    map[string]struct{}
	level   string
	calls   atomic.Int64
	stopped bool

	runs sync.WaitGroup // serveRun of every run started: the owner of each run's end
}

// run is one run of the server, from its start to its end: one child
// process speaking stdio, or one connection to an HTTP server (SPEC §7.9)
// and, with runCmd, the child that serves it; its JSON-RPC connection
// and the transport under it (runctl.go says how either ends).
type run struct {
	proc     *proc.Process // the child; nil for an HTTP server without runCmd
	conn     *rpc.Conn
	stdio    *stdio.Transport  // conn's transport for a stdio server, read by serveRun; else nil
	http     *httpup.Transport // conn's transport for an HTTP server; else nil
	env      []string          // the environment its process started with, for Configure's comparison
	started  time.Time
	protocol string
	num      uint64         // this run's number, from 1; see CallRun
	era      string         // EraLegacy or EraModern, set by the handshake
	done     chan struct{}  // closed when the run is over and pending calls failed
	active   sync.WaitGroup // calls using this run; a graceful restart waits for them (reload.go)
	served   atomic.Bool    // it answered a call (result or JSON-RPC error)

	// capabilities is what the server declared (initialize's or
	// server/discover's), raw, and caps the gateway's reading of it;
	// serverInfo is a modern server's, raw (nil for a legacy server).
	capabilities, serverInfo json.RawMessage
	caps                     Capabilities
	// subs maps each resource URI subscribed on this run to its modern
	// listen's id (0 for a legacy server's resources/subscribe); under
	// Upstream.subMu (subscribe.go).
	subs map[string]int64

	// stopReason says why the gateway stopped this run, for the error of
	// the calls it ends ("" if the server exited by itself).
	stopReason atomic.Pointer[string]

	// An HTTP run is halted by closing halting (once, haltOnce), with
	// haltCtx bounding its command's stop sequence (halt).
	halting  chan struct{}
	haltOnce sync.Once
	haltCtx  context.Context

	// relisting says a re-list runs; relistPending which lists the
	// server said changed since it began (lists.go). Both under
	// Upstream.mu.
	relisting     bool
	relistPending List
}

func newUpstream(name string, spec adapters.LaunchSpec, opts *Options) *Upstream {
	return &Upstream{name: name, spec: spec, baseEnv: opts.BaseEnv, opts: opts, state: StateStarting}
}

// Name returns the server's config key.
func (u *Upstream) Name() string { return u.name }

// Tools returns the server's last listed tools, in the server's order.
func (u *Upstream) Tools() []Entry { return u.Lists().Tools }

// Lists returns the server's last listed tools, prompts, resources and
// resource templates, each in the server's order (lists.go).
func (u *Upstream) Lists() Lists {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.lists
}

// Capabilities returns what the server's last run declared; the zero
// value before its first start.
func (u *Upstream) Capabilities() Capabilities {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.caps
}

// Status returns a snapshot.
func (u *Upstream) Status() Status {
	u.mu.Lock()
	defer u.mu.Unlock()
	st := Status{
		Name: u.name, State: u.state, Restarts: u.restarts, Tools: len(u.lists.Tools),
		Prompts: len(u.lists.Prompts), Resources: len(u.lists.Resources), Templates: len(u.lists.Templates),
		Calls: u.calls.Load(), LastExit: u.lastExit, LastError: u.lastError, Era: u.era,
	}
	if u.cur != nil {
		st.PID = u.cur.pid()
		st.StartedAt = u.cur.started
		st.Protocol = u.cur.protocol
		st.Transport = u.cur.transportName()
	}
	return st
}

// InFlight returns how many requests for clients wait for the running
// process's answer (0 when none runs), for /metrics.
func (u *Upstream) InFlight() int {
	u.mu.Lock()
	r := u.cur
	u.mu.Unlock()
	if r == nil {
		return 0
	}
	return r.conn.ClientCalls()
}

// Start starts the server if it is not running, and waits until it has
// answered initialize and tools/list. Concurrent callers share one start.
func (u *Upstream) Start(ctx context.Context) error {
	_, err := u.liveRun(ctx)
	return err
}

// Notify sends a notification to the running server; it does nothing if
// the server is not running.
func (u *Upstream) Notify(method string, params json.RawMessage) {
	u.mu.Lock()
	r := u.cur
	u.mu.Unlock()
	if r != nil {
		_ = r.conn.Notify(method, params)
	}
}

// Stop stops the running server with the stop sequence and waits for it.
// A later call starts it again unless the supervisor is shutting down.
func (u *Upstream) Stop(ctx context.Context) {
	u.mu.Lock()
	r := u.cur
	u.mu.Unlock()
	if r == nil {
		return
	}
	r.halt(ctx, u.opts.Stop)
	<-r.done
}

// shutdown stops the server for good.
func (u *Upstream) shutdown(ctx context.Context) {
	u.retire(ctx, "stopped by the gateway, which is shutting down")
}

// retire stops the server for good, the calls its run ends failing with
// why.
func (u *Upstream) retire(ctx context.Context, why string) {
	u.mu.Lock()
	u.stopped = true
	u.state = StateStopped
	if u.cur != nil {
		u.cur.stopReason.Store(ptr(why))
	}
	u.mu.Unlock()
	u.Stop(ctx)
	u.runs.Wait()
}

func ptr[T any](v T) *T { return &v }

// Choice returns the entry's "tools" and "prompts" (SPEC §4.9), which
// the aggregator applies to the server's lists; the supervisor lists and
// calls every tool whatever they say.
func (u *Upstream) Choice() (tools, prompts choice.Choice) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.spec.Tools, u.spec.Prompts
}

// SetSpec replaces the launch spec (catalog reload). It reports whether
// the spec changed; the caller restarts the server if it did. A spec
// that differs only in its choice of tools and prompts (Choice) is
// taken without a restart.
func (u *Upstream) SetSpec(spec adapters.LaunchSpec) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.spec.Equal(spec) {
		u.spec.Tools, u.spec.Prompts = spec.Tools, spec.Prompts
		return false
	}
	u.spec = spec
	u.prepared = false
	return true
}
