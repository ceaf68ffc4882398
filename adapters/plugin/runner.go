package plugin

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-plugin/runner"
)

// procRunner is go-plugin's runner.Runner for one adapter process. Unlike
// go-plugin's own, it starts the process in its own process group with no
// stdin and exactly the environment given, kills the whole group, kills it
// when Load's context is done, and records how it exited.
type procRunner struct {
	ctx       context.Context
	cmd       *exec.Cmd
	stdout    io.ReadCloser
	stderr    io.ReadCloser
	socketDir string

	wroteStdout atomic.Bool   // the adapter printed something: a handshake attempt
	done        chan struct{} // closed once the process is reaped

	mu             sync.Mutex
	pid            int
	started        time.Time
	startErr       error
	state          *os.ProcessState
	stopAfterFunc_ func() bool
}

var _ runner.Runner = (*procRunner)(nil)

func newRunner(ctx context.Context, path string, env []string, socketDir string) (*procRunner, error) {
	cmd := exec.Command(path)
	cmd.Env = env
	// Its own group, so that killGroup reaches anything it started; and
	// killed if the gateway dies while it runs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	r := &procRunner{ctx: ctx, cmd: cmd, socketDir: socketDir, done: make(chan struct{})}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	r.stdout = &watchedReader{ReadCloser: stdout, wrote: &r.wroteStdout}
	r.stderr = stderr
	return r, nil
}

// Start starts the process; Load's context being done kills it.
func (r *procRunner) Start(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = time.Now()
	if err := r.cmd.Start(); err != nil {
		r.startErr = err
		_ = os.RemoveAll(r.socketDir) // go-plugin removes it only for a started process
		return err
	}
	r.pid = r.cmd.Process.Pid
	r.stopAfterFunc_ = context.AfterFunc(r.ctx, r.killGroup)
	return nil
}

// Wait is called once, by go-plugin, after stdout and stderr are drained.
func (r *procRunner) Wait(context.Context) error {
	err := r.cmd.Wait()
	r.mu.Lock()
	r.state = r.cmd.ProcessState
	r.mu.Unlock()
	close(r.done)
	return err
}

// Kill kills the process group.
func (r *procRunner) Kill(context.Context) error {
	r.killGroup()
	return nil
}

func (r *procRunner) killGroup() {
	r.mu.Lock()
	pid := r.pid
	r.mu.Unlock()
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

func (r *procRunner) stopAfterFunc() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopAfterFunc_ != nil {
		r.stopAfterFunc_()
	}
}

// exitedOnItsOwn reports whether the process has exited other than by our
// SIGKILL.
func (r *procRunner) exitedOnItsOwn() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		return false
	}
	ws, ok := r.state.Sys().(syscall.WaitStatus)
	return !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL
}

// exitStatus is "exit status 3", "signal: killed" or "still running".
func (r *procRunner) exitStatus() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.state == nil {
		return "still running"
	}
	return r.state.String()
}

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }
func (r *procRunner) Stderr() io.ReadCloser { return r.stderr }
func (r *procRunner) Name() string          { return r.cmd.Path }
func (r *procRunner) Diagnose(context.Context) string {
	return ""
}

// ID is the pid, or "" before the start, which tells go-plugin's Kill that
// there is nothing to kill.
func (r *procRunner) ID() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pid == 0 {
		return ""
	}
	return strconv.Itoa(r.pid)
}

func (r *procRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *procRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// watchedReader notes that something was read.
type watchedReader struct {
	io.ReadCloser
	wrote *atomic.Bool
}

func (w *watchedReader) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if n > 0 {
		w.wrote.Store(true)
	}
	return n, err
}
