package ipc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// A relaunch right after `kill -9` of the daemon is not refused: while the
// pid file names a process that is gone or a zombie, a held lock is waited
// for (its threads still hold it for a few ms). A live holder is reported
// at once.
func TestPIDLockWaitsForAnExitingHolder(t *testing.T) {
	dir := shortDir(t)
	held, err := LockPID(dir)
	if err != nil {
		t.Fatal(err)
	}
	// The holder is live (this process): reported at once.
	start := time.Now()
	if pid := Running(dir); pid != os.Getpid() {
		t.Errorf("Running = %d, want %d", pid, os.Getpid())
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Running took %v for a live holder", d)
	}
	// Now the file names a process that has exited, and the lock is
	// released a moment later, as a killed daemon's threads do.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, PIDFileName), []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(300*time.Millisecond, func() { held.f.Close() })
	if pid := Running(dir); pid != 0 {
		t.Errorf("Running = %d while the holder was exiting, want 0", pid)
	}
	lock, err := LockPID(dir)
	if err != nil {
		t.Fatalf("LockPID after the holder exited: %v", err)
	}
	lock.Release()
}

func TestGone(t *testing.T) {
	if Gone(os.Getpid()) {
		t.Error("Gone(this process) = true")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if Gone(cmd.Process.Pid) {
		t.Error("Gone(a running child) = true")
	}
	_ = cmd.Process.Kill()
	// Killed but not yet reaped: a zombie counts as gone.
	testwait.For(t, 5*time.Second, "a killed child to be Gone", func() bool { return Gone(cmd.Process.Pid) })
	_ = cmd.Wait()
	if !Gone(cmd.Process.Pid) {
		t.Error("Gone(a reaped child) = false")
	}
}
