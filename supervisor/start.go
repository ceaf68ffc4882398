package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/errlist"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/stdio"
)

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

// wait returns once every run started has ended.
func (l *launcher) wait() { l.runs.Wait() }

// start prepares (once), spawns, initialises and lists what the server
// offers, bounded by the start timeout; then it subscribes again to the
// resources the gateway is subscribed to and sets the log level
// (subscribe.go). On failure nothing of the run is left.
func (l *launcher) start(spec adapters.LaunchSpec, base []string, prepared bool, num uint64) (started, error) {
	ctx, cancel := context.WithTimeout(l.opts.ctx, l.opts.StartTimeout)
	defer cancel()
	env := Environ(base, spec.Env)
	if prepared && spec.Dir != "" && !isDir(spec.Dir) {
		prepared = false // its directory (a clone) was removed: prepare again
	}
	if spec.Prepare != nil && !prepared {
		out := l.opts.Log.Writer(l.name)
		err := spec.Prepare(ctx, env, out)
		out.Close()
		if err != nil {
			return started{}, fmt.Errorf("prepare: %w", err)
		}
	}
	var r *run
	var err error
	if spec.URL != "" {
		r, err = l.spawnHTTP(ctx, spec, env, num)
	} else {
		r, err = l.spawn(spec, env, num)
	}
	if err != nil {
		return started{}, err
	}
	lists, err := l.handshake(ctx, r)
	if err == nil {
		err = l.surf.restore(ctx, r)
	}
	if err != nil {
		r.kill()
		<-r.done
		var step *stepError
		if errors.As(err, &step) && errors.Is(step.err, ErrExited) {
			return started{}, fmt.Errorf("%w (during %s)", step.err, step.step)
		}
		if tail := r.stderrTail(); tail != "" {
			return started{}, fmt.Errorf("%w; last stderr: %s", err, tail)
		}
		return started{}, err
	}
	return started{run: r, lists: lists}, nil
}

// spawn starts run number num of the server and its reader goroutine,
// serveRun, which ends the run when the process's stdout does.
func (l *launcher) spawn(spec adapters.LaunchSpec, env []string, num uint64) (*run, error) {
	if err := findProgram(spec.Argv[0], spec.Env); err != nil {
		return nil, err
	}
	if spec.Dir != "" && !isDir(spec.Dir) {
		// exec would blame the program: "fork/exec …: no such file".
		return nil, fmt.Errorf("start: the working directory %s does not exist", spec.Dir)
	}
	p, err := proc.Start(proc.Command{Argv: spec.Argv, Dir: spec.Dir, Env: env, Log: l.opts.Log, Source: l.name, Wide: true})
	if err != nil {
		return nil, err
	}
	r := &run{proc: p, num: num, env: env, done: make(chan struct{}), started: p.Started()}
	r.conn = rpc.NewConn(l.name, l.opts.Log, l.hooks(r))
	r.stdio = stdio.New(r.conn, l.name, l.opts.Log, p, l.opts.Budget)
	l.runs.Add(1)
	go l.serveRun(r)
	return r, nil
}

// serveRun is the run's reader goroutine: it reads the server's stdout
// (stdio.Transport.Read) until the pipe ends, then ends the run: it waits
// for the exit that the process's owner records (killing the group after
// exitGrace), fails the calls still pending with it, waits for the relays
// the run started, tells the lifecycle of the end (recordEnd) and closes r.done.
func (l *launcher) serveRun(r *run) {
	defer l.runs.Done()
	r.proc.ReadStdout(r.stdio.Read)
	if !r.proc.WaitFor(context.Background(), exitGrace) {
		r.proc.Kill()
		<-r.proc.Exited()
	}
	exitErr := &ExitError{Status: r.proc.ExitStatus(), Stderr: r.proc.StderrTail()}
	if why := r.stopReason.Load(); why != nil {
		exitErr.Reason = *why
	}
	r.conn.Fail(exitErr)
	r.conn.WaitHandlers()
	r.proc.Stdin().Close()
	logExit := l.ends.recordEnd(r, exitErr.Status, exitErr)
	close(r.done)
	if logExit {
		l.opts.Logger.Warn("server exited; the next call restarts it", "server", l.name, "status", exitErr.Status)
	}
}

// handshake runs initialize, notifications/initialized, tools/list and the
// lists the server declared (lists.go). A server that refuses initialize
// as modern only is driven as modern instead (SPEC §7.8, modern.go).
func (l *launcher) handshake(ctx context.Context, r *run) (Lists, error) {
	params, _ := json.Marshal(map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities": map[string]any{
			"roots":       map[string]any{"listChanged": false},
			"sampling":    map[string]any{},
			"elicitation": map[string]any{},
		},
		"clientInfo": map[string]any{"name": "mcp-gateway", "version": l.opts.Version},
	})
	res, err := r.conn.Call(ctx, "initialize", params, nil)
	if err != nil {
		version, modern, verr := modernRefusal(err)
		if verr != nil {
			return Lists{}, &stepError{"initialize", verr}
		}
		if modern {
			return l.handshakeModern(ctx, r, version)
		}
		return Lists{}, &stepError{"initialize", err}
	}
	var init struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    string          `json:"instructions"`
	}
	if err := json.Unmarshal(res, &init); err != nil {
		return Lists{}, &stepError{"initialize", fmt.Errorf("decode result: %w", err)}
	}
	r.protocol, r.era = init.ProtocolVersion, EraLegacy
	r.capabilities, r.caps = init.Capabilities, parseCapabilities(init.Capabilities)
	r.instructions = instructionsOf(init.Instructions, init.ServerInfo)
	if err := r.conn.Notify("notifications/initialized", nil); err != nil {
		return Lists{}, &stepError{"initialize", err}
	}
	var lists Lists
	err = l.surf.listKinds(ctx, r, ListTools|r.caps.declared(), &lists)
	return lists, err
}
