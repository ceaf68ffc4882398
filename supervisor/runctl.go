package supervisor

import (
	"context"

	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

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
