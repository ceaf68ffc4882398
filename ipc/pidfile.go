package ipc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PIDFileName is the daemon's pid file in the run dir. The daemon holds an
// exclusive flock on it for its whole life, so a stale file left by a
// killed daemon never blocks a new one.
const PIDFileName = "mcp-gateway.pid"

// ErrRunning is returned when a daemon already holds the run dir.
var ErrRunning = errors.New("a gateway daemon is already running")

// DefaultRunDir is the run dir when neither --run-dir nor
// MCP_GATEWAY_RUN_DIR says otherwise (SPEC §10).
const DefaultRunDir = "/run/mcp-gateway"

// RunningError names the running daemon, and the command that stops it.
type RunningError struct {
	PID    int
	RunDir string // the daemon's run dir; "" for DefaultRunDir
}

func (e *RunningError) Error() string {
	stop := "mcp-gateway stop"
	if e.RunDir != "" && e.RunDir != DefaultRunDir {
		stop += " --run-dir " + e.RunDir
	}
	return fmt.Sprintf("%v (pid %d); stop it first with `%s` (or kill -TERM %d)", ErrRunning, e.PID, stop, e.PID)
}

func (e *RunningError) Unwrap() error { return ErrRunning }

// PIDLock is the daemon's hold on its run dir.
type PIDLock struct {
	f *os.File
}

// LockPID takes the run dir for this process and writes its pid. It fails
// with a *RunningError if another live daemon holds it.
func LockPID(runDir string) (*PIDLock, error) {
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		return nil, fmt.Errorf("create run dir: %w", err)
	}
	path := filepath.Join(runDir, PIDFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open pid file: %w", err)
	}
	if err := flockWaitingForExit(f, runDir, syscall.LOCK_EX); err != nil {
		f.Close()
		pid, _ := ReadPID(runDir)
		return nil, &RunningError{PID: pid, RunDir: runDir}
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write pid file: %w", err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("write pid file: %w", err)
	}
	return &PIDLock{f: f}, nil
}

// Release removes the pid file and drops the lock.
func (l *PIDLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	_ = os.Remove(l.f.Name())
	l.f.Close()
	l.f = nil
}

// Running reports the pid of a live daemon holding runDir, or 0.
func Running(runDir string) int {
	path := filepath.Join(runDir, PIDFileName)
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	if err := flockWaitingForExit(f, runDir, syscall.LOCK_SH); err == nil {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return 0 // nobody holds it: stale
	}
	pid, _ := ReadPID(runDir)
	if pid == 0 {
		pid = -1
	}
	return pid
}

// exitGrace is how long a lock held by a daemon that is exiting is waited
// for: a daemon killed with SIGKILL shows as a zombie while its other
// threads still hold its files, for milliseconds.
const exitGrace = 2 * time.Second

// flockWaitingForExit takes the lock (how: LOCK_EX or LOCK_SH) without
// blocking on a live holder. While the pid file names a process that is
// exiting (gone, or a zombie), it retries for up to exitGrace, so that a
// relaunch right after `kill -9` of the daemon is not refused as "already
// running".
func flockWaitingForExit(f *os.File, runDir string, how int) error {
	deadline := time.Now().Add(exitGrace)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if pid, _ := ReadPID(runDir); pid > 0 && !exiting(pid) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// exiting reports whether pid is gone or its leader is a zombie.
func exiting(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) == 0 || fields[0] == "Z" || fields[0] == "X"
}

// ReadPID reads the pid file.
func ReadPID(runDir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(runDir, PIDFileName))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// Gone reports whether process pid has exited: every one of its threads is
// gone or a zombie. It need not be our child (the daemon is reaped
// elsewhere, maybe never). A zombie leader alone does not count: the other
// threads of a Go process exit after it, still holding its files and its
// pid lock.
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/stat")
		if err != nil {
			continue // that thread is gone
		}
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X' {
			return false
		}
	}
	return true
}
