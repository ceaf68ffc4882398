package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/errlist"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/supervisor/jsonrpc"
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
	cur       *session
	starting  chan struct{} // non-nil while a start is in flight
	state     State
	restarts  int
	runs      int
	failures  int
	nextTry   time.Time
	lastExit  string
	lastError string
	tools     []Tool
	era       string // the last run's
	calls     atomic.Int64
	stopped   bool

	sessions sync.WaitGroup // owner goroutines of every session started
}

// session is one run of the server: its process and JSON-RPC connection.
type session struct {
	proc     *process
	conn     *conn
	protocol string
	run      uint64         // this run's number, from 1; see CallRun
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
		st.PID = u.cur.proc.pid
		st.StartedAt = u.cur.proc.started
		st.Protocol = u.cur.protocol
	}
	return st
}

// Start starts the server if it is not running, and waits until it has
// answered initialize and tools/list. Concurrent callers share one start.
func (u *Upstream) Start(ctx context.Context) error {
	_, err := u.session(ctx)
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
// the raw result and the run that served it. run 0 means any: the live
// run, started first if none is (SPEC §7.2). A non-zero run that is not
// the live process fails at once with an error naming the server and
// matching ErrRunEnded; nothing is started for it.
//
// For a modern server (SPEC §7.8) the request carries request _meta from
// peer.Client() (see ClientInfo), and a tools/call, prompts/get or
// resources/read answered with an InputRequiredResult ({"resultType":
// "input_required", "inputRequests": {key: {"method", "params"}},
// "requestState": string}) is returned as sent if the client is modern;
// for a legacy client the supervisor asks it through peer.Request and
// retries on the same run, round after round (mrtr.go; SPEC §4.6).
// Retries of a modern client's rounds go to the run that answered, so
// the caller passes servedBy back as run.
//
// Upstream JSON-RPC errors come back as *jsonrpc.Error unchanged, and
// ctx's errors as they are; other errors name the server and say why
// (exited with status and stderr tail, backing off, …).
func (u *Upstream) CallRun(ctx context.Context, run uint64, method string, params json.RawMessage, peer Peer) (result json.RawMessage, servedBy uint64, err error) {
	u.calls.Add(1)
	s, err := u.acquireRun(ctx, run)
	if err != nil {
		return nil, 0, err
	}
	defer s.active.Done()
	res, err := u.exchange(ctx, s, method, params, peer)
	var rpcErr *jsonrpc.Error
	if err == nil || errors.As(err, &rpcErr) {
		s.served.Store(true) // the server answered: it is not crash-looping
	}
	if err != nil {
		if errors.As(err, &rpcErr) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, s.run, err
		}
		return nil, s.run, fmt.Errorf("server %q: %w", u.name, err)
	}
	return res, s.run, nil
}

