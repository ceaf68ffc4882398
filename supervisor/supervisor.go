package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/supervisor/httpup"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// DefaultStartTimeout bounds one server's start: prepare, spawn,
// initialize and tools/list (SPEC §2.4).
const DefaultStartTimeout = 55 * time.Second

// DefaultEventStall is how long an HTTP server may pause in the middle of
// a message before the gateway gives up on that answer (Options.EventStall;
// see httpup.DefaultEventStall).
const DefaultEventStall = httpup.DefaultEventStall

// Options configures a Supervisor.
type Options struct {
	Log    *logfile.Log // server stderr and gateway lines; required
	Logger *slog.Logger // defaults to Log.Logger()
	// BaseEnv is the environment children start from; TokenEnv and every
	// MCP_GATEWAY_* are always removed (Environ). Defaults to os.Environ().
	BaseEnv []string
	// StartTimeout bounds each start (default DefaultStartTimeout).
	StartTimeout time.Duration
	// Stop holds the waits of the stop sequence.
	Stop proc.StopTimeouts
	// Version is sent upstream as clientInfo.version.
	Version string
	// OnListChanged is called after one of a server's lists (tools,
	// prompts, resources, resource templates) changed: a restart with
	// other lists, or its own list_changed (SPEC §4.5). It must not block
	// long.
	OnListChanged func(server string)
	// OnResourceUpdated is called with a server's
	// notifications/resources/updated, its params raw, and uri, the
	// subscribed URI it is for: the listen's for a modern server (whose
	// notification names the subscription), params.uri for a legacy one
	// (SPEC §4.8; subscribe.go). It is called on the server's read loop
	// and must not block.
	OnResourceUpdated func(server, uri string, params json.RawMessage)
	// EventStall bounds a pause of an HTTP server in the middle of a
	// message (default DefaultEventStall; SPEC §7.9).
	EventStall time.Duration
	// OnTaskStatus is called with a server's notifications/tasks/status
	// (MCP 2025-11-25) or notifications/tasks (the 2026-07-28 tasks
	// extension), its params raw, and num, the number of the run
	// (process) that sent it, so that the task it names can be told to its
	// creator (SPEC §4.7). It is called on the server's read loop and must
	// not block.
	OnTaskStatus func(server string, num uint64, method string, params json.RawMessage)
	// Budget is the memory budget what servers send is read from (SPEC
	// §3.9, internal/budget), shared with the clients' side. nil: none.
	Budget *budget.Budget
	// Tracer makes a client span for each request of a traced call, and
	// its context goes to the server in _meta (SPEC §11.3); nil: tracing
	// is off and params pass as they are. Metrics gets each request's
	// duration (§11.2); nil: none.
	Tracer  *telemetry.Tracer
	Metrics *telemetry.Metrics

	ctx        context.Context
	httpClient *http.Client // every HTTP server's (httpup.NewClient)
}

// Supervisor owns every upstream server.
type Supervisor struct {
	opts   *Options
	cancel context.CancelFunc

	mu        sync.Mutex // guards the set, which only Configure changes
	upstreams []*Upstream
	byName    map[string]*Upstream

	retired sync.WaitGroup // the stops Configure started; Shutdown waits for them
}

// New prepares one Upstream per server, in the given (sorted) order;
// nothing starts until Start or a Call.
func New(servers []adapters.Server, opts Options) *Supervisor {
	if opts.Logger == nil {
		opts.Logger = opts.Log.Logger()
	}
	if opts.BaseEnv == nil {
		opts.BaseEnv = os.Environ()
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.EventStall <= 0 {
		opts.EventStall = DefaultEventStall
	}
	if opts.httpClient == nil {
		opts.httpClient = httpup.NewClient()
	}
	var cancel context.CancelFunc
	opts.ctx, cancel = context.WithCancel(context.Background())
	s := &Supervisor{opts: &opts, cancel: cancel, byName: map[string]*Upstream{}}
	for _, srv := range servers {
		u := newUpstream(srv.Name, srv.Spec, s.opts)
		opts.Log.AddSecrets(srv.Spec.Secrets...)
		s.upstreams = append(s.upstreams, u)
		s.byName[srv.Name] = u
	}
	return s
}

// Upstreams returns the servers in config-key order.
func (s *Supervisor) Upstreams() []*Upstream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.upstreams
}

// Logger is where the supervisor logs its own lines (Options.Logger).
func (s *Supervisor) Logger() *slog.Logger { return s.opts.Logger }

// Upstream returns the server called name.
func (s *Supervisor) Upstream(name string) (*Upstream, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.byName[name]
	return u, ok
}

// StartAll starts every server in parallel and waits for all of them. The
// error joins one error per server that failed, each naming it, in
// config-key order.
//
// The first server that fails for a reason other than its start timeout
// ends the others' starts at once: a launch with a failed server fails
// anyway (SPEC §2.3), and the launcher should not wait up to the startup
// timeout (55 s) for slow servers first. That cancels the supervisor, as
// Shutdown does; the starts it ended are left out of the error. Timeouts
// do not end the others: they all expire together, and the error lists
// every server still starting.
func (s *Supervisor) StartAll(ctx context.Context) error {
	ups := s.Upstreams()
	errs := make([]error, len(ups))
	var (
		mu       sync.Mutex
		failFast bool
		wg       sync.WaitGroup
	)
	for i, u := range ups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := u.Start(ctx)
			if err == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if failFast && errors.Is(err, context.Canceled) {
				return // ended by the first failure
			}
			errs[i] = err
			if !failFast && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				failFast = true
				s.cancel()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Interrupt ends the starts in progress (StartAll then returns with their
// errors, and a prepare step's process group is killed) and makes later
// starts fail. Call Shutdown after it to stop the servers that run.
func (s *Supervisor) Interrupt() { s.cancel() }

// Shutdown stops every server (in parallel) with the stop sequence and
// waits for every owner goroutine, and for the stops Configure started.
// ctx bounds the graceful part; past it the process groups are killed.
func (s *Supervisor) Shutdown(ctx context.Context) {
	s.cancel()
	var wg sync.WaitGroup
	for _, u := range s.Upstreams() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.shutdown(ctx)
		}()
	}
	wg.Wait()
	s.retired.Wait()
}
