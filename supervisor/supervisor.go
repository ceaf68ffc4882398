package supervisor

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/supervisor/httpup"
)

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
