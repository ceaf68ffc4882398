package supervisor

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/supervisor/httpup"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/stdio"
)

// run is one run of the server, from its start to its end: one child
// process speaking stdio, or one connection to an HTTP server (SPEC §7.9)
// and, with runCmd, the child that serves it; its JSON-RPC connection
// and the transport under it (its halt and kill, below, end either).
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
	// instructions is what the server says to read first: its
	// instructions (initialize's or server/discover's), else its
	// serverInfo's description (instructionsOf).
	instructions string
	// subs maps each resource URI subscribed on this run to its modern
	// listen's id (0 for a legacy server's resources/subscribe); under
	// surface.subMu (subscribe.go).
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
	// surface.relistMu.
	relisting     bool
	relistPending List
}

// This file stops and describes a run of either kind (see run): a stdio
// child, whose end serveRun owns, or an HTTP server's connection with or
// without its child, whose end serveHTTPRun owns.

// halt stops the run: a stdio child with the stop sequence seq (ctx cuts
// its graceful waits short); an HTTP run by asking serveHTTPRun, which
// ends the session and then stops the child, if any, within ctx. It does
// not wait for the run's end: r.done says when. Later calls for an HTTP
// run add nothing.
func (r *run) halt(ctx context.Context, seq proc.StopTimeouts) {
	if r.http == nil {
		r.proc.Stop(ctx, seq)
		return
	}
	r.haltOnce.Do(func() {
		r.haltCtx = ctx
		close(r.halting)
	})
}

// kill ends the run at once: a stdio child's group is killed; an HTTP
// run is halted with no graceful wait.
func (r *run) kill() {
	if r.http == nil {
		r.proc.Kill()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r.halt(ctx, proc.StopTimeouts{})
}

// haltContext is the context of an HTTP run's halt, once halting is
// closed; background if the run ended otherwise.
func (r *run) haltContext() context.Context {
	select {
	case <-r.halting:
		return r.haltCtx
	default:
		return context.Background()
	}
}

// pid is the run's child's pid; 0 for an HTTP server without one.
func (r *run) pid() int {
	if r.proc == nil {
		return 0
	}
	return r.proc.PID()
}

// stderrTail is the last lines of the child's stderr; "" without one.
func (r *run) stderrTail() string {
	if r.proc == nil {
		return ""
	}
	return r.proc.StderrTail()
}

// transportName is Status.Transport.
func (r *run) transportName() string {
	switch {
	case r.http == nil:
		return "stdio"
	case r.http.OldSSE():
		return "http+sse"
	}
	return "streamable-http"
}
