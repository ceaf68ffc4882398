package daemon

// The daemon's run.Group actors (STYLE 2, oklog/run's group.go): each
// constructor returns one execute/interrupt pair, and every interrupt makes
// its execute return. serve adds them in order; none of them stops the
// servers, which serve does once they have all returned.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/oklog/run"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"github.com/mcp-gateway/mcp-gateway/supervisor/reloader"
)

// drainTimeout is how long in-flight HTTP calls may take to finish on
// SIGTERM before the servers are stopped (SPEC §7.6).
const drainTimeout = 5 * time.Second

// actor is one execute/interrupt pair for run.Group.Add.
type actor struct {
	execute   func() error
	interrupt func(error)
}

// httpServer is the endpoint's server (SPEC §3) over gw's handler.
func httpServer(gw *aggregator.Gateway) *http.Server {
	return &http.Server{
		Handler:           gw.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// Idle keep-alive connections are closed, so that clients that
		// open many and say nothing cannot use up the daemon's descriptors.
		IdleTimeout: 60 * time.Second,
	}
}

// httpActor serves srv on ln. Its interrupt ends GET and listen streams,
// drains in-flight calls for up to drainTimeout; calls still running then get a JSON-RPC error, and a
// second to write it, before connections are closed (SPEC §7.6).
func httpActor(srv *http.Server, ln net.Listener, gw *aggregator.Gateway) actor {
	return actor{func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve http: %w", err)
		}
		return nil
	}, func(error) {
		// Streams that wait for news end now; calls get the drain.
		gw.EndStreams()
		ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			gw.CancelCalls(fmt.Sprintf("the gateway is shutting down; the call was cancelled after a %s drain", drainTimeout))
			last, cancelLast := context.WithTimeout(context.Background(), time.Second)
			_ = srv.Shutdown(last)
			cancelLast()
		}
		_ = srv.Close()
	}}
}

// signalActor returns on SIGTERM/SIGINT (sigs), as run.SignalHandler's
// does, so that the group stops (SPEC §7.6).
func signalActor(sigs <-chan os.Signal) actor {
	done := make(chan struct{})
	return actor{func() error {
		select {
		case sig := <-sigs:
			return run.SignalError{Signal: sig}
		case <-done:
			return nil
		}
	}, func(error) { close(done) }}
}

// supervisorActor holds the group open while the servers run. Its
// interrupt ends any start in progress (a reload's restart included), so
// that the actors after it can return; the servers themselves are stopped
// by serve, after the group.
func supervisorActor(sup *supervisor.Supervisor) actor {
	done := make(chan struct{})
	return actor{func() error {
		<-done
		return nil
	}, func(error) {
		sup.Interrupt()
		close(done)
	}}
}

// watcherActor watches the catalog file and reloads on a change (SPEC
// §6.3). Its first look, as it starts, catches up with a change made while
// the servers were starting.
func watcherActor(rl *reloader.Reloader, path string, logger *slog.Logger) actor {
	ctx, cancel := context.WithCancel(context.Background())
	trigger := reloader.TriggerStart
	w := &catalog.Watcher{
		Path:          path,
		Logger:        logger,
		NotifyAtStart: true,
		OnChange: func() {
			_, _ = rl.Reload(ctx, trigger) // logged there
			trigger = reloader.TriggerFile
		},
	}
	return actor{func() error { return w.Run(ctx) }, func(error) { cancel() }}
}

// hupActor reloads on SIGHUP (hup), as daemons conventionally do;
// logrotate configurations send it, and by default it would kill the
// daemon without a word.
func hupActor(rl *reloader.Reloader, hup <-chan os.Signal, logger *slog.Logger) actor {
	ctx, cancel := context.WithCancel(context.Background())
	return actor{func() error {
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-hup:
				logger.Info("SIGHUP: reloading the catalog")
				_, _ = rl.Reload(ctx, reloader.TriggerSignal) // logged there
			}
		}
	}, func(error) { cancel() }}
}

// controlActor serves the control socket (SPEC §8.1). `mcp-gateway stop`
// makes it return errStopCommand, which ends the group as SIGTERM does.
func controlActor(ctl *ipc.ControlServer, handle ipc.Handler) actor {
	return actor{func() error {
		if err := ctl.Serve(handle); !errors.Is(err, ipc.ErrStopRequested) {
			return err
		}
		return errStopCommand
	}, func(error) { ctl.Close() }}
}

// errStopCommand ends the run group on `mcp-gateway stop`: a stop, not a
// failure (serve logs it as the reason and returns nil).
var errStopCommand = errors.New("requested with mcp-gateway stop")

// traceShutdownTimeout bounds the export of the spans still queued when
// the daemon stops: a collector that hangs costs the stop no more.
const traceShutdownTimeout = 3 * time.Second

// traceActor exports spans (SPEC §11.3) until its interrupt, which
// exports what is queued, within traceShutdownTimeout, and stops the
// exporter. With tracing off (nil) it only waits for its interrupt.
func traceActor(tr *telemetry.Tracing) actor {
	done := make(chan struct{})
	return actor{func() error {
		if tr == nil {
			<-done
			return nil
		}
		tr.Run()
		return nil
	}, func(error) {
		ctx, cancel := context.WithTimeout(context.Background(), traceShutdownTimeout)
		defer cancel()
		_ = tr.Shutdown(ctx)
		close(done)
	}}
}
