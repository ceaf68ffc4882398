package supervisor

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
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

// Tool is one tool as the upstream server listed it: its name and its
// definition, raw, exactly as sent.
type Tool struct {
	Name string
	Raw  json.RawMessage
}

// Status is a snapshot of one upstream server for /health and status.
type Status struct {
	Name      string    `json:"name"`
	State     State     `json:"state"`
	PID       int       `json:"pid,omitempty"`
	Restarts  int       `json:"restarts"`
	Tools     int       `json:"tools"`
	Calls     int64     `json:"calls"`
	StartedAt time.Time `json:"startedAt,omitzero"`
	LastExit  string    `json:"lastExit,omitempty"`
	LastError string    `json:"lastError,omitempty"`
	Protocol  string    `json:"protocolVersion,omitempty"`
	// Era is how the gateway drives the server: EraLegacy ("legacy") or
	// EraModern ("modern"), SPEC §7.8; "" until it first started. It stays
	// the last run's while the server is not running.
	Era string `json:"era,omitempty"`
}

// Upstream is one configured server. Its methods are safe for concurrent
// use. Errors leaving this package name the server once.
type Upstream struct {
	name string
	opts *Options

	mu        sync.Mutex
	spec      adapters.LaunchSpec
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
	tools     []Tool
	era       string // the last run's
	calls     atomic.Int64
	stopped   bool

	runs sync.WaitGroup // serveRun of every run started: the owner of each run's end
}

// run is one run of the server (one child process, from its start to
// its exit): its process, its JSON-RPC connection and the stdio
// transport under it.
type run struct {
	proc     *proc.Process
	conn     *conn
	stdio    *stdio // conn's transport, read by serveRun
	protocol string
	num      uint64         // this run's number, from 1; see CallRun
	era      string         // EraLegacy or EraModern, set by the handshake
	done     chan struct{}  // closed when the run is over and pending calls failed
	active   sync.WaitGroup // calls using this run; a graceful restart waits for them (reload.go)
	served   atomic.Bool    // it answered a call (result or JSON-RPC error)

	// capabilities and serverInfo are what a modern server's
	// server/discover answered, raw; nil for a legacy server.
	capabilities, serverInfo json.RawMessage

	// stopReason says why the gateway stopped this run, for the error of
	// the calls it ends ("" if the server exited by itself).
	stopReason atomic.Pointer[string]

	// relisting says a re-list runs; relistAgain that another list_changed
	// came meanwhile. Both under Upstream.mu.
	relisting, relistAgain bool
}

func newUpstream(name string, spec adapters.LaunchSpec, opts *Options) *Upstream {
	return &Upstream{name: name, spec: spec, opts: opts, state: StateStarting}
}

// Name returns the server's config key.
func (u *Upstream) Name() string { return u.name }

// Tools returns the server's last listed tools, in the server's order.
func (u *Upstream) Tools() []Tool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.tools
}

// Status returns a snapshot.
func (u *Upstream) Status() Status {
	u.mu.Lock()
	defer u.mu.Unlock()
	st := Status{
		Name: u.name, State: u.state, Restarts: u.restarts, Tools: len(u.tools),
		Calls: u.calls.Load(), LastExit: u.lastExit, LastError: u.lastError, Era: u.era,
	}
	if u.cur != nil {
		st.PID = u.cur.proc.PID()
		st.StartedAt = u.cur.proc.Started()
		st.Protocol = u.cur.protocol
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
	r.conn.mu.Lock()
	defer r.conn.mu.Unlock()
	return r.conn.clientCalls()
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
		_ = r.conn.notify(method, params)
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
	r.proc.Stop(ctx, u.opts.Stop)
	<-r.done
}

// shutdown stops the server for good.
func (u *Upstream) shutdown(ctx context.Context) {
	u.mu.Lock()
	u.stopped = true
	u.state = StateStopped
	if u.cur != nil {
		u.cur.stopReason.Store(ptr("stopped by the gateway, which is shutting down"))
	}
	u.mu.Unlock()
	u.Stop(ctx)
	u.runs.Wait()
}

func ptr[T any](v T) *T { return &v }

// SetSpec replaces the launch spec (catalog reload). It reports whether
// the spec changed; the caller restarts the server if it did.
func (u *Upstream) SetSpec(spec adapters.LaunchSpec) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.spec.Equal(spec) {
		return false
	}
	u.spec = spec
	u.prepared = false
	return true
}
