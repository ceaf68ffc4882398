package supervisor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
)

// TokenEnv is the variable that carries the gateway token. It is removed
// from every child's environment (SPEC §7.1).
const TokenEnv = "GATEWAY_ACCESS_TOKEN"

// StopTimeouts are the waits of the stop sequence (STYLE 4, MCP 2025-06-18
// lifecycle §Shutdown/stdio): close stdin, wait CloseWait; SIGTERM the
// process group, wait TermWait; then SIGKILL the group. A zero field takes
// its default.
type StopTimeouts struct {
	CloseWait time.Duration // default defaultCloseWait (2 s)
	TermWait  time.Duration // default defaultTermWait (2 s)
}

const (
	// defaultCloseWait is how long a child may take to exit by itself once
	// its stdin is closed, the polite end of an MCP stdio session.
	defaultCloseWait = 2 * time.Second
	// defaultTermWait is how long its process group may take to exit after
	// SIGTERM before it is killed.
	defaultTermWait = 2 * time.Second
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

func (t StopTimeouts) withDefaults() StopTimeouts {
	if t.CloseWait <= 0 {
		t.CloseWait = defaultCloseWait
	}
	if t.TermWait <= 0 {
		t.TermWait = defaultTermWait
	}
	return t
}

// process is one running child. Its owner goroutine, waitExit (started by
// startProcess), is the only caller of cmd.Wait; it records the exit under
// mu and closes exited. Everyone else learns of the exit from exited.
type process struct {
	cmd    *exec.Cmd
	pid    int
	stdin  *os.File // our end of the child's stdin
	stdout *os.File // our end of the child's stdout
	tail   *tail

	started    time.Time
	stdoutDone chan struct{} // closed by readStdout when the reader returns
	stderrDone chan struct{} // closed by the stderr copier when it returns
	exited     chan struct{} // closed by waitExit once the exit is recorded
	mu         sync.Mutex
	state      *os.ProcessState
	waitErr    error
}

// Environ returns the environment for a child: base minus TokenEnv, plus
// extra (which wins).
func Environ(base []string, extra map[string]string) []string {
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if name == TokenEnv {
			continue
		}
		if _, overridden := extra[name]; overridden {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}

// startProcess starts argv in its own process group, and two goroutines:
// its owner (waitExit) and its stderr copier, which the owner waits for.
// stderr goes to the log under name, line by line. The caller must read
// stdout with readStdout, once; the owner waits for that reader too.
//
// deathSig is what the child gets when the daemon dies: SIGKILL for a plain
// server, SIGHUP for the shim (which then kills the server's whole tree).
func startProcess(argv []string, dir string, env []string, deathSig syscall.Signal, log *logfile.Log, name string) (*process, error) {
	theirs, ours, err := stdio()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = theirs[0], theirs[1], theirs[2]
	// Own process group, so stop signals reach grandchildren (sh -c …);
	// deathSig if the daemon dies (SPEC §7.6).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: deathSig}
	err = cmd.Start()
	closeAll(theirs[:])
	if err != nil {
		closeAll(ours[:])
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	inW, outR, errR := ours[0], ours[1], ours[2]
	p := &process{
		cmd:        cmd,
		pid:        cmd.Process.Pid,
		stdin:      inW,
		stdout:     outR,
		tail:       newTail(20),
		started:    time.Now(),
		stdoutDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	go func() {
		defer close(p.stderrDone)
		log.CopyLines(name, errR, func(s string) { p.tail.add(log.Mask(s)) })
	}()
	go p.waitExit(errR)
	return p, nil
}

// stdio makes the child's stdin, stdout and stderr pipes: theirs are the
// ends the child gets, ours the ends the gateway keeps, in that order. On
// error none is left open.
func stdio() (theirs, ours [3]*os.File, err error) {
	for i, name := range []string{"stdin", "stdout", "stderr"} {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(theirs[:i])
			closeAll(ours[:i])
			return theirs, ours, fmt.Errorf("make %s pipe: %w", name, err)
		}
		if i == 0 {
			theirs[i], ours[i] = r, w // the child reads its stdin
		} else {
			theirs[i], ours[i] = w, r
		}
	}
	return theirs, ours, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// waitExit is the child's owner (STYLE §3): the one goroutine that calls
// cmd.Wait. Once the child has exited it kills what is left of its process
// group, so that grandchildren holding the pipes cannot keep the run
// alive, lets the stdout reader and the stderr copier reach the end of
// their pipes (for up to stdoutDrain and stderrDrain from the exit),
// records the exit under mu and closes exited.
func (p *process) waitExit(errR *os.File) {
	err := p.cmd.Wait()
	p.kill()
	exited := time.Now()
	drain(p.stdout, p.stdoutDone, time.Until(exited.Add(stdoutDrain)))
	drain(errR, p.stderrDone, time.Until(exited.Add(stderrDrain)))
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

// readStdout runs read on the child's stdout in the calling goroutine
// until it returns (at EOF, or once waitExit closed the pipe), then
// closes the pipe and tells waitExit.
func (p *process) readStdout(read func(io.Reader)) {
	read(p.stdout)
	p.stdout.Close()
	close(p.stdoutDone)
}

// exitStatus describes how the process ended: "exit status 1" or
// "signal: killed". Empty while it runs.
func (p *process) exitStatus() string {
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

// stop runs the stop sequence and returns once the child has exited.
func (p *process) stop(ctx context.Context, t StopTimeouts) {
	t = t.withDefaults()
	p.stdin.Close()
	if p.waitFor(ctx, t.CloseWait) {
		return
	}
	_ = syscall.Kill(-p.pid, syscall.SIGTERM)
	if p.waitFor(ctx, t.TermWait) {
		return
	}
	p.kill()
	<-p.exited
}

// waitFor waits up to d for the child to exit, or until ctx ends, and
// reports whether it exited.
func (p *process) waitFor(ctx context.Context, d time.Duration) bool {
	return within(ctx, p.exited, d)
}

// kill ends the whole group at once.
func (p *process) kill() {
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
}

// tail keeps the last n lines of a server's stderr for error messages.
type tail struct {
	mu    sync.Mutex
	n     int
	lines []string
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	t.lines = append(t.lines, s)
	if len(t.lines) > t.n {
		t.lines = t.lines[len(t.lines)-t.n:]
	}
}

// String returns up to the last 10 lines, joined with " | ".
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return strings.Join(lines, " | ")
}

// ExitError reports that a server's process ended. Calls pending at that
// moment fail with it (SPEC §7.2).
type ExitError struct {
	Status string // "exit status 1", "signal: killed"
	Stderr string // the last stderr lines, " | "-joined
	Reason string // why the gateway stopped it; "" if it exited by itself
}

func (e *ExitError) Error() string {
	msg := "server exited (" + e.Status + ")"
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.Stderr != "" {
		msg += "; last stderr: " + e.Stderr
	}
	return msg
}

// ErrExited matches any *ExitError with errors.Is.
var ErrExited = errors.New("server exited")

func (e *ExitError) Is(target error) bool { return target == ErrExited }
