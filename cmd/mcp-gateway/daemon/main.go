package daemon

// The daemon process, from what arrives on its pipes to its exit: the
// resources it takes in order, then a warm or a configured run
// (warm.go, daemon.go), and the one place its servers are stopped.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/oklog/run"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Main is the daemon process's entry point (`mcp-gateway __daemon`, the
// keeper's child, SPEC §2.6): it reads its config, token and settings on
// the hand-over pipe, reports on the report pipe, and runs until it
// stops. version is the gateway's, for initialize, status and telemetry.
func Main(stderr io.Writer, version string) int {
	hand := os.NewFile(ipc.HandoverFD, "handover")
	repw := os.NewFile(ipc.ReportFD, "report")
	if hand == nil || repw == nil {
		fmt.Fprintln(stderr, "mcp-gateway: this command is internal; use mcp-gateway --config")
		return 2
	}
	// Inherited without close-on-exec: set it, or every server started
	// before the ready report would hold the report pipe (and could write
	// a report of its own to the launcher).
	syscall.CloseOnExec(ipc.HandoverFD)
	syscall.CloseOnExec(ipc.ReportFD)
	report := ipc.NewReporter(repw)
	// The first report gives the launcher the daemon's pid: its child is
	// the keeper, and the daemon is what it may have to kill.
	report.Send(ipc.Report{Event: ipc.EventProgress, Message: "daemon started", PID: os.Getpid()})
	h, err := ipc.ReadHandover(hand)
	hand.Close()
	if err != nil {
		report.Send(ipc.Report{Event: ipc.EventFailed, Error: err.Error()})
		return 1
	}
	var s Settings
	if err := json.Unmarshal(h.Settings, &s); err != nil {
		report.Send(ipc.Report{Event: ipc.EventFailed, Error: "decode settings: " + err.Error()})
		return 1
	}
	d := &daemon{settings: s, config: h.Config, token: h.Token, warm: h.Warm, report: report, version: version}
	if err := d.run(); err != nil {
		return 1
	}
	return 0
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

// stopServersTimeout bounds the graceful part of stopping every server
// (in parallel; the stop sequence itself takes at most 2 s + 2 s); past
// it the process groups are killed (SPEC §7.6).
const stopServersTimeout = 5 * time.Second

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
	mem, stopFloor := newBudget(d.settings.MemoryBudget, logger)
	defer stopFloor()
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
