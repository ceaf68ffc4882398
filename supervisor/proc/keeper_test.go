package proc

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// keeperEnv makes the test binary a keeper of the command in its
// arguments (TestMain): Keep makes its caller a subreaper that reaps
// every child, which the test process itself must not become.
const keeperEnv = "PROC_TEST_KEEPER"

func TestMain(m *testing.M) {
	if os.Getenv(keeperEnv) == "1" {
		code, err := Keep(os.Args[1:], os.Environ(), "", []*os.File{os.Stdin, os.Stdout, os.Stderr}, nil)
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// kept starts a keeper of a "daemon" (sh -c script, which writes its
// pid and those of the processes it starts to files in dir) and returns
// it with the pids, once they are all written.
func kept(t *testing.T, dir, script string, files ...string) (*exec.Cmd, map[string]int) {
	t.Helper()
	self, _ := os.Executable()
	keeper := exec.Command(self, "/bin/sh", "-c", script)
	keeper.Env = append(os.Environ(), keeperEnv+"=1")
	keeper.Dir = dir
	if err := keeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = keeper.Process.Kill(); _ = keeper.Wait() })
	pids := map[string]int{}
	for _, f := range files {
		testwait.For(t, 0, f+" written", func() bool {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil || !strings.HasSuffix(string(b), "\n") {
				return false
			}
			pids[f], err = strconv.Atoi(strings.TrimSpace(string(b)))
			return err == nil
		})
	}
	return keeper, pids
}

// Every process below the daemon dies when the daemon is killed with
// SIGKILL: in its process group, in a session of its own, or orphaned
// before (SPEC §7.6). The keeper exits as the daemon did.
func TestKeeperKillsAllBelowAKilledDaemon(t *testing.T) {
	dir := t.TempDir()
	keeper, pids := kept(t, dir, `
		setsid sleep 300 & echo $! > setsid.tmp; mv setsid.tmp setsid
		sleep 301 & echo $! > group.tmp; mv group.tmp group
		sh -c 'sleep 302 & echo $! > orphan.tmp; mv orphan.tmp orphan' # its parent exits at once
		echo $$ > daemon.tmp; mv daemon.tmp daemon
		exec sleep 600`, "setsid", "group", "orphan", "daemon")
	if err := syscall.Kill(pids["daemon"], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := keeper.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGKILL) {
		t.Errorf("keeper: %v, want exit status %d", err, 128+int(syscall.SIGKILL))
	}
	// The keeper returned: all are gone by then (reaped, or another's zombie).
	for name, pid := range pids {
		if st, ok := readStat(pid); ok && st.state != 'Z' {
			t.Errorf("%s (pid %d) outlived its keeper", name, pid)
		}
	}
}

// SIGTERM to the keeper reaches the daemon, and the keeper exits with it.
func TestKeeperForwardsSIGTERM(t *testing.T) {
	dir := t.TempDir()
	keeper, _ := kept(t, dir, `echo $$ > daemon.tmp; mv daemon.tmp daemon; exec sleep 600`, "daemon")
	_ = keeper.Process.Signal(syscall.SIGTERM)
	err := keeper.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("keeper: %v, want exit status %d", err, 128+int(syscall.SIGTERM))
	}
}
