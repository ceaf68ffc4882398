package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
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
// its exit): its process and JSON-RPC connection.
type run struct {
	proc     *proc.Process
	conn     *conn
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

// Start starts the server if it is not running, and waits until it has
// answered initialize and tools/list. Concurrent callers share one start.
func (u *Upstream) Start(ctx context.Context) error {
	_, err := u.liveRun(ctx)
	return err
}

// Call sends a request (tools/call) to the server, starting it first if it
// is not running (SPEC §7.2), and returns the raw result. It is CallRun on
// any run; see there for modern servers and errors.
func (u *Upstream) Call(ctx context.Context, method string, params json.RawMessage, peer Peer) (json.RawMessage, error) {
	res, _, err := u.CallRun(ctx, 0, method, params, peer)
	return res, err
}

// ErrRunEnded is CallRun's error when the run it names is no longer the
// server's live process: the state a modern server's requestState refers
// to is gone with it (SPEC §4.6). The client must start the call over.
var ErrRunEnded = errors.New("the server process that held this request's state has ended; start the call over")

// CallRun sends a request to one run (process) of the server and returns
// the raw result and the number of the run that served it. num 0 means
// any: the live run, started first if none is (SPEC §7.2). A non-zero num
// that is not the live process's fails at once with an error naming the
// server and matching ErrRunEnded; nothing is started for it.
//
// For a modern server (SPEC §7.8) the request carries request _meta from
// peer.Client() (see ClientInfo), and a tools/call, prompts/get or
// resources/read answered with an InputRequiredResult ({"resultType":
// "input_required", "inputRequests": {key: {"method", "params"}},
// "requestState": string}) is returned as sent if the client is modern;
// for a legacy client the supervisor asks it through peer.Request and
// retries on the same run, round after round (mrtr.go; SPEC §4.6).
// Retries of a modern client's rounds go to the run that answered, so
// the caller passes servedBy back as num.
//
// Upstream JSON-RPC errors come back as *jsonrpc.Error unchanged, and
// ctx's errors as they are; other errors name the server and say why
// (exited with status and stderr tail, backing off, …). A peer that is a
// Detacher and detaches while the call waits gets a *DetachedCall, whose
// Wait returns the rest (detach.go).
func (u *Upstream) CallRun(ctx context.Context, num uint64, method string, params json.RawMessage, peer Peer) (result json.RawMessage, servedBy uint64, err error) {
	u.calls.Add(1)
	r, err := u.acquireRun(ctx, num)
	if err != nil {
		return nil, 0, err
	}
	res, err := u.exchange(ctx, r, method, params, peer)
	var w *detachedWait
	if errors.As(err, &w) {
		return nil, r.num, &DetachedCall{wait: func(ctx context.Context) (json.RawMessage, uint64, error) {
			res, err := w.c.await(ctx, w.id, w.pc, nil, nil)
			return u.endCall(r, res, err)
		}}
	}
	return u.endCall(r, res, err)
}

// endCall ends a call on run r: it leaves r's active calls, marks r as
// having served when the server answered, and names the server in an
// error that is not the server's own or ctx's.
func (u *Upstream) endCall(r *run, res json.RawMessage, err error) (json.RawMessage, uint64, error) {
	defer r.active.Done()
	var rpcErr *jsonrpc.Error
	if err == nil || errors.As(err, &rpcErr) {
		r.served.Store(true) // the server answered: it is not crash-looping
	}
	if err != nil {
		if errors.As(err, &rpcErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, r.num, err
		}
		return nil, r.num, fmt.Errorf("server %q: %w", u.name, err)
	}
	return res, r.num, nil
}

// acquireRun is acquire for CallRun: num 0 is any run, another must be
// the live one.
func (u *Upstream) acquireRun(ctx context.Context, num uint64) (*run, error) {
	if num == 0 {
		return u.acquire(ctx)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	r := u.cur
	if r == nil || r.num != num || r.conn.failure() != nil {
		return nil, fmt.Errorf("server %q: call run %d: %w", u.name, num, ErrRunEnded)
	}
	r.active.Add(1)
	return r, nil
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