// acquireRun is acquire for CallRun: run 0 is any run, another must be
// the live one.
func (u *Upstream) acquireRun(ctx context.Context, run uint64) (*session, error) {
	if run == 0 {
		return u.acquire(ctx)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	s := u.cur
	if s == nil || s.run != run || s.conn.failure() != nil {
		return nil, fmt.Errorf("server %q: call run %d: %w", u.name, run, ErrRunEnded)
	}
	s.active.Add(1)
	return s, nil
}

// Notify sends a notification to the running server; it does nothing if
// the server is not running.
func (u *Upstream) Notify(method string, params json.RawMessage) {
	u.mu.Lock()
	s := u.cur
	u.mu.Unlock()
	if s != nil {
		_ = s.conn.notify(method, params)
	}
}

// session returns the live session, starting one if needed.
func (u *Upstream) session(ctx context.Context) (*session, error) {
	for {
		u.mu.Lock()
		if u.stopped {
			u.mu.Unlock()
			return nil, fmt.Errorf("server %q: the gateway is shutting down", u.name)
		}
		if s := u.cur; s != nil {
			u.mu.Unlock()
			select {
			case <-s.conn.dead:
				// The run is ending; once its owner has recorded the exit,
				// start a new one rather than fail on the dead one.
				select {
				case <-s.done:
					continue
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			default:
			}
			return s, nil
		}
		if wait := u.starting; wait != nil {
			u.mu.Unlock()
			select {
			case <-wait:
				u.mu.Lock()
				s, lastErr := u.cur, u.lastError
				u.mu.Unlock()
				if s != nil {
					return s, nil
				}
				return nil, fmt.Errorf("server %q: %s", u.name, lastErr)
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if wait := time.Until(u.nextTry); wait > 0 {
			err := fmt.Errorf("server %q: failed %d times in a row (last: %s); backing off, next start in %s (at %s)",
				u.name, u.failures, u.lastError, wait.Round(100*time.Millisecond), u.nextTry.UTC().Format(time.TimeOnly))
			u.mu.Unlock()
			return nil, err
		}
		done := make(chan struct{})
		u.starting = done
		u.state = StateStarting
		if u.runs > 0 {
			u.restarts++
		}
		u.runs++
		spec, prepared, run := u.spec, u.prepared, uint64(u.runs)
		u.mu.Unlock()

		s, err := u.start(spec, prepared, run)

		u.mu.Lock()
		u.starting = nil
		if err != nil {
			u.state = StateFailed
			u.lastError = err.Error()
			u.failures++
			u.nextTry = time.Now().Add(backoffDelay(u.failures))
			u.mu.Unlock()
			close(done)
			u.opts.Logger.Warn("server failed to start", "server", u.name, "error", err)
			return nil, &StartError{Server: u.name, Err: err}
		}
		if spec.Prepare != nil {
			u.prepared = true
		}
		if u.stopped {
			// Shutdown began while this run started, and found nothing to
			// stop; stop it here, or it would outlive the daemon.
			u.mu.Unlock()
			close(done)
			s.s.proc.stop(context.Background(), u.opts.Stop)
			<-s.s.done
			return nil, fmt.Errorf("server %q: the gateway is shutting down", u.name)
		}
		changed := !sameTools(u.tools, s.tools)
		u.tools = s.tools
		u.cur = s.s
		u.era = s.s.era
		u.state = StateRunning
		u.lastError = ""
		u.mu.Unlock()
		close(done)
		u.opts.Logger.Info("server ready", "server", u.name, "pid", s.s.proc.pid, "tools", len(s.tools),
			"protocolVersion", s.s.protocol, "era", s.s.era)
		if changed && u.opts.OnToolsChanged != nil {
			u.opts.OnToolsChanged(u.name)
		}
		return s.s, nil
	}
}

// StartError is a failed start of one server.
type StartError struct {
	Server string
	Err    error
}

func (e *StartError) Error() string { return fmt.Sprintf("server %q: %v", e.Server, e.Err) }
func (e *StartError) Unwrap() error { return e.Err }

// TimedOut returns the servers whose start in err (as returned by
// StartAll) ran out of time.
func TimedOut(err error) []string {
	var names []string
	for _, e := range errlist.Flatten(err) {
		var se *StartError
		if errors.As(e, &se) && errors.Is(se.Err, context.DeadlineExceeded) {
			names = append(names, se.Server)
		}
	}
	return names
}

type started struct {
	s     *session
	tools []Tool
}

// start prepares (once), spawns, initialises and lists tools, bounded by
// the start timeout. On failure nothing of the run is left.
func (u *Upstream) start(spec adapters.LaunchSpec, prepared bool, run uint64) (started, error) {
	ctx, cancel := context.WithTimeout(u.opts.ctx, u.opts.StartTimeout)
	defer cancel()
	env := Environ(u.opts.BaseEnv, spec.Env)
	if prepared && spec.Dir != "" && !isDir(spec.Dir) {
		prepared = false // its directory (a clone) was removed: prepare again
	}
	if spec.Prepare != nil && !prepared {
		out := u.opts.Log.Writer(u.name)
		err := spec.Prepare(ctx, env, out)
		out.Close()
		if err != nil {
			return started{}, fmt.Errorf("prepare: %w", err)
		}
	}
	if err := findProgram(spec.Argv[0], spec.Env); err != nil {
		return started{}, err
	}
	if spec.Dir != "" && !isDir(spec.Dir) {
		// exec would blame the program: "fork/exec …: no such file".
		return started{}, fmt.Errorf("start: the working directory %s does not exist", spec.Dir)
	}
	argv, deathSig := spec.Argv, syscall.SIGKILL
	if len(u.opts.Shim) > 0 {
		argv, deathSig = append(append([]string{}, u.opts.Shim...), argv...), syscall.SIGHUP
	}
	proc, err := startProcess(argv, spec.Dir, env, deathSig, u.opts.Log, u.name)
	if err != nil {
		return started{}, err
	}
	c := newConn(u.name, u.opts.Log, proc)
	s := &session{proc: proc, conn: c, run: run, done: make(chan struct{})}
	c.onToolsChanged = func() { u.relist(s) }
	if f := u.opts.OnTaskStatus; f != nil {
		c.onTaskStatus = func(method string, params json.RawMessage) { f(u.name, run, method, params) }
	}
	u.sessions.Add(1)
	go u.own(s)

	tools, err := u.handshake(ctx, s)
	if err != nil {
		proc.kill()
		<-s.done
		var step *stepError
		if errors.As(err, &step) && errors.Is(step.err, ErrExited) {
			return started{}, fmt.Errorf("%w (during %s)", step.err, step.step)
		}
		if tail := proc.tail.String(); tail != "" {
			return started{}, fmt.Errorf("%w; last stderr: %s", err, tail)
		}
		return started{}, err
	}
	return started{s: s, tools: tools}, nil
}

type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// own is the one goroutine that watches a run: it reads stdout until EOF,
// waits for the process, then fails pending calls and records the exit.
func (u *Upstream) own(s *session) {
	defer u.sessions.Done()
	readDone := make(chan struct{})
	go func() {
		s.conn.readLoop(s.proc.stdout)
		close(readDone)
	}()
	select {
	case <-readDone:
		// stdout closed: the process is ending, or closed stdout on purpose,
		// which leaves it unusable. Let it report its own exit status first.
		select {
		case <-s.proc.exited:
		case <-time.After(500 * time.Millisecond):
			s.proc.kill()
			<-s.proc.exited
		}
	case <-s.proc.exited:
		select {
		case <-readDone:
		case <-time.After(time.Second):
			// a grandchild outside the group holds stdout open
		}
	}
	s.proc.stdout.Close()
	<-readDone
	exitErr := &ExitError{Status: s.proc.exitStatus(), Stderr: s.proc.tail.String()}
	if r := s.stopReason.Load(); r != nil {
		exitErr.Reason = *r
	}
	s.conn.fail(exitErr)
	s.conn.handlers.Wait()
	s.proc.stdin.Close()

	u.mu.Lock()
	wasCurrent := u.cur == s
	if wasCurrent {
		u.cur = nil
		u.lastExit = exitErr.Status
		if !u.stopped {
			u.state = StateExited
			u.lastError = exitErr.Error()
		}
		if s.served.Load() || time.Since(s.proc.started) >= BackoffReset {
			u.failures = 0
		} else {
			u.failures++
			u.nextTry = time.Now().Add(backoffDelay(u.failures))
		}
	}
	stopped := u.stopped
	u.mu.Unlock()
	close(s.done)
	if wasCurrent && !stopped {
		u.opts.Logger.Warn("server exited; the next call restarts it", "server", u.name, "status", exitErr.Status)
	}
}

// handshake runs initialize, notifications/initialized and tools/list. A
// server that refuses initialize as modern only is driven as modern
// instead (SPEC §7.8, modern.go).
func (u *Upstream) handshake(ctx context.Context, s *session) ([]Tool, error) {
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities": map[string]any{
			"roots":       map[string]any{"listChanged": false},
			"sampling":    map[string]any{},
			"elicitation": map[string]any{},
		},
		"clientInfo": map[string]any{"name": "mcp-gateway", "version": u.opts.Version},
	})
	res, err := s.conn.call(ctx, "initialize", params, nil)
	if err != nil {
		version, modern, verr := modernRefusal(err)
		if verr != nil {
			return nil, &stepError{"initialize", verr}
		}
		if modern {
			return u.handshakeModern(ctx, s, version)
		}
		return nil, &stepError{"initialize", err}
	}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res, &init); err != nil {
		return nil, &stepError{"initialize", fmt.Errorf("decode result: %w", err)}
	}
	s.protocol, s.era = init.ProtocolVersion, EraLegacy
	if err := s.conn.notify("notifications/initialized", nil); err != nil {
		return nil, &stepError{"initialize", err}
	}
	tools, err := listTools(ctx, s.conn)
	if err != nil {
		return nil, &stepError{"tools/list", err}
	}
	return tools, nil
}

