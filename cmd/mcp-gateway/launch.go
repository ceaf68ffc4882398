package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/ipc"
)

// daemonCommand is the hidden argv[1] of the detached daemon. Its config,
// token and settings arrive on the hand-over pipe, never in argv or env.
const daemonCommand = "__daemon"

// launchGrace is how much longer than --startup-timeout the launcher waits
// for the daemon's report, to cover the daemon's own cleanup.
const launchGrace = 4 * time.Second

// runLaunch is `mcp-gateway --config '<json>'` (SPEC §2).
func runLaunch(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcp-gateway", "Usage: mcp-gateway --config '<json>' | --config-file FILE [flags]\n\nValidates the config, starts the gateway daemon in the background, and exits 0 once the endpoint is ready.", stderr)
	in, code, ok := parseDaemonInput(fs, args, stderr)
	if !ok {
		return code
	}
	s := in.settings
	token := tokenFromEnv(stderr)
	var rep ipc.Report
	var err error
	switch pid := ipc.Running(s.RunDir); {
	case pid < 0: // held, but its pid file unreadable: nothing to hand over to, or to kill
		err = &ipc.RunningError{PID: pid, RunDir: s.RunDir}
	case pid > 0:
		// A warm daemon (SPEC §2.9) takes the config; any other refuses.
		rep, err = handOver(s, in.config, token, pid)
	default:
		rep, err = startDaemon(s, ipc.Handover{Config: in.config, Token: token})
	}
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	fmt.Fprintln(stdout, readyLine(rep, len(in.servers), s))
	return 0
}

// readyLine is the one line the launcher and `serve` print once the
// daemon is ready (SPEC §2.2).
func readyLine(rep ipc.Report, servers int, s daemon.Settings) string {
	return fmt.Sprintf("mcp-gateway: ready on http://%s/mcp (pid %d, %s, %s; token in %s; log in %s)",
		daemon.DisplayAddr(rep.Addr), rep.PID, count(servers, "server"), count(rep.Tools, "tool"), s.TokenFile, s.LogFile)
}

// startDaemon starts the detached daemon, hands it config and token, and
// waits for its readiness report. On any failure the daemon is gone when it
// returns. Every goroutine it starts has ended when it returns, except on
// success, where none waits for the daemon: it outlives the launcher.
func startDaemon(s daemon.Settings, h ipc.Handover) (ipc.Report, error) {
	// A launcher stopped while it waits (the SDK giving up, Ctrl-C) takes
	// the daemon with it: a daemon that became ready after its launcher
	// had failed would hold the run dir, and the retry would find it
	// "already running". (A launcher killed with SIGKILL cannot do this;
	// the daemon then notices at readiness that nobody is listening.)
	// Caught from before the daemon starts, so that none is missed.
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(interrupt)
	p, handW, repR, err := spawnDaemon()
	if err != nil {
		return ipc.Report{}, err
	}
	h.Settings, _ = json.Marshal(s)
	if err := ipc.WriteHandover(handW, h); err != nil {
		p.kill()
		repR.Close()
		return ipc.Report{}, err
	}
	return awaitReady(p, repR, interrupt, s)
}

// daemonHandle is the daemon a launcher waits for: one it started
// (daemonProc), or a warm one it handed a config to (warmProc).
type daemonHandle interface {
	noteReport(r ipc.Report) // each report, as it comes
	name() string            // "the daemon (pid N)", for messages
	kill()                   // stop it; return once it is gone
	waitGone()               // wait, bounded, for one that reported failure to exit; else kill it
}

// awaitReady reads the daemon's reports from repR until ready (or warm,
// from a daemon `mcp-gateway warm` started), failed or refused, the end of
// repR, a signal on interrupt, or the startup timeout plus launchGrace. On
// anything but ready, warm and refused (a warm daemon that refuses a
// config stays as it was), the daemon is gone when it returns. It closes
// repR, and joins the goroutine that reads it.
func awaitReady(p daemonHandle, repR io.ReadCloser, interrupt <-chan os.Signal, s daemon.Settings) (ipc.Report, error) {
	var (
		final   ipc.Report
		readErr error
	)
	read := make(chan struct{})
	go func() { // joined below; closing repR ends it
		defer close(read)
		readErr = ipc.ReadReports(repR, func(r ipc.Report) bool {
			p.noteReport(r)
			final = r
			return r.Event == ipc.EventProgress || r.Event == ipc.EventAccepted
		})
	}()
	defer func() { repR.Close(); <-read }()
	timer := time.NewTimer(s.StartupTimeout + launchGrace)
	defer timer.Stop()
	select {
	case sig := <-interrupt:
		p.kill()
		return ipc.Report{}, fmt.Errorf("interrupted by %v while the daemon started; %s was stopped", sig, p.name())
	case <-read:
		switch {
		case readErr == nil && (final.Event == ipc.EventReady || final.Event == ipc.EventWarm):
			return final, nil
		case readErr == nil && final.Event == ipc.EventRefused:
			return ipc.Report{}, errors.New(final.Error)
		case readErr == nil && final.Event == ipc.EventFailed:
			p.waitGone()
			return ipc.Report{}, errors.New(final.Error)
		case final.Event == "" && isWarm(p):
			// The warm daemon closed without a word: another launch
			// took it first.
			return ipc.Report{}, p.(*warmProc).running()
		default:
			p.kill()
			return ipc.Report{}, fmt.Errorf("%s exited before it was ready; see %s", p.name(), s.LogFile)
		}
	case <-timer.C:
		p.kill()
		return ipc.Report{}, fmt.Errorf("the daemon did not become ready within %s; see %s", s.StartupTimeout+launchGrace, s.LogFile)
	}
}
