package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ShimCommand is the hidden subcommand that makes the gateway binary a
// shim: `mcp-gateway __shim <daemon-pid> -- <argv>…`.
//
// Why a shim: process groups and Pdeathsig alone do not survive `kill -9`
// of the daemon. Pdeathsig reaches only the direct child, so a server
// started as `sh -c 'node server.js'` that forks a helper would leave the
// helper running (SPEC §7.6). The shim sits between the daemon and the
// server, as the leader of the server's process group. It asks the kernel
// for SIGHUP when the daemon dies and then SIGKILLs the whole group and any
// descendant that left it. It is a child subreaper, so orphaned
// grandchildren stay below it. Otherwise it is transparent: the server
// inherits its stdin, stdout and stderr, and the shim exits with the
// server's status (re-raising a fatal signal). Cost: one small Go process
// per server.
const ShimCommand = "__shim"

// ShimArgv returns the argv prefix that runs servers under the shim of
// this executable for this daemon, for Command.Shim:
// [<os.Executable()>, "__shim", <daemon pid>, "--"]. Its one error is
// os.Executable's.
func ShimArgv() ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own executable: %w", err)
	}
	return []string{self, ShimCommand, strconv.Itoa(os.Getpid()), "--"}, nil
}

// ShimMain runs the shim with args, the command line after ShimCommand
// (<daemon-pid> -- <argv>…), and returns the exit code for a normal exit:
// the server's own; for a server killed by signal n, the shim kills itself
// with n, or returns 128+n if that does not end it; 127 if the server
// could not be started, 2 for a bad command line, 1 when the daemon died.
// The binary's main calls it when its first argument is ShimCommand,
// before anything else.
func ShimMain(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "mcp-gateway __shim: internal command; usage: __shim <daemon-pid> -- <argv>…")
		return 2
	}
	daemon, _ := strconv.Atoi(args[0])
	argv := args[2:]

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGHUP), 0, 0, 0)
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	if os.Getppid() != daemon {
		killTree() // the daemon died before we could ask to be told
		return 1
	}
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "start %s: %v\n", argv[0], err)
		return 127
	}
	// Let go of our copies of the pipes: a server that closes its stdout
	// must look closed to the daemon, whose reader waits for EOF.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		_ = unix.Dup2(int(null.Fd()), 0)
		_ = unix.Dup2(int(null.Fd()), 1)
		null.Close()
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for {
		select {
		case <-hup:
			killTree()
			return 1
		case sig := <-term:
			_ = cmd.Process.Signal(sig)
		case err := <-exited:
			// Descendants that left the process group (setsid) were
			// re-parented to us, the subreaper; they end with the server.
			for _, pid := range descendantsOf(os.Getpid()) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			return exitLike(err)
		}
	}
}

// exitLike ends the shim the way the server ended.
func exitLike(err error) int {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		if err != nil {
			return 1
		}
		return 0
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal())
	}
	return exit.ExitCode()
}

// killTree SIGKILLs every descendant of this process, then its process
// group (itself included).
func killTree() {
	for _, pid := range descendantsOf(os.Getpid()) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(0, syscall.SIGKILL)
}

// descendantsOf lists the processes below pid, from /proc.
func descendantsOf(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 {
			pp, _ := strconv.Atoi(f[1])
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q, n := parent[p], 0; q > 1 && n < 64; q, n = parent[q], n+1 {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
