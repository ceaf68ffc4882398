package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/oklog/run"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/plugin"
	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// drainTimeout is how long in-flight HTTP calls may take to finish on
// SIGTERM before the servers are stopped (SPEC §7.6).
const drainTimeout = 5 * time.Second

// daemon is one run of the gateway daemon.
type daemon struct {
	settings Settings
	config   []byte
	token    string
	report   *ipc.Reporter
	log      *supervisor.Log  // set by serve
	out      io.Writer        // `serve` prints its ready line here; nil for the detached daemon
	cat      *catalog.Catalog // the catalog the servers were resolved against
	started  time.Time        // when serve began: the gateway's uptime counts from here
}

// timeoutHint suggests what to do about servers that did not start in
// time: pre-install catalog and GitHub servers with pull (SPEC §2.4); a
// local command can only be made faster or given more time.
func timeoutHint(servers []adapters.Server, slow []string) string {
	var pullable, local []string
	for _, s := range servers {
		if !slices.Contains(slow, s.Name) {
			continue
		}
		if s.Spec.Kind == "command" {
			local = append(local, s.Name)
		} else {
			pullable = append(pullable, s.Name)
		}
	}
	var hints []string
	if len(pullable) > 0 {
		hints = append(hints, "pre-install them in the template with `mcp-gateway pull "+strings.Join(pullable, " ")+"`")
	}
	if len(local) > 0 {
		hints = append(hints, "make "+strings.Join(local, ", ")+" start faster or raise --startup-timeout")
	}
	return strings.Join(hints, "; ")
}

// resolveServers loads the catalog and the external adapters, and resolves
// the config. log receives the adapters' output (nil discards it).
func resolveServers(s Settings, config []byte, log plugin.Log) ([]adapters.Server, []string, error) {
	servers, warnings, _, err := resolveWithCatalog(s, config, log)
	return servers, warnings, err
}

// resolveWithCatalog is resolveServers, also returning the catalog it
// resolved against: the baseline a later reload compares with.
func resolveWithCatalog(s Settings, config []byte, log plugin.Log) ([]adapters.Server, []string, *catalog.Catalog, error) {
	cat, err := catalog.Load(s.CatalogFile)
	if err != nil {
		return nil, nil, nil, &resolveError{"invalid catalog file", err}
	}
	list, closeAll, err := adapterList(s, cat, log)
	if err != nil {
		return nil, nil, nil, &resolveError{"external adapters failed", err}
	}
	defer closeAll()
	servers, warnings, err := adapters.Parse(config, list)
	if err != nil {
		return nil, warnings, nil, &resolveError{"invalid config", err}
	}
	return servers, warnings, cat, nil
}

// resolveError says which input a resolve failed on, for the launcher's
// heading: the config, the catalog file, or the external adapters.
type resolveError struct {
	what string
	err  error
}

func (e *resolveError) Error() string { return e.err.Error() }
func (e *resolveError) Unwrap() error { return e.err }

// printResolveError prints err under a heading naming what was wrong.
func printResolveError(w io.Writer, err error) {
	what := "invalid config"
	var re *resolveError
	if errors.As(err, &re) {
		what = re.what
	}
	fmt.Fprintf(w, "mcp-gateway: %s:\n%s\n", what, indent(err.Error()))
}

// adapterList returns the built-in adapters, which take precedence,
// followed by the external ones in s.AdaptersDir (SPEC §9). The external
// adapters' processes run until closeAll, bounded by the startup timeout;
// call closeAll as soon as resolving is done.
func adapterList(s Settings, cat *catalog.Catalog, log plugin.Log) (list []adapters.Adapter, closeAll func(), err error) {
	ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(s.StartupTimeout, supervisor.DefaultStartTimeout))
	external, closeExternal, err := plugin.Load(ctx, s.AdaptersDir, supervisor.Environ(os.Environ(), nil), log)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	list = append(adapters.Builtin(cat, adapters.GitHubOptions{BaseURL: s.GitHubURL, ServersDir: s.ServersDir}), external...)
	return list, func() { closeExternal(); cancel() }, nil
}

