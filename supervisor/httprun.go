package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/supervisor/httpup"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// This file is a run of an HTTP server (SPEC §5.6, §7.9): one connection
// to its url, and with runCmd the child that serves it, supervised as any
// (package proc). The run starts with the child (spawnHTTP), waits until
// url answers (awaitURL), then the handshake goes over the HTTP transport
// as over stdio (start.go). It ends (serveHTTPRun) when the server is
// lost (the transport cannot reach it), the child exits, or the gateway
// stops it: its pending calls fail at once, the session is ended, the
// child is stopped. As for a child, the next call starts a new run, with
// the back-off of SPEC §7.3 (recordEnd).

// The waits of an HTTP server's run.
const (
	// answerPoll is the first wait between tries to connect to url while
	// its command starts; the waits double up to answerPollMax.
	answerPoll, answerPollMax = 20 * time.Millisecond, 250 * time.Millisecond
	// httpCloseWait is how long an HTTP server's command may take to exit
	// once its stdin is closed: an HTTP server does not read stdin, so
	// SIGTERM, its own stop signal, follows almost at once.
	httpCloseWait = time.Millisecond
)

// DisconnectError reports that a run's connection to its HTTP server
// ended: the server could not be reached any more (Err says why: DNS,
// connect, TLS, a broken stream), or the gateway closed it (Reason).
// Calls pending at that moment fail with it (SPEC §7.9); a server with a
// command that exited gets an *ExitError instead.
type DisconnectError struct {
	URL    string // the url, without userinfo or query
	Err    error
	Reason string
}

func (e *DisconnectError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return "the connection to " + e.URL + " was closed: " + e.Reason
}

func (e *DisconnectError) Unwrap() error { return e.Err }

// spawnHTTP starts run number num of an HTTP server: its command, if it
// has one, and once url answers, the transport; serveHTTPRun owns the
// run's end.
func (l *launcher) spawnHTTP(ctx context.Context, spec adapters.LaunchSpec, env []string, num uint64) (*run, error) {
	var p *proc.Process
	if len(spec.Argv) > 0 {
		if err := findProgram(spec.Argv[0], spec.Env); err != nil {
			return nil, err
		}
		var err error
		if p, err = proc.Start(proc.Command{Argv: spec.Argv, Dir: spec.Dir, Env: env, Log: l.opts.Log, Source: l.name}); err != nil {
			return nil, err
		}
	}
	r := &run{proc: p, num: num, env: env, done: make(chan struct{}), started: time.Now(), halting: make(chan struct{})}
	r.conn = rpc.NewConn(l.name, l.opts.Log, l.hooks(r))
	r.http = httpup.New(r.conn, httpup.Config{Name: l.name, Log: l.opts.Log, Client: l.opts.httpClient, URL: spec.URL,
		Headers: spec.Headers, Stall: l.opts.EventStall, Budget: l.opts.Budget, Lost: r.lost})
	l.runs.Add(1)
	go l.serveHTTPRun(r)
	if p == nil {
		return r, nil
	}
	if err := awaitURL(ctx, spec.URL, p); err != nil {
		r.kill()
		<-r.done
		return nil, err
	}
	return r, nil
}

// awaitURL waits until url's host accepts a TCP connection, trying again
// and again while the command that serves it starts (a first try that
// fails is normal). It fails if the command exits first (*ExitError,
// with its stderr tail) or ctx ends, with the last refusal.
func awaitURL(ctx context.Context, rawURL string, p *proc.Process) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("parse url: %w", err)
	}
	addr := net.JoinHostPort(u.Hostname(), u.Port())
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), map[string]string{"http": "80", "https": "443"}[u.Scheme])
	}
	var d net.Dialer
	wait := answerPoll
	for {
		dctx, cancel := context.WithTimeout(ctx, time.Second)
		c, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-p.Exited():
			return &ExitError{Status: p.ExitStatus(), Stderr: p.StderrTail(), Reason: "before " + httpup.ShownURL(rawURL) + " answered"}
		case <-ctx.Done():
			return fmt.Errorf("wait for %s to answer: %w (last try: %s)", httpup.ShownURL(rawURL), ctx.Err(), httpup.Cause(err))
		case <-time.After(wait):
		}
		wait = min(wait*2, answerPollMax)
	}
}

