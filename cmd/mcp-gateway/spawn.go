package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// daemonProc is the detached daemon while its launcher waits for it: the
// launcher's child, the daemon's keeper (proc.KeeperCommand), and the
// daemon's own pid once its first report gives it.
type daemonProc struct {
	keeper *exec.Cmd
	pid    atomic.Int64 // the daemon's; 0 until it reports
	once   sync.Once
	exited chan struct{} // closed once the keeper is reaped (after reap)
}

// spawnDaemon starts the daemon's keeper (SPEC §2.1: in its own session,
// its stdio on /dev/null, in "/"), which starts the daemon, with the
// hand-over pipe on fd 3 and the report pipe on fd 4 (SPEC §2.6). The
// caller writes the hand-over to handW and reads the reports from repR.
func spawnDaemon() (p *daemonProc, handW, repR *os.File, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("find own executable: %w", err)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open %s: %w", os.DevNull, err)
	}
	defer devnull.Close()
	handR, handW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("make hand-over pipe: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		handR.Close()
		handW.Close()
		return nil, nil, nil, fmt.Errorf("make report pipe: %w", err)
	}
	cmd := exec.Command(self, proc.KeeperCommand)
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
		return nil, nil, nil, fmt.Errorf("start daemon: %w", err)
	}
	return &daemonProc{keeper: cmd, exited: make(chan struct{})}, handW, repR, nil
}

// runKeeper is the keeper's entry point (`mcp-gateway __keeper`): it
// starts the daemon as its child with the launcher's fds 3 and 4, and
// keeps it (proc.Keep) until it and all below it are gone.
func runKeeper(stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway: find own executable:", err)
		return 1
	}
	hand, rep := os.NewFile(ipc.HandoverFD, "handover"), os.NewFile(ipc.ReportFD, "report")
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	// The daemon holds the pipes from here on: the launcher must see
	// their end when the daemon's end comes, not the keeper's.
	code, err := proc.Keep([]string{self, daemonCommand}, os.Environ(), "/", []*os.File{devnull, devnull, devnull, hand, rep},
		func(int) { hand.Close(); rep.Close(); devnull.Close() })
	if err != nil {
		ipc.NewReporter(rep).Send(ipc.Report{Event: ipc.EventFailed, Error: err.Error()})
	}
	return code
}

// noteReport takes the daemon's pid from its first report.
func (p *daemonProc) noteReport(r ipc.Report) {
	if r.Event == ipc.EventProgress && r.PID > 0 {
		p.pid.Store(int64(r.PID))
	}
}

// name is "the daemon (pid N)", or "the daemon" before it reported.
func (p *daemonProc) name() string {
	if pid := p.pid.Load(); pid > 0 {
		return "the daemon (pid " + strconv.FormatInt(pid, 10) + ")"
	}
	return "the daemon"
}

// reap starts, once, the goroutine that waits for the keeper's exit, and
// returns the channel it closes then. Only the failure paths call it, and
// each of them waits on that channel before it returns (kill and
// waitGone end with the keeper reaped), so the goroutine is always
// joined. A ready daemon is never waited for: it outlives the launcher.
func (p *daemonProc) reap() <-chan struct{} {
	p.once.Do(func() {
		go func() { _, _ = p.keeper.Process.Wait(); close(p.exited) }()
	})
	return p.exited
}

// waitGone waits up to 10 s for a daemon that reported failure to exit
// (its keeper exits with it), then kills it.
func (p *daemonProc) waitGone() {
	select {
	case <-p.reap():
	case <-time.After(10 * time.Second):
		p.kill()
	}
}

// kill sends SIGTERM, which the keeper passes to the daemon (which then
// stops its servers), and waits 5 s; then SIGKILLs the daemon (its
// keeper kills what it left and exits), and waits 5 s more; then kills
// keeper and daemon at once. It returns once the keeper is reaped.
func (p *daemonProc) kill() {
	exited := p.reap()
	_ = p.keeper.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return
	case <-time.After(5 * time.Second):
	}
	if pid := p.pid.Load(); pid > 0 {
		_ = syscall.Kill(int(pid), syscall.SIGKILL)
		select {
		case <-exited:
			return
		case <-time.After(5 * time.Second):
		}
	}
	_ = syscall.Kill(-p.keeper.Process.Pid, syscall.SIGKILL) // the keeper's group: it and the daemon
	<-exited
}