// maxToolPages bounds tools/list pagination against a server that returns
// the same cursor forever.
const maxToolPages = 1000

func listTools(ctx context.Context, c *conn) ([]Tool, error) {
	var (
		tools  []Tool
		cursor json.RawMessage
	)
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, fmt.Errorf("more than %d pages; is the server repeating its cursor?", maxToolPages)
		}
		var params json.RawMessage
		if cursor != nil {
			params = jsonrpc.Encode([]jsonrpc.Field{{Key: "cursor", Value: cursor}})
		}
		res, err := c.call(ctx, "tools/list", params, nil)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor json.RawMessage   `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, fmt.Errorf("decode result: %w", err)
		}
		for _, raw := range page.Tools {
			var t struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
				c.log.Line(c.name, "[gateway] tool without a name in tools/list; dropped: "+truncate(c.log.Mask(string(raw)), 200))
				continue
			}
			tools = append(tools, Tool{Name: t.Name, Raw: raw})
		}
		if len(page.NextCursor) == 0 || string(page.NextCursor) == "null" || string(page.NextCursor) == `""` {
			return tools, nil
		}
		cursor = page.NextCursor
	}
}

// relist re-reads the tools after the server's own list_changed. Bursts
// are coalesced: while one re-list runs, further notifications make it
// run once more when it ends, never a second one alongside (20,000
// notifications started 20,000 concurrent tools/list, and the daemon's
// memory tripled).
func (u *Upstream) relist(s *session) {
	u.mu.Lock()
	if s.relisting {
		s.relistAgain = true
		u.mu.Unlock()
		return
	}
	s.relisting = true
	u.mu.Unlock()
	s.conn.handlers.Add(1)
	go func() {
		defer s.conn.handlers.Done()
		for u.relistOnce(s) {
		}
	}()
}

// relistOnce lists the tools once and reports whether another
// list_changed came meanwhile.
func (u *Upstream) relistOnce(s *session) (again bool) {
	ctx, cancel := context.WithTimeout(u.opts.ctx, u.opts.StartTimeout)
	defer cancel()
	tools, err := listTools(ctx, s.conn)
	u.mu.Lock()
	again, s.relistAgain = s.relistAgain, false
	if err != nil || u.cur != s {
		again = false // the run failed or ended: nothing to list again
	}
	s.relisting = again
	if err != nil || u.cur != s {
		u.mu.Unlock()
		if err != nil {
			u.opts.Logger.Warn("re-list tools after list_changed failed", "server", u.name, "error", err)
		}
		return false
	}
	changed := !sameTools(u.tools, tools)
	u.tools = tools
	u.mu.Unlock()
	if changed && u.opts.OnToolsChanged != nil {
		u.opts.OnToolsChanged(u.name)
	}
	return again
}

func sameTools(a, b []Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || string(a[i].Raw) != string(b[i].Raw) {
			return false
		}
	}
	return true
}

// Stop stops the running server with the stop sequence and waits for it.
// A later call starts it again unless the supervisor is shutting down.
func (u *Upstream) Stop(ctx context.Context) {
	u.mu.Lock()
	s := u.cur
	u.mu.Unlock()
	if s == nil {
		return
	}
	s.proc.stop(ctx, u.opts.Stop)
	<-s.done
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
	u.sessions.Wait()
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

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// findProgram checks that the server's program exists before anything is
// spawned, so that a missing uvx or npx reads as that, not as a crash.
// A PATH in the server's own envs is left to the spawn to use.
func findProgram(name string, env map[string]string) error {
	if _, ownPath := env["PATH"]; ownPath || strings.Contains(name, "/") {
		return nil // a path is the spawn's to check, relative to the server's dir
	}
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("start: %w (install it in the template, or check PATH)", err)
	}
	return nil
}
