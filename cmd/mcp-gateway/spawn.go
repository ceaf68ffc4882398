package main

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// daemonProc is the detached daemon while its launcher waits for it.
type daemonProc struct {
	cmd    *exec.Cmd
	once   sync.Once
	exited chan struct{} // closed once the daemon is reaped (after reap)
}

// spawnDaemon starts the detached daemon (SPEC §2.1: its own session, its
// stdio on /dev/null, in "/") with the hand-over pipe on fd 3 and the
// report pipe on fd 4 (SPEC §2.6). The caller writes the hand-over to
// handW and reads the reports from repR.
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
		return nil, nil, nil, fmt.Errorf("start daemon: %w", err)
	}
	return &daemonProc{cmd: cmd, exited: make(chan struct{})}, handW, repR, nil
}

// reap starts, once, the goroutine that waits for the daemon's exit, and
// returns the channel it closes then. Only the failure paths call it, and
// each of them waits on that channel before it returns (kill and
// waitGone end with the daemon reaped), so the goroutine is always
// joined. A ready daemon is never waited for: it outlives the launcher.
func (p *daemonProc) reap() <-chan struct{} {
	p.once.Do(func() {
		go func() { _, _ = p.cmd.Process.Wait(); close(p.exited) }()
	})
	return p.exited
}

// waitGone waits up to 10 s for a daemon that reported failure to exit,
// then kills it.
func (p *daemonProc) waitGone() {
	select {
	case <-p.reap():
	case <-time.After(10 * time.Second):
		p.kill()
	}
}

// kill sends SIGTERM (the daemon then stops its servers), waits 5 s,
// then SIGKILLs it (its servers die with it through Pdeathsig), and
// returns once it is reaped.
func (p *daemonProc) kill() {
	exited := p.reap()
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-exited:
		return
	case <-time.After(5 * time.Second):
	}
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}
