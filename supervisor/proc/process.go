package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
)

// Command is what Start runs.
type Command struct {
	// Argv is the program and its arguments, as exec.Command takes them
	// (a name without a slash is looked up in the daemon's PATH).
	Argv []string
	// Dir is the working directory; "" is the daemon's own.
	Dir string
	// Env is the child's whole environment, "NAME=value" each. Which
	// variables a child gets is the caller's policy (SPEC §7.1).
	Env []string
	// Log receives stderr, line by line under Source (the server's name),
	// with its secrets masked (SPEC §7.4, §7.5).
	Log    *logfile.Log
	Source string
	// Wide asks for stdin and stdout pipes of pipeSize bytes: those of a
	// stdio server, which carry its messages (an HTTP server's carry
	// none).
	Wide bool
}

// Process is one running child, in a process group of its own (its pid
// is the group's id). Its owner goroutine, waitExit, is the only caller
// of cmd.Wait; it records the exit under mu and closes exited. Everyone
// else learns of the exit from Exited.
type Process struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	tail   *tail
	// widened is how many of its pipes count in wideCount (pipeSize),
	// until waitExit gives them back.
	widened int

	started    time.Time
	stdoutDone chan struct{} // closed by ReadStdout when the reader returns
	stderrDone chan struct{} // closed by the stderr copier when it returns
	exited     chan struct{} // closed by waitExit once the exit is recorded
	mu         sync.Mutex
	state      *os.ProcessState
	waitErr    error
}