// lost is the transport's word that the server cannot be reached: the
// run's connection fails with why, or, if the run's command has exited
// meanwhile (within exitGrace), with its exit, which says more.
func (r *run) lost(why error) {
	if r.proc != nil && r.proc.WaitFor(context.Background(), exitGrace) {
		r.conn.Fail(r.exitError())
		return
	}
	r.conn.Fail(&DisconnectError{URL: r.http.Shown(), Err: why})
}

// serveHTTPRun owns the end of an HTTP server's run: it waits until the
// server is lost, its command exits, or the run is halted; then it fails
// the pending calls, closes the transport (the session's DELETE unless
// the server is gone), stops the command with the stop sequence, waits
// for the relays the run started, tells the lifecycle of the end
// (recordEnd) and closes r.done.
func (l *launcher) serveHTTPRun(r *run) {
	defer l.runs.Done()
	var exited <-chan struct{}
	if r.proc != nil {
		go r.proc.ReadStdout(func(out io.Reader) { l.opts.Log.CopyLines(l.name, out, nil) }) // the owner waits for it
		exited = r.proc.Exited()
	}
	gone := true
	select {
	case <-r.conn.Dead():
	case <-exited:
		r.conn.Fail(r.exitError())
	case <-r.halting:
		r.conn.Fail(&DisconnectError{URL: r.http.Shown(), Reason: r.reason("stopped by the gateway")})
		gone = false
	}
	r.http.Close(gone)
	status := ""
	if r.proc != nil {
		seq := l.opts.Stop
		seq.CloseWait = httpCloseWait
		r.proc.Stop(r.haltContext(), seq)
		status = r.proc.ExitStatus()
	}
	r.conn.WaitHandlers()
	err := r.conn.Failure()
	logEnd := l.ends.recordEnd(r, status, err)
	close(r.done)
	if logEnd {
		l.opts.Logger.Warn("server lost; the next call connects again", "server", l.name, "error", err)
	}
}

// exitError is the *ExitError of the run's command, which has exited.
func (r *run) exitError() *ExitError {
	return &ExitError{Status: r.proc.ExitStatus(), Stderr: r.proc.StderrTail(), Reason: r.reason("")}
}

// reason is why the gateway stopped the run, or def.
func (r *run) reason(def string) string {
	if why := r.stopReason.Load(); why != nil {
		return *why
	}
	return def
}

// listsOf maps a list_changed notification to the lists it announces.
var listsOf = map[string]List{
	"notifications/tools/list_changed":     ListTools,
	"notifications/prompts/list_changed":   ListPrompts,
	"notifications/resources/list_changed": ListResources | ListTemplates,
}

// hooks connects run r's connection to the server's surface and options: list changes, resource updates
// and task status notifications, and telemetry.
func (l *launcher) hooks(r *run) rpc.Hooks {
	h := rpc.Hooks{
		// Only the lists the server declared are read again (a renewed
		// HTTP session announces every list).
		OnListChanged: func(methods ...string) {
			var kinds List
			for _, m := range methods {
				kinds |= listsOf[m]
			}
			l.surf.relist(r, kinds&(ListTools|r.caps.declared()))
		},
		OnResourceUpdated: func(uri string, params json.RawMessage) {
			if f := l.opts.OnResourceUpdated; f != nil {
				f(l.name, uri, params)
			}
		},
		Tracer: l.opts.Tracer, Metrics: l.opts.Metrics,
	}
	if f := l.opts.OnTaskStatus; f != nil {
		h.OnTaskStatus = func(method string, params json.RawMessage) { f(l.name, r.num, method, params) }
	}
	return h
}