// run starts everything, reports readiness, and serves until a signal.
// Every failure before ready is reported (and returned); nothing is left
// running.
func (d *daemon) run() error {
	// The token never reaches a child, nor stays in our own environment.
	os.Unsetenv(supervisor.TokenEnv)
	err := d.serve()
	if err != nil {
		d.report.Send(ipc.Report{Event: ipc.EventFailed, Error: err.Error()})
	}
	return err
}

func (d *daemon) serve() error {
	d.started = time.Now()
	log, err := supervisor.OpenLog(d.settings.LogFile)
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	defer log.Close()
	log.AddSecrets(d.token)
	if u, err := url.Parse(d.settings.GitHubURL); err == nil && u.User != nil {
		if pass, ok := u.User.Password(); ok {
			log.AddSecrets(pass) // a mirror's credentials, should a server print them
		}
	}
	d.log = log
	// The daemon's stderr is /dev/null: a panic's or fatal error's trace
	// goes to the log file instead, where an operator looks.
	if f, err := os.OpenFile(d.settings.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
		_ = debug.SetCrashOutput(f, debug.CrashOptions{}) // it keeps its own duplicate
		f.Close()
	}
	logger := log.Logger()
	// SIGTERM/SIGINT are caught from here on, for the daemon's whole life,
	// on one channel: during startup they end the starts (an installCmd's
	// process group included) with a log line, instead of killing the
	// daemon by default and orphaning the install; afterwards the run
	// group's signal actor reads the same channel, so none falls between.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)

	servers, _, cat, err := resolveWithCatalog(d.settings, d.config, log)
	if err != nil {
		return err
	}
	d.cat = cat
	lock, err := ipc.LockPID(d.settings.RunDir)
	if err != nil {
		return err
	}
	defer lock.Release()

	ln, err := net.Listen("tcp", d.settings.Addr())
	if err != nil {
		return fmt.Errorf("listen on %s: %w", d.settings.Addr(), err)
	}
	defer ln.Close()

	shim, err := supervisor.ShimArgv()
	if err != nil {
		return err
	}
	var gw *aggregator.Gateway
	sup := supervisor.New(servers, supervisor.Options{
		Shim:         shim,
		Log:          log,
		Logger:       logger,
		StartTimeout: d.settings.StartupTimeout,
		Version:      version,
		OnToolsChanged: func(string) {
			if gw != nil {
				gw.Rebuild()
			}
		},
	})
	gw = aggregator.New(sup.Upstreams(), version, logger)
	logger.Info("starting servers", "servers", len(servers), "addr", ln.Addr().String(), "pid", os.Getpid())

	startCtx, cancel := context.WithTimeout(context.Background(), d.settings.StartupTimeout)
	var interrupted os.Signal
	startDone := make(chan struct{})
	watchDone := make(chan struct{})
	go func() { // owned here: waited for below
		defer close(watchDone)
		select {
		case interrupted = <-sigs:
			logger.Warn("signal while the servers start; stopping them", "signal", interrupted.String())
			sup.Interrupt()
		case <-startDone:
		}
	}()
	err = sup.StartAll(startCtx)
	close(startDone)
	<-watchDone
	cancel()
	if err == nil && interrupted != nil {
		err = errors.New("the servers' starts were ended")
	}
	if err != nil {
		if interrupted != nil {
			err = fmt.Errorf("interrupted by %v while the servers started: %w", interrupted, err)
		}
		stopCtx, stop := context.WithTimeout(context.Background(), 5*time.Second)
		sup.Shutdown(stopCtx)
		stop()
		if starting := supervisor.TimedOut(err); len(starting) > 0 {
			err = fmt.Errorf("startup timed out after %s; still starting: %s; %s: %w",
				d.settings.StartupTimeout, strings.Join(starting, ", "), timeoutHint(servers, starting), err)
		}
		logger.Error("start failed", "error", err)
		return err
	}
	gw.Rebuild()
	ctl, err := ipc.ListenControl(d.settings.RunDir)
	if err != nil {
		sup.Shutdown(context.Background())
		return err
	}
	defer ctl.Close()
	if err := ipc.WriteToken(d.settings.TokenFile, d.token); err != nil {
		sup.Shutdown(context.Background())
		return err
	}

	srv := &http.Server{
		Handler: gw.Handler(aggregator.HTTPOptions{
			Token:          d.token,
			AllowedOrigins: d.settings.AllowedOrigins,
			SessionTimeout: d.settings.SessionTimeout,
			MaxSessions:    d.settings.MaxSessions,
			Health:         func() any { return gw.Health() },
		}),
		ReadHeaderTimeout: 10 * time.Second,
		// Idle keep-alive connections are closed, so that clients that
		// open many and say nothing cannot use up the daemon's descriptors.
		IdleTimeout: 60 * time.Second,
		ErrorLog:    nil,
	}

	var g run.Group
	// HTTP first: on shutdown it drains while the servers are still alive.
	g.Add(func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve http: %w", err)
		}
		return nil
	}, func(error) {
		ctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			// Calls still running past the drain get a JSON-RPC error,
			// and a second to write it, before connections are closed.
			gw.CancelCalls(fmt.Sprintf("the gateway is shutting down; the call was cancelled after a %s drain", drainTimeout))
			last, cancelLast := context.WithTimeout(context.Background(), time.Second)
			_ = srv.Shutdown(last)
			cancelLast()
		}
		_ = srv.Close()
	})
	sigCtx, sigCancel := context.WithCancel(context.Background())
	g.Add(func() error {
		select {
		case sig := <-sigs:
			return run.SignalError{Signal: sig} // as run.SignalHandler's
		case <-sigCtx.Done():
			return sigCtx.Err()
		}
	}, func(error) { sigCancel() })
	supCtx, supCancel := context.WithCancel(context.Background())
	g.Add(func() error { return sup.Run(supCtx) }, func(error) { supCancel() })
	// Catalog watcher and control socket (control.go), after the supervisor.
	d.addControlActors(&g, ctl, sup, gw, logger, ln.Addr().String())

	if d.out != nil { // serve: the ready line goes to stdout
		fmt.Fprintf(d.out, "mcp-gateway: ready on http://%s/mcp (pid %d, %s, %s; token in %s; log in %s)\n",
			displayAddr(ln.Addr().String()), os.Getpid(), count(len(servers), "server"), count(gw.ToolCount(), "tool"), d.settings.TokenFile, d.settings.LogFile)
	}
	if err := d.report.Send(ipc.Report{Event: ipc.EventReady, Addr: ln.Addr().String(), PID: os.Getpid(), Servers: len(servers), Tools: gw.ToolCount()}); err != nil {
		// The launcher was killed while it waited: its caller saw a
		// failure, so a daemon serving now would be a surprise that
		// holds the run dir against the retry.
		logger.Error("the launcher exited before the gateway was ready; stopping", "error", err)
		_ = os.Remove(d.settings.TokenFile)
		sigCancel()
		supCancel()
		sup.Shutdown(context.Background())
		return fmt.Errorf("report readiness: %w", err)
	}
	logger.Info("ready", "addr", ln.Addr().String(), "servers", len(servers), "tools", gw.ToolCount())

	err = g.Run()
	sigCancel()
	// oklog/run: compare with errors.Is(err, run.ErrSignal); a value
	// SignalError target matches errors.As without being filled in.
	if errors.Is(err, run.ErrSignal) {
		logger.Info("stopped", "reason", err.Error())
		return nil
	}
	if err != nil {
		logger.Error("stopped", "error", err)
	}
	return err
}
