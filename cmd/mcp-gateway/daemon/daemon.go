package daemon

// The daemon of a config: its port, its endpoint over the servers, and
// startAndRun, which starts them, makes the daemon ready and runs its
// run.Group actors (actors.go) until one returns. A warm daemon comes here
// after its hand-over (warm.go); main.go's serve stops the servers.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
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
	"github.com/mcp-gateway/mcp-gateway/supervisor/reloader"
)

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
	startErr := startServers(sup, servers, d.settings.StartupTimeout, t.sigs, logger)
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
	rl := reloader.New(sup, reloader.Options{
		CatalogFile: d.settings.CatalogFile,
		Config:      config,
		Catalog:     t.cat,
		Adapters:    AdapterList(d.settings, t.log), // [adapter:<file>] lines go to the log
		OnReloaded:  gw.Rebuild,
		Drain:       supervisor.DefaultDrain,
		Logger:      logger,
	})
	addr := t.ln.Addr().String()
	status := func() StatusDoc { return statusOf(gw.Health(), addr, d.version, d.started, d.settings) }
	code := func() ipc.Response { return codeResponse(gw, codeURL(addr), d.settings.TokenFile) }
	actors := []actor{
		httpActor(httpServer(gw), t.ln, gw),
		traceActor(t.tel.tracing), // after HTTP: the drained calls' spans are flushed
		signalActor(t.sigs),
		supervisorActor(sup),
		watcherActor(rl, d.settings.CatalogFile, logger),
		hupActor(rl, t.hup, logger),
		controlActor(ctl, controlHandler(status, rl, code, logger)),
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
		return nil, fmt.Errorf("listen on %s: %w (another gateway, or another program, has the port: `mcp-gateway status --run-dir DIR`, with that gateway's run dir, shows it; or choose another port with --port or MCP_GATEWAY_PORT)", addr, err)
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}
