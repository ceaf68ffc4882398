package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
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
	inline := fs.String("config", "", `config JSON, e.g. '{"time": {}, "filesystem": {"paths": ["/data"]}}'`)
	file := fs.String("config-file", "", "read the config from this file")
	sf := addSettingsFlags(fs, true)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	s, err := sf.resolve()
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 2
	}
	config, err := readConfig(*inline, *file)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return configExit(err)
	}
	// Validate before anything starts (SPEC §2.1).
	servers, warnings, err := resolveServers(s, config, nil)
	if err != nil {
		printResolveError(stderr, err)
		return 1
	}
	printWarnings(stderr, warnings)
	if pid := ipc.Running(s.RunDir); pid != 0 {
		fmt.Fprintln(stderr, "mcp-gateway:", &ipc.RunningError{PID: pid, RunDir: s.RunDir})
		return 1
	}
	token, ok := os.LookupEnv(supervisor.TokenEnv)
	if !ok {
		token = ipc.NewToken()
	}
	warnToken(stderr, token)
	rep, err := startDaemon(s, config, token)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	fmt.Fprintf(stdout, "mcp-gateway: ready on http://%s/mcp (pid %d, %s, %s; token in %s; log in %s)\n",
		displayAddr(rep.Addr), rep.PID, count(len(servers), "server"), count(rep.Tools, "tool"), s.TokenFile, s.LogFile)
	return 0
}

// startDaemon starts the detached daemon, hands it config and token, and
// waits for its readiness report. On any failure the daemon is gone when it
// returns.
func startDaemon(s Settings, config []byte, token string) (ipc.Report, error) {
	self, err := os.Executable()
	if err != nil {
		return ipc.Report{}, fmt.Errorf("find own executable: %w", err)
	}
	// A launcher stopped while it waits (the SDK giving up, Ctrl-C) takes
	// the daemon with it: a daemon that became ready after its launcher
	// had failed would hold the run dir, and the retry would find it
	// "already running". (A launcher killed with SIGKILL cannot do this;
	// the daemon then notices at readiness that nobody is listening.)
	// Caught from before the daemon starts, so that none is missed.
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(interrupt)
	handR, handW, err := os.Pipe()
	if err != nil {
		return ipc.Report{}, fmt.Errorf("make hand-over pipe: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		handR.Close()
		handW.Close()
		return ipc.Report{}, fmt.Errorf("make report pipe: %w", err)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return ipc.Report{}, fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	defer devnull.Close()
	cmd := exec.Command(self, daemonCommand)
	cmd.Env = supervisor.Environ(os.Environ(), nil) // without the token
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, devnull
	cmd.ExtraFiles = []*os.File{handR, repW} // fds 3 and 4
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = "/"
	err = cmd.Start()
	handR.Close()
	repW.Close()
	if err != nil {
		handW.Close()
		repR.Close()
		return ipc.Report{}, fmt.Errorf("start daemon: %w", err)
	}
	pid := cmd.Process.Pid
	// The daemon is on its own; reap it only if it dies while we wait.
	exited := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(exited) }()

	settings, _ := json.Marshal(s)
	if err := ipc.WriteHandover(handW, ipc.Handover{Config: config, Token: token, Settings: settings}); err != nil {
		killDaemon(pid, exited)
		repR.Close()
		return ipc.Report{}, err
	}

	type outcome struct {
		rep ipc.Report
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		var final ipc.Report
		err := ipc.ReadReports(repR, func(r ipc.Report) bool {
			final = r
			return r.Event == ipc.EventProgress
		})
		done <- outcome{final, err}
	}()
	timer := time.NewTimer(s.StartupTimeout + launchGrace)
	defer timer.Stop()
	select {
	case sig := <-interrupt:
		killDaemon(pid, exited)
		repR.Close()
		return ipc.Report{}, fmt.Errorf("interrupted by %v while the daemon started; the daemon (pid %d) was stopped", sig, pid)
	case o := <-done:
		repR.Close()
		switch {
		case o.err == nil && o.rep.Event == ipc.EventReady:
			return o.rep, nil
		case o.err == nil && o.rep.Event == ipc.EventFailed:
			waitGone(pid, exited)
			return ipc.Report{}, errors.New(o.rep.Error)
		default:
			killDaemon(pid, exited)
			return ipc.Report{}, fmt.Errorf("the daemon (pid %d) exited before it was ready; see %s", pid, s.LogFile)
		}
	case <-timer.C:
		killDaemon(pid, exited)
		repR.Close()
		return ipc.Report{}, fmt.Errorf("the daemon did not become ready within %s; see %s", s.StartupTimeout+launchGrace, s.LogFile)
	}
}

// waitGone waits up to 10 s for a daemon that reported failure to exit,
// then kills it.
func waitGone(pid int, exited <-chan struct{}) {
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		killDaemon(pid, exited)
	}
}

// killDaemon sends SIGTERM (the daemon then stops its servers), waits 5 s,
// then SIGKILLs it (its servers die with it through Pdeathsig).
func killDaemon(pid int, exited <-chan struct{}) {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	select {
	case <-exited:
		return
	case <-time.After(5 * time.Second):
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	<-exited
}

// runDaemonChild is the detached daemon's entry point.
func runDaemonChild(stderr io.Writer) int {
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
	h, err := ipc.ReadHandover(hand)
	hand.Close()
	report := ipc.NewReporter(repw)
	if err != nil {
		report.Send(ipc.Report{Event: ipc.EventFailed, Error: err.Error()})
		return 1
	}
	var s Settings
	if err := json.Unmarshal(h.Settings, &s); err != nil {
		report.Send(ipc.Report{Event: ipc.EventFailed, Error: "decode settings: " + err.Error()})
		return 1
	}
	d := &daemon{settings: s, config: h.Config, token: h.Token, report: report}
	if err := d.run(); err != nil {
		return 1
	}
	return 0
}

func displayAddr(addr string) string {
	if strings.HasPrefix(addr, "[::]:") {
		return "0.0.0.0:" + strings.TrimPrefix(addr, "[::]:")
	}
	return addr
}

func printWarnings(w io.Writer, warnings []string) {
	for _, warn := range warnings {
		fmt.Fprintln(w, "mcp-gateway: warning:", warn)
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// warnToken says when a given token can never be matched: empty (SPEC §3.2:
// every request is refused) or with spaces around it.
func warnToken(w io.Writer, token string) {
	switch {
	case token == "":
		fmt.Fprintln(w, "mcp-gateway: warning: "+supervisor.TokenEnv+" is set but empty: every request will be refused with 401 (unset it to generate a token)")
	case strings.TrimSpace(token) != token || strings.ContainsAny(token, " \t\r\n"):
		fmt.Fprintln(w, "mcp-gateway: warning: "+supervisor.TokenEnv+" contains white space, which no Authorization header can carry: every request will be refused with 401")
	}
}
