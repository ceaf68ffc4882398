package daemon

// The warm daemon (SPEC §2.9): started by `mcp-gateway warm` with a config
// of the template's and no token, it starts those servers, listens on no
// port, and waits on its hand-over socket (ipc.ListenHandover) for the
// config, token and environment of a `mcp-gateway --config`. Then it runs
// as the daemon of that config, keeping the servers that equal a warm one
// (supervisor.Configure). A sandbox made from a snapshot of the template
// starts with it, its servers already initialised.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/oklog/run"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/internal/bytesize"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// errHandedOver ends the warm phase's run group: a launcher's config was
// taken.
var errHandedOver = errors.New("a config was handed over")

// handedOver is a launcher's hand-over, validated: what the daemon
// becomes if it takes it.
type handedOver struct {
	pending  *ipc.PendingHandover
	settings Settings
	servers  []adapters.Server
	cat      *catalog.Catalog
	ln       net.Listener
}

// serveWarm starts the warm servers, tells the `warm` command they run,
// and waits for a hand-over, a stop or a signal; after a hand-over it runs
// as the daemon of that config (startAndRun). ready says whether the warm
// phase got as far as waiting (a stop then is a clean one), or, after a
// hand-over, whether the new daemon became ready. It never stops the
// servers: serve does.
func (d *daemon) serveWarm(t taken) (ready bool, err error) {
	logger := t.log.Logger()
	if err := startServers(t.sup, t.servers, d.settings.StartupTimeout, t.sigs, logger); err != nil {
		return false, err
	}
	ctl, err := ipc.ListenControl(d.settings.RunDir)
	if err != nil {
		return false, err
	}
	defer ctl.Close()
	hl, err := ipc.ListenHandover(d.settings.RunDir)
	if err != nil {
		return false, err
	}
	defer hl.Close()
	st := d.warmStatus(t.sup)
	if err := d.report.Send(ipc.Report{Event: ipc.EventWarm, PID: os.Getpid(), Servers: st.ServerCount, Tools: st.ToolCount}); err != nil {
		logger.Error("the warm command exited before the gateway was warm; stopping", "error", err)
		return false, fmt.Errorf("report warm: %w", err)
	}
	logger.Info("warm: the servers run; waiting for a config on the hand-over socket", "servers", st.ServerCount, "tools", st.ToolCount)
	ho, err := d.awaitHandover(t, ctl, hl, logger)
	if !errors.Is(err, errHandedOver) {
		return true, err
	}
	ctl.Close() // the configured daemon listens on its own
	hl.Close()  // one config only (SPEC §2.7)
	defer ho.ln.Close()
	return d.takeOver(t, ho)
}

// awaitHandover runs the warm phase's actors (signals, the control
// socket, the hand-over socket) until one returns: errHandedOver with
// the hand-over taken, or the reason to stop.
func (d *daemon) awaitHandover(t taken, ctl *ipc.ControlServer, hl *ipc.HandoverListener, logger *slog.Logger) (*handedOver, error) {
	var ho *handedOver
	var g run.Group
	for _, a := range []actor{
		signalActor(t.sigs),
		controlActor(ctl, d.warmControlHandler(t.sup, logger)),
		{func() error {
			for {
				p, err := hl.Accept()
				if err != nil {
					return nil // closed
				}
				h, err := d.checkHandover(p, t.log)
				if err != nil {
					logger.Warn("warm: a config handed over was refused; still warm", "error", err)
					p.Refuse(err)
					continue
				}
				ho = h
				return errHandedOver
			}
		}, func(error) { hl.Close() }},
	} {
		g.Add(a.execute, a.interrupt)
	}
	err := g.Run()
	if ho != nil && !errors.Is(err, errHandedOver) { // taken as the daemon stopped
		ho.ln.Close()
		ho.pending.Refuse(errors.New("the warm gateway is stopping"))
	}
	return ho, err
}

