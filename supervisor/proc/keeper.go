package proc

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// KeeperCommand is the hidden subcommand that makes the gateway binary
// the keeper: `mcp-gateway __keeper`, which starts the daemon as its
// child (see the launcher).
//
// Why a keeper: process groups and Pdeathsig alone do not survive
// `kill -9` of the daemon (SPEC §7.6). Pdeathsig reaches only the direct
// child: a server started as `sh -c 'node server.js'`, or one that forks
// helpers, would leave them running. The keeper is the daemon's parent
// and a child subreaper, so every process below the daemon that loses
// its parent, the daemon's own children when the daemon dies included,
// is re-parented to it rather than to init. When the daemon exits,
// however it exits, the keeper kills everything still below it, reaps
// it, and exits with the daemon's status. It costs one small process per
// daemon, started before the daemon; the servers themselves are the
// daemon's direct children, with nothing in between.
//
// The keeper forwards SIGTERM, SIGINT and SIGHUP to the daemon. If the
// keeper itself is killed, the daemon gets SIGTERM (its Pdeathsig) and
// stops its servers as on any SIGTERM.
const KeeperCommand = "__keeper"

// leftoverPoll is how often Keep looks again for processes left below
// it once the daemon has exited, until none is left.
const leftoverPoll = 10 * time.Millisecond

// Keep runs argv as the kept daemon: its child, with files as its file
// descriptors 0, 1, 2, 3, … (nil for none), in dir, with env, and
// SIGTERM as its Pdeathsig. started, if set, is called once the daemon
// runs, with its pid (the caller closes its copies of the daemon's
// files there). Keep makes the calling process a child subreaper, so it
// should be the process's one job: it returns only once the daemon has
// exited and every process that was below it is gone, with the daemon's
// exit code (128+n for a signal n).
func Keep(argv, env []string, dir string, files []*os.File, started func(pid int)) (int, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 1, fmt.Errorf("become the servers' reaper: %w", err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	daemon, err := os.StartProcess(argv[0], argv, &os.ProcAttr{
		Dir: dir, Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM},
	})
	if err != nil {
		return 1, fmt.Errorf("start daemon: %w", err)
	}
	if started != nil {
		started(daemon.Pid)
	}
	done := make(chan struct{})
	defer close(done)
	go func() { // ends with Keep (done)
		for {
			select {
			case sig := <-sigs:
				_ = daemon.Signal(sig) // by pidfd: never another process that took its pid
			case <-done:
				return
			}
		}
	}()
	return reapAll(daemon.Pid), nil
}

// reapAll reaps every child until the daemon has exited, then kills all
// that is left below this process, reaps it, and returns the daemon's
// exit code.
func reapAll(daemon int) int {
	code := 0
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil { // ECHILD: no child at all, so no daemon either
			return code
		}
		if pid == daemon {
			code = exitCode(ws)
			break
		}
	}
	for {
		killRefs(descendants(os.Getpid()))
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.ECHILD) {
				return code
			}
			if pid <= 0 && !errors.Is(err, syscall.EINTR) {
				break // some are left, still dying, or forked meanwhile
			}
		}
		time.Sleep(leftoverPoll)
	}
}

func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}
