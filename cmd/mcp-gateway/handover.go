package main

// The launcher's side of a warm start (SPEC §2.9): when the run dir is
// held, the config, token and environment are handed to the daemon that
// holds it, over its hand-over socket; only a warm daemon listens there,
// so any other is reported as running (SPEC §2.7).

import (
	"encoding/json"
	"errors"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// handOver hands the config and token to the warm daemon pid (> 0)
// holding the run dir, and waits for it as for a daemon the launcher
// started (awaitReady). A daemon that is not warm, or was configured
// already, is a *ipc.RunningError.
func handOver(s daemon.Settings, config []byte, token string, pid int) (ipc.Report, error) {
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(interrupt)
	w := &warmProc{pid: pid, runDir: s.RunDir}
	settings, _ := json.Marshal(s)
	h := ipc.Handover{Config: config, Token: token, Settings: settings, Env: supervisor.Environ(os.Environ(), nil)}
	conn, err := ipc.DialHandover(s.RunDir, h)
	if errors.Is(err, ipc.ErrNotWarm) {
		return ipc.Report{}, w.running()
	}
	if err != nil {
		return ipc.Report{}, err
	}
	return awaitReady(w, conn, interrupt, s)
}

// warmProc is a warm daemon the launcher hands a config to: not its
// child, so it is watched by pid (ipc.Gone).
type warmProc struct {
	pid    int
	runDir string
}

var _ daemonHandle = (*warmProc)(nil)

func isWarm(p daemonHandle) bool { _, ok := p.(*warmProc); return ok }

func (w *warmProc) running() error { return &ipc.RunningError{PID: w.pid, RunDir: w.runDir} }

func (w *warmProc) noteReport(ipc.Report) {}

func (w *warmProc) name() string { return "the warm daemon (pid " + strconv.Itoa(w.pid) + ")" }

// kill sends SIGTERM, waits 5 s for the daemon to be gone, then SIGKILLs
// it (its keeper takes its servers down) and waits 5 s more.
func (w *warmProc) kill() {
	if w.pid <= 0 {
		return // never kill(-1, …): that is every process
	}
	_ = syscall.Kill(w.pid, syscall.SIGTERM)
	if w.gone(5 * time.Second) {
		return
	}
	_ = syscall.Kill(w.pid, syscall.SIGKILL)
	w.gone(5 * time.Second)
}

func (w *warmProc) waitGone() {
	if !w.gone(10 * time.Second) {
		w.kill()
	}
}

// gone waits up to d for the daemon to be gone.
func (w *warmProc) gone(d time.Duration) bool {
	for deadline := time.Now().Add(d); !ipc.Gone(w.pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}