// checkHandover validates a hand-over as the launcher did, against its
// settings, and takes its port, so that one that cannot be served is
// refused and the warm daemon stays as it was. Its log file and memory
// budget must be the warm daemon's, which has been writing to the one and
// reading under the other.
func (d *daemon) checkHandover(p *ipc.PendingHandover, log *logfile.Log) (*handedOver, error) {
	var s Settings
	if err := json.Unmarshal(p.Settings, &s); err != nil {
		return nil, fmt.Errorf("decode settings: %w", err)
	}
	if s.LogFile != d.settings.LogFile {
		return nil, fmt.Errorf("this warm gateway logs to %s: launch with --log-file %s, or stop it first (mcp-gateway stop)", d.settings.LogFile, d.settings.LogFile)
	}
	if s.MemoryBudget != d.settings.MemoryBudget {
		return nil, fmt.Errorf("this warm gateway's memory budget is %s: launch with --memory-budget %s, or stop it first (mcp-gateway stop)",
			bytesize.Format(d.settings.MemoryBudget), bytesize.Format(d.settings.MemoryBudget))
	}
	servers, _, cat, err := Resolve(s, p.Config, log)
	if err != nil {
		var re *ResolveError
		if errors.As(err, &re) {
			return nil, errors.New(Explain(err))
		}
		return nil, err
	}
	ln, err := listen(s.Addr())
	if err != nil {
		return nil, err
	}
	return &handedOver{pending: p, settings: s, servers: servers, cat: cat, ln: ln}, nil
}

// takeOver makes the warm daemon the daemon of the config handed over:
// its settings and token, its servers (adopted, stopped, started: SPEC
// §2.9), its endpoint; then it runs as any daemon does, reporting to the
// launcher that handed it over.
func (d *daemon) takeOver(t taken, ho *handedOver) (ready bool, err error) {
	d.report = ho.pending.Accept()
	d.settings, d.config, d.token = ho.settings, ho.pending.Config, ho.pending.Token
	t.log.AddSecrets(d.token)
	t.log.SetShare(d.settings.LogShare)
	env := ho.pending.Env
	if len(env) == 0 {
		env = os.Environ()
	}
	res := t.sup.Configure(ho.servers, withCodeDir(supervisor.Environ(env, nil), d.settings.CodeDir))
	attrs := []any{"adopted", strings.Join(res.Adopted, ","), "starting", strings.Join(res.Started, ","), "addr", ho.ln.Addr().String()}
	for _, name := range res.Stopped {
		attrs = append(attrs, "stopped."+name, res.Why[name])
	}
	t.log.Logger().Info("warm: a config was handed over", attrs...)
	t.servers, t.cat, t.ln = ho.servers, ho.cat, ho.ln
	t.gw = d.newAggregator(t)
	return d.startAndRun(t)
}

// warmControlHandler answers the control socket while the daemon is
// warm: status (warmStatus), stop; a reload has nothing to reload yet.
func (d *daemon) warmControlHandler(sup *supervisor.Supervisor, logger *slog.Logger) ipc.Handler {
	return func(_ context.Context, req ipc.Request) ipc.Response {
		switch req.Cmd {
		case ipc.CmdStatus:
			return statusResponse(d.warmStatus(sup))
		case ipc.CmdStop:
			logger.Info("stopping: requested with mcp-gateway stop")
			return ipc.Response{OK: true, PID: os.Getpid()}
		case ipc.CmdReload:
			return ipc.Response{Error: "this gateway is warm: it has no config yet, and reads the catalog file again when one is handed to it"}
		case ipc.CmdCode:
			return ipc.Response{Error: "this gateway is warm: it serves no tools until a config is handed to it (mcp-gateway --config)"}
		}
		return ipc.Response{Error: fmt.Sprintf("unknown command %q; want status, stop or reload", req.Cmd)}
	}
}

// warmStatus is `status` of a warm daemon: "warm", no address, and its
// servers as /health would show them.
func (d *daemon) warmStatus(sup *supervisor.Supervisor) StatusDoc {
	h := aggregator.Health{Status: StatusWarm}
	for _, u := range sup.Upstreams() {
		st := u.Status()
		h.Servers = append(h.Servers, aggregator.ServerHealth{Status: st})
		h.ToolCount += st.Tools
	}
	h.ServerCount, h.Tools = len(h.Servers), h.ToolCount
	return statusOf(h, "", d.version, d.started, d.settings)
}
