package main

// The control commands status, stop and reload (SPEC §8.1), the CLI's
// side; the daemon's answers are package daemon's (control.go). The
// reload itself is package supervisor/reloader's (SPEC §6.3); status's
// printing is in status.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Client-side bounds of the control commands.
const (
	statusTimeout = 5 * time.Second
	// reloadTimeout covers the drain and a restart's start.
	reloadTimeout = supervisor.DefaultDrain + supervisor.DefaultStartTimeout + 15*time.Second
	// stopTimeout covers the daemon's shutdown: HTTP drain, then the
	// servers' stop sequence.
	stopTimeout = 30 * time.Second
)

// runStop is `mcp-gateway stop`: the daemon shuts down as on SIGTERM, and
// stop returns once it is gone.
func runStop(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stop", "Usage: mcp-gateway stop [--run-dir DIR]\n\nStops the running gateway (as SIGTERM does: in-flight calls finish briefly, then every server is stopped) and waits until it is gone. Exits 1 if no gateway was running.", stderr)
	sf := addSettingsFlags(fs, false)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	runDir := sf.s.RunDir
	ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
	defer cancel()
	resp, err := ipc.Control(ctx, runDir, ipc.Request{Cmd: ipc.CmdStop})
	pid := resp.PID
	if err != nil {
		if !errors.Is(err, ipc.ErrNoDaemon) {
			return controlFailed(stderr, "stop", runDir, err)
		}
		// No control socket: a daemon still starting, or none.
		pid = ipc.Running(runDir)
		if pid == 0 {
			fmt.Fprintf(stderr, "mcp-gateway: no gateway is running (nothing holds %s; one started with another run dir, as make run's is, needs --run-dir DIR)\n", runDir)
			return 1
		}
		if pid < 0 {
			fmt.Fprintf(stderr, "mcp-gateway: a gateway holds %s but its pid file is unreadable and it does not answer on its control socket\n", runDir)
			return 1
		}
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			fmt.Fprintf(stderr, "mcp-gateway: stop the gateway (pid %d): %v\n", pid, err)
			return 1
		}
	}
	deadline := time.Now().Add(stopTimeout)
	for !ipc.Gone(pid) || ipc.Running(runDir) == pid {
		if time.Now().After(deadline) {
			fmt.Fprintf(stderr, "mcp-gateway: the gateway (pid %d) is still stopping after %s; see its log\n", pid, stopTimeout)
			return 1
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Fprintf(stdout, "mcp-gateway: stopped (pid %d)\n", pid)
	return 0
}

// runReload is `mcp-gateway reload`: re-read the catalog file now.
func runReload(args []string, stdout, stderr io.Writer) int {
	resp, asJSON, code, ok := askDaemon(args, stderr, ipc.CmdReload, "Usage: mcp-gateway reload [--json] [--run-dir DIR]\n\nMakes the running gateway re-read its catalog file now (it also does so by itself when the file changes), restarts the servers whose command or environment changed, and prints what changed. Exits 1 if the file is invalid (the last good catalog stays), a restart failed, or no gateway is running.", "print the result as JSON", reloadTimeout)
	if !ok {
		return code
	}
	res := resp.Reload
	if res == nil {
		res = &ipc.ReloadResult{}
	}
	if asJSON {
		res.Normalize()
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		printReload(stdout, res)
	}
	if len(res.Failed) > 0 {
		return 1
	}
	return 0
}

func printReload(w io.Writer, res *ipc.ReloadResult) {
	if len(res.Added)+len(res.Removed)+len(res.Changed) == 0 {
		fmt.Fprintln(w, "catalog: no entry changed")
	} else {
		fmt.Fprintf(w, "catalog: added %s; removed %s; changed %s\n", list(res.Added), list(res.Removed), list(res.Changed))
	}
	if len(res.Updated) == 0 {
		fmt.Fprintln(w, "servers: no command or environment changed; nothing restarted")
	}
	for _, name := range res.Updated {
		switch {
		case slices.Contains(res.Restarted, name):
			fmt.Fprintf(w, "restarted %s: its command or environment changed\n", name)
		case slices.ContainsFunc(res.Failed, func(e ipc.ServerError) bool { return e.Server == name }):
		default:
			fmt.Fprintf(w, "updated %s: its command or environment changed; it was not running and starts with the new one on its next call\n", name)
		}
	}
	for _, f := range res.Failed {
		fmt.Fprintf(w, "FAILED to restart: %s\n", f.Error) // the error names the server
	}
	for _, k := range res.Kept {
		fmt.Fprintf(w, "warning: kept running on its last command: %s\n", oneLine(k.Error, 200)) // the error names the server
	}
}

// parseJSONCommand parses the flags of a command that prints text or,
// with --json (jsonUsage), JSON: catalog, status, reload. Their settings
// are the paths only (SPEC §10). If ok is false, the caller exits with
// code (0 for --help, 2 for bad usage).
func parseJSONCommand(args []string, stderr io.Writer, name, synopsis, jsonUsage string) (s daemon.Settings, asJSON bool, code int, ok bool) {
	fs := newFlagSet(name, synopsis, stderr)
	j := fs.Bool("json", false, jsonUsage)
	sf := addSettingsFlags(fs, false)
	if code, ok := parseFlags(fs, args); !ok {
		return s, false, code, false
	}
	return sf.s, *j, 0, true
}

// askDaemon is a control command that prints text or JSON (status,
// reload): it parses args as parseJSONCommand does, sends cmd to the
// daemon of the run dir and returns its answer, waiting at most timeout.
// If ok is false, why is printed and the caller exits with code.
func askDaemon(args []string, stderr io.Writer, cmd, synopsis, jsonUsage string, timeout time.Duration) (resp ipc.Response, asJSON bool, code int, ok bool) {
	s, asJSON, code, ok := parseJSONCommand(args, stderr, cmd, synopsis, jsonUsage)
	if !ok {
		return resp, false, code, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := ipc.Control(ctx, s.RunDir, ipc.Request{Cmd: cmd})
	if err != nil {
		return resp, false, controlFailed(stderr, cmd, s.RunDir, err), false
	}
	return resp, asJSON, 0, true
}

// controlFailed prints why a control command failed and returns 1.
func controlFailed(stderr io.Writer, cmd, runDir string, err error) int {
	if errors.Is(err, ipc.ErrNoDaemon) {
		switch pid := ipc.Running(runDir); {
		case pid > 0:
			fmt.Fprintf(stderr, "mcp-gateway: %s: the gateway (pid %d) does not answer on its control socket; it may be starting or stopping\n", cmd, pid)
		case pid < 0:
			fmt.Fprintf(stderr, "mcp-gateway: %s: a gateway holds %s but does not answer on its control socket\n", cmd, runDir)
		default:
			fmt.Fprintf(stderr, "mcp-gateway: %s: no gateway is running (nothing holds %s; one started with another run dir, as make run's is, needs --run-dir DIR)\n", cmd, runDir)
		}
		return 1
	}
	fmt.Fprintf(stderr, "mcp-gateway: %s: %v\n", cmd, err)
	return 1
}

func duration(seconds int64) string {
	return (time.Duration(seconds) * time.Second).String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func list(names []string) string {
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ", ")
}

// oneLine keeps the first line of s, cut to n runes.
func oneLine(s string, n int) string {
	s, _, cut := strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	} else if cut {
		return s + " …"
	}
	return s
}