// Start starts c in its own process group, and two goroutines: its owner
// (waitExit) and its stderr copier, which the owner waits for. The caller
// must read stdout with ReadStdout, once; the owner waits for that reader
// too, for up to stdoutDrain after the exit.
//
// The child gets SIGKILL when the daemon dies (Pdeathsig, SPEC §7.6);
// what it started is then the keeper's to kill (keeper.go). Errors:
// "make stdin pipe: …" and the like, or "start <program>: …" wrapping
// exec's error (a missing program is exec.ErrNotFound or fs.ErrNotExist).
// On error nothing is left running or open.
func Start(c Command) (*Process, error) {
	argv := c.Argv
	theirs, ours, widened, err := pipes(c.Wide)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs[0], theirs[1], theirs[2]
	// Own process group, so stop signals reach grandchildren (sh -c …);
	// SIGKILL if the daemon dies (SPEC §7.6).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	closeAll(theirs[:])
	if err != nil {
		closeAll(ours[:])
		wideCount.Add(-int64(widened))
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	inW, outR, errR := ours[0], ours[1], ours[2]
	p := &Process{
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		stdin:      inW,
		stdout:     outR,
		tail:       newTail(20),
		widened:    widened,
		started:    time.Now(),
		stdoutDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	log := c.Log
	go func() {
		defer close(p.stderrDone)
		log.CopyLines(c.Source, errR, func(s string) { p.tail.add(log.Mask(s)) })
	}()
	go p.waitExit(errR)
	return p, nil
}

// pipes makes the child's stdin, stdout and stderr pipes: theirs are the
// ends the child gets, ours the ends the gateway keeps, in that order.
// With wide, stdin and stdout hold pipeSize bytes if wideCount has room
// for both (widened says how many do). On error none is left open, and
// none counts in wideCount.
func pipes(wide bool) (theirs, ours [3]*os.File, widened int, err error) {
	wide = wide && reserveWide()
	held := 0 // of the room reserved, what still counts
	if wide {
		held = 2
	}
	for i, name := range []string{"stdin", "stdout", "stderr"} {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(theirs[:i])
			closeAll(ours[:i])
			wideCount.Add(-int64(held))
			return theirs, ours, 0, fmt.Errorf("make %s pipe: %w", name, err)
		}
		if i == 0 {
			theirs[i], ours[i] = r, w // the child reads its stdin
		} else {
			theirs[i], ours[i] = w, r
		}
		if wide && i < 2 { // stderr carries log lines
			if widen(ours[i]) {
				widened++
			} else {
				held--
				wideCount.Add(-1)
			}
		}
	}
	return theirs, ours, widened, nil
}

// pipeSize is what a child's stdin and stdout pipes hold, in bytes
// (F_SETPIPE_SZ; the kernel's default is 64 KiB). A message crosses a
// pipe a pipeful at a time, each one a wake-up of the writer once the
// reader has emptied it: an 8 MiB argument crossed in 128 of them (issue
// 33). A pipe's pages are taken only while they hold unread bytes; its
// size counts against its user's share of pipe memory
// (/proc/sys/fs/pipe-user-pages-soft, 64 MiB; past it the user's new
// pipes get 8 KiB), of which a server's three pipes then take 576 KiB
// rather than 192, for at most maxWide pipes. 1 MiB went no faster. A
// pipe the kernel does not widen (that share spent, pipe-max-size
// lowered) keeps its size.
const pipeSize = 256 << 10

// maxWide bounds the pipes the daemon keeps widened at once: 64, 32
// stdio servers'. The widening then takes at most 12 MiB of the user's
// share of pipe memory (pipe-user-pages-soft, 64 MiB by default) beyond
// what the kernel's pipes take; past it servers get the kernel's pipes
// (a hostile review: 113 servers took the whole share, after which the
// user's new pipes held 8 KiB). A pipe is counted from its widening
// until its server's owner gives it back (waitExit); a descendant the
// server left behind, in a session of its own, can hold it open longer.
const maxWide = 64

// wideCount counts the pipes widened now, or reserved for widening.
var wideCount atomic.Int64

// reserveWide reserves room in wideCount for a server's two pipes, and
// reports whether there was.
func reserveWide() bool {
	if wideCount.Add(2) > maxWide {
		wideCount.Add(-2)
		return false
	}
	return true
}

// widen asks the kernel to make f's pipe pipeSize bytes, and reports
// whether it did; a refusal leaves the pipe as it is.
func widen(f *os.File) bool {
	sc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	if cerr := sc.Control(func(fd uintptr) {
		_, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
	}); cerr != nil {
		return false
	}
	return err == nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

const (
	// stderrDrain bounds how long a child's stderr is still read after the
	// child has exited and its group was killed. Only a grandchild that
	// left the group (setsid) can hold the pipe open past that; the pipe is
	// then closed, and what the grandchild writes later is not logged.
	stderrDrain = 2 * time.Second
	// stdoutDrain bounds how long, after the child has exited and its
	// group was killed, the reader may still take to reach the end of its
	// stdout. As with stderr, only a grandchild that left the group can
	// hold it open; the pipe is then closed, which ends the reader.
	stdoutDrain = 1 * time.Second
)

// waitExit is the child's owner (STYLE §3): the one goroutine that calls
// cmd.Wait. Once the child has exited it kills what is left of its process
// group, so that grandchildren cannot hold its pipes open, lets the
// stdout reader and the stderr copier reach the end
// of their pipes (for up to stdoutDrain and stderrDrain from the exit),
// gives its widened pipes back (wideCount), records the exit under mu
// and closes exited.
func (p *Process) waitExit(errR *os.File) {
	err := p.cmd.Wait()
	p.Kill()
	exited := time.Now()
	drain(p.stdout, p.stdoutDone, time.Until(exited.Add(stdoutDrain)))
	drain(errR, p.stderrDone, time.Until(exited.Add(stderrDrain)))
	wideCount.Add(-int64(p.widened)) // its pipes are closed, or soon will be (Stop closes stdin)
	p.mu.Lock()
	p.state = p.cmd.ProcessState
	p.waitErr = err
	p.mu.Unlock()
	close(p.exited)
}

// drain waits up to d for the reader of pipe to finish (done). Past that
// it closes pipe, which ends the reader, and waits for it.
func drain(pipe *os.File, done <-chan struct{}, d time.Duration) {
	if !within(context.Background(), done, d) {
		pipe.Close() // a setsid'd grandchild holds the pipe open; stop reading
		<-done
	}
	pipe.Close()
}

// Kill sends SIGKILL to the whole process group at once. It does not
// wait: Exited says when the child is gone.
func (p *Process) Kill() {
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
}

// within waits up to d for done to close, or until ctx ends, and reports
// whether done closed. d is always one of the named waits (stop.go's and
// the drains above).
func within(ctx context.Context, done <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// ReadStdout runs read on the child's stdout in the calling goroutine
// until it returns (at EOF, or once the owner closed the pipe, at most
// stdoutDrain after the exit), then closes the pipe and tells the owner.
// Call it exactly once.
func (p *Process) ReadStdout(read func(io.Reader)) {
	read(p.stdout)
	p.stdout.Close()
	close(p.stdoutDone)
}

// Stdin is the gateway's end of the child's stdin. Writes to it may use
// a deadline (SetWriteDeadline); Stop closes it first.
func (p *Process) Stdin() *os.File { return p.stdin }

// PID is the child's process id, which is also its process group's.
func (p *Process) PID() int { return p.pid }

// Started is when the child was started.
func (p *Process) Started() time.Time { return p.started }

// Exited is closed once the child has exited, its pipes are drained and
// its exit is recorded (ExitStatus).
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitStatus describes how the process ended: "exit status 1" or
// "signal: killed". Empty while it runs.
func (p *Process) ExitStatus() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state == nil {
		if p.waitErr != nil {
			return p.waitErr.Error()
		}
		return ""
	}
	return p.state.String()
}

// StderrTail is the last lines of the child's stderr, up to 10 of them,
// masked, each cut at 500 bytes, joined with " | "; "" if it wrote none.
func (p *Process) StderrTail() string { return p.tail.String() }
