package daemon

// One run of the gateway, from the hand-over (or `serve`) to the last
// server stopped. serve is a list of steps; the long-running parts are
// run.Group actors built in actors.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/oklog/run"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// stopServersTimeout bounds the graceful part of stopping every server
// (in parallel; the stop sequence itself takes at most 2 s + 2 s); past
// it the process groups are killed (SPEC §7.6).
const stopServersTimeout = 5 * time.Second

// daemon is one run of the gateway daemon.
type daemon struct {
	settings Settings
	config   []byte
	token    string
	warm     bool          // started by `mcp-gateway warm`: no token, no port, until a hand-over (warm.go)
	report   *ipc.Reporter // to the launcher; after a warm daemon's hand-over, to the launcher that handed it a config
	started  time.Time     // when serve began: the gateway's uptime counts from here
	version  string        // the gateway's (main's, set at build time)

	gw atomic.Pointer[aggregator.Gateway] // the endpoint, once there is one; the supervisor's events reach it
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

// serve takes the daemon's resources in order (log, signals, config, run
// dir, port, servers), then starts and runs it. Whatever ends it, a failed
// start or a stop after readiness, the servers are stopped in one place,
// here, once every actor has returned.
func (d *daemon) serve() error {
	d.started = time.Now()
	log, err := d.openLog()
	if err != nil {
		return err
	}
	defer log.Close()
	logger := log.Logger()
	// SIGTERM/SIGINT are caught from here on, for the daemon's whole life,
	// on one channel: during startup they end the starts (an installCmd's
	// process group included) with a log line, instead of killing the
	// daemon by default and orphaning the install; afterwards the signal
	// actor reads the same channel, so none falls between. SIGHUP
	// (reload) is caught from here on too, so that none kills the daemon.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)

	servers, _, cat, err := Resolve(d.settings, d.config, log)
	if err != nil {
		return err
	}
	lock, err := ipc.LockPID(d.settings.RunDir)
	if err != nil {
		return err
	}
	defer lock.Release()
	mem := newBudget(d.settings.MemoryBudget, logger)
	defer mem.Close()
	tel, err := newTelemetry(d.version, logger)
	if err != nil {
		return err
	}
	defer tel.shutdown() // spans a failed start made; a started daemon's actor has flushed them already
	t := taken{mem: mem, tel: tel, servers: servers, cat: cat, log: log, sigs: sigs, hup: hup}
	t.sup = d.newSupervisor(t)
	var ready bool
	if d.warm {
		ready, err = d.serveWarm(t)
	} else {
		ready, err = d.serveConfig(t)
	}
	// The one shutdown path of the servers.
	stopCtx, cancel := context.WithTimeout(context.Background(), stopServersTimeout)
	t.sup.Shutdown(stopCtx)
	cancel()
	if !ready {
		return err
	}
	return stopped(err, logger)
}

// stopped logs why a ready daemon stopped: a signal or the stop command
// is a clean stop (nil), anything else the error it returns.
func stopped(err error, logger *slog.Logger) error {
	// oklog/run: compare with errors.Is(err, run.ErrSignal); a value
	// SignalError target matches errors.As without being filled in.
	if errors.Is(err, run.ErrSignal) || errors.Is(err, errStopCommand) {
		logger.Info("stopped", "reason", err.Error())
		return nil
	}
	if err != nil {
		logger.Error("stopped", "error", err)
	}
	return err
}

// openLog opens the log file with the token (and a mirror's credentials)
// masked, and sends a crash's trace there too.
func (d *daemon) openLog() (*logfile.Log, error) {
	log, err := logfile.Open(d.settings.LogFile)
	if err != nil {
		return nil, fmt.Errorf("open log file: %w", err)
	}
	log.AddSecrets(d.token)
	log.SetShare(d.settings.LogShare) // each server's share of the log (SPEC §7.4)
	if u, err := url.Parse(d.settings.GitHubURL); err == nil && u.User != nil {
		if pass, ok := u.User.Password(); ok {
			log.AddSecrets(pass) // a mirror's credentials, should a server print them
		}
	}
	// The daemon's stderr is /dev/null: a panic's or fatal error's trace
	// goes to the log file instead, where an operator looks.
	if f, err := os.OpenFile(d.settings.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
		_ = debug.SetCrashOutput(f, debug.CrashOptions{}) // it keeps its own duplicate
		f.Close()
	}
	return log, nil
}

// serveConfig is the daemon of a config: its port, its endpoint over
// t.sup's servers (which serve stops).
func (d *daemon) serveConfig(t taken) (ready bool, err error) {
	ipc.RemoveStaleHandover(d.settings.RunDir) // a warm daemon killed with -9 left it
	ln, err := listen(d.settings.Addr())
	if err != nil {
		t.log.Logger().Error("start failed", "error", err)
		return false, err
	}
	defer ln.Close()
	t.ln = ln
	t.gw = d.newAggregator(t)
	t.log.Logger().Info("starting servers", "servers", len(t.servers), "addr", ln.Addr().String(), "pid", os.Getpid())
	return d.startAndRun(t)
}

// newSupervisor prepares the supervisor (nothing starts yet). A change of
// one of a server's lists rebuilds the endpoint's, and a resource update
// reaches its subscribers, once there is an endpoint (newAggregator).
func (d *daemon) newSupervisor(t taken) *supervisor.Supervisor {
	return supervisor.New(t.servers, supervisor.Options{
		Log:          t.log,
		Logger:       t.log.Logger(),
		StartTimeout: d.settings.StartupTimeout,
		Version:      d.version,
		BaseEnv:      withCodeDir(os.Environ(), d.settings.CodeDir), // SPEC §7.1
		Budget:       t.mem,
		Tracer:       t.tel.tracing.Tracer(),
		Metrics:      t.tel.metrics,
		OnListChanged: func(string) {
			if gw := d.gw.Load(); gw != nil {
				gw.Rebuild()
			}
		},
		OnTaskStatus: func(server string, run uint64, method string, params json.RawMessage) {
			if gw := d.gw.Load(); gw != nil {
				gw.TaskStatus(server, run, method, params) // SPEC §4.7
			}
		},
		OnResourceUpdated: func(server, uri string, params json.RawMessage) {
			if gw := d.gw.Load(); gw != nil {
				gw.ResourceUpdated(server, uri, params) // SPEC §4.8
			}
		},
	})
}

// newAggregator makes the endpoint over sup's servers, which reads what
// it is sent under mem.
func (d *daemon) newAggregator(t taken) *aggregator.Gateway {
	var callLog *logfile.Log // nil: --call-log=false
	if d.settings.CallLog {
		callLog = t.log
	}
	gw := aggregator.New(t.sup.Upstreams(), d.version, t.log.Logger(), aggregator.HTTPOptions{
		Token:          d.token,
		AllowedOrigins: d.settings.AllowedOrigins,
		SessionTimeout: d.settings.SessionTimeout,
		MaxSessions:    d.settings.MaxSessions,
		BodyTimeout:    d.settings.BodyTimeout,
		Budget:         t.mem,
		Telemetry:      aggregator.Telemetry{Metrics: t.tel.metrics, Tracer: t.tel.tracing.Tracer(), CallLog: callLog},

		ToolSearch:          d.settings.ToolSearch, // SPEC §4.10
		ToolSearchThreshold: d.settings.ToolSearchThreshold,
	})
	d.gw.Store(gw)
	return gw
}

// taken is what serve has taken before the start, for startAndRun; gw
// and ln are filled in on the way (serveConfig, serveWarm).
type taken struct {
	sup       *supervisor.Supervisor
	mem       *budget.Budget // the memory budget the supervisor and the endpoint read under
	gw        *aggregator.Gateway
	servers   []adapters.Server
	cat       *catalog.Catalog // the catalog the servers were resolved against
	log       *logfile.Log
	ln        net.Listener
	sigs, hup <-chan os.Signal // SIGTERM/SIGINT, and SIGHUP
	tel       *telemetryParts  // metrics, and the tracer when tracing is on (SPEC §11)
}

// startAndRun starts the servers, makes the daemon ready (tool list,
// control socket, token file, the launcher's report) and runs the actors
// until one returns. ready says whether it got that far; it never stops
// the servers (serve does).
func (d *daemon) startAndRun(t taken) (ready bool, err error) {
	sup, gw, servers, logger := t.sup, t.gw, t.servers, t.log.Logger()
	// The token file needs nothing of the servers: it is written while
	// they start, so that its fsync is not on the way to ready. A start
	// that fails removes it.
	wrote := make(chan error, 1)
	go func() { wrote <- ipc.WriteToken(d.settings.TokenFile, d.token) }() // received below
	startErr := d.startServers(sup, servers, t.sigs, logger)
	if err := errors.Join(startErr, <-wrote); err != nil {
		_ = os.Remove(d.settings.TokenFile)
		return false, err
	}
	gw.Rebuild()
	ctl, err := ipc.ListenControl(d.settings.RunDir)
	if err != nil {
		_ = os.Remove(d.settings.TokenFile)
		return false, err
	}
	defer ctl.Close()
	config, err := adapters.DecodeConfig(d.config) // validated at start: cannot fail
	if err != nil {
		return false, err
	}
	rl := sup.NewReloader(supervisor.ReloaderOptions{
		CatalogFile: d.settings.CatalogFile,
		Config:      config,
		Catalog:     t.cat,
		Adapters:    AdapterList(d.settings, t.log), // [adapter:<file>] lines go to the log
		OnReloaded:  gw.Rebuild,
		Drain:       supervisor.DefaultDrain,
	})
	addr := t.ln.Addr().String()
	actors := []actor{
		httpActor(d.httpServer(gw), t.ln, gw),
		traceActor(t.tel.tracing), // after HTTP: the drained calls' spans are flushed
		signalActor(t.sigs),
		supervisorActor(sup),
		watcherActor(rl, d.settings.CatalogFile, logger),
		hupActor(rl, t.hup, logger),
		controlActor(ctl, d.controlHandler(rl, gw, addr, logger)),
	}
	if d.settings.CodeDir != "" { // SPEC §12
		actors = append(actors, codeActor(gw, d.settings.CodeDir, codeURL(addr), d.settings.TokenFile, logger))
	}
	var g run.Group
	// In this order (STYLE 2): HTTP first, so that on shutdown it drains
	// while the servers are still alive; the watcher and the control
	// socket after the supervisor, whose interrupt cuts a reload's
	// restart short, since their interrupts wait for a reload in progress.
	for _, a := range actors {
		g.Add(a.execute, a.interrupt)
	}
	if err := d.reportReady(addr, len(servers), gw.ToolCount()); err != nil {
		// The launcher was killed while it waited: its caller saw a
		// failure, so a daemon serving now would be a surprise that
		// holds the run dir against the retry.
		logger.Error("the launcher exited before the gateway was ready; stopping", "error", err)
		_ = os.Remove(d.settings.TokenFile)
		return false, fmt.Errorf("report readiness: %w", err)
	}
	logger.Info("ready", "addr", addr, "servers", len(servers), "tools", gw.ToolCount())
	return true, g.Run()
}

// reportReady sends the readiness report to the launcher (or `serve`),
// which prints the ready line.
func (d *daemon) reportReady(addr string, servers, tools int) error {
	return d.report.Send(ipc.Report{Event: ipc.EventReady, Addr: addr, PID: os.Getpid(), Servers: servers, Tools: tools})
}

// listen opens the endpoint's port (SPEC §3); a port in use says how to
// choose another (SPEC §10).
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("listen on %s: %w (another gateway, or another program, has the port: `mcp-gateway status`, with this --run-dir, shows a gateway; or choose another port with --port or MCP_GATEWAY_PORT)", addr, err)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}
