package proc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// start runs sh -c script as a stdio server (Wide) and reads its stdout
// into the returned function's result, which waits for the child's exit
// (bounded).
func start(t *testing.T, log *logfile.Log, script string) (*Process, func() string) {
	t.Helper()
	return startCommand(t, Command{Argv: []string{"/bin/sh", "-c", script}, Log: log, Source: "child", Wide: true})
}

// startCommand is start for any c.
func startCommand(t *testing.T, c Command) (*Process, func() string) {
	t.Helper()
	p, err := Start(c)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	go p.ReadStdout(func(r io.Reader) { _, _ = io.Copy(&out, r) }) // the owner waits for it; Exited follows it
	t.Cleanup(func() {
		p.Kill()
		<-p.Exited()
	})
	return p, func() string {
		t.Helper()
		testwait.For(t, 0, "the child's exit", func() bool {
			select {
			case <-p.Exited():
				return true
			default:
				return false
			}
		})
		return out.String()
	}
}

func TestStartRecordsExitAndStderr(t *testing.T) {
	buf := &bytes.Buffer{} // read once the child has exited: the stderr copier is done by then
	log := logfile.New(buf)
	log.AddSecrets("hunter2-secret")
	p, wait := start(t, log, "echo out; echo the secret is hunter2-secret >&2; exit 3")
	if out := wait(); out != "out\n" {
		t.Errorf("stdout = %q", out)
	}
	if got := p.ExitStatus(); got != "exit status 3" {
		t.Errorf("ExitStatus = %q", got)
	}
	if got := p.StderrTail(); got != "the secret is [REDACTED]" {
		t.Errorf("StderrTail = %q", got)
	}
	if !strings.Contains(buf.String(), "[child] the secret is [REDACTED]") || strings.Contains(buf.String(), "hunter2") {
		t.Errorf("log = %q", buf.String())
	}
}

func TestStopEndsAtTheFirstStepThatWorks(t *testing.T) {
	for _, tc := range []struct {
		name, script, status string
	}{
		{"stdin closed", "exec cat", "exit status 0"},
		{"SIGTERM", "exec sleep 1000", "signal: terminated"},
		{"SIGKILL", "trap '' TERM; exec sleep 1000", "signal: killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, wait := start(t, logfile.New(io.Discard), tc.script)
			p.Stop(context.Background(), StopTimeouts{CloseWait: 100 * time.Millisecond, TermWait: 100 * time.Millisecond})
			wait()
			if got := p.ExitStatus(); got != tc.status {
				t.Errorf("ExitStatus = %q, want %q", got, tc.status)
			}
		})
	}
}

func TestStartOfAMissingProgram(t *testing.T) {
	_, err := Start(Command{Argv: []string{"/nonexistent/server"}, Log: logfile.New(io.Discard)})
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "start /nonexistent/server: ") {
		t.Errorf("err = %v", err)
	}
}

// A stdio server's stdin and stdout pipes hold pipeSize bytes, so that a
// large message crosses them in few wake-ups (issue 33); an HTTP
// server's, which carry no messages, keep the kernel's size.
func TestStdinAndStdoutPipesAreWidened(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/pipe-max-size")
	if max, _ := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || max < pipeSize {
		t.Skipf("pipe-max-size %q (%v): the kernel may not widen pipes to %d bytes", b, err, pipeSize)
	}
	p, _ := start(t, logfile.New(io.Discard), "exec cat")
	q, _ := startCommand(t, Command{Argv: []string{"/bin/sh", "-c", "exec cat"}, Log: logfile.New(io.Discard), Source: "http"})
	for name, f := range map[string]*os.File{"stdin": p.stdin, "stdout": p.stdout} {
		if n := pipeBytes(t, f); n != pipeSize {
			t.Errorf("the %s pipe holds %d bytes, want %d", name, n, pipeSize)
		}
	}
	if n := pipeBytes(t, q.stdout); n == pipeSize || q.widened != 0 {
		t.Errorf("a command that is not Wide has a stdout pipe of %d bytes (%d widened)", n, q.widened)
	}
}

// pipeBytes is what f's pipe holds (F_GETPIPE_SZ).
func pipeBytes(t *testing.T, f *os.File) int {
	t.Helper()
	sc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if cerr := sc.Control(func(fd uintptr) { n, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) }); cerr != nil || err != nil {
		t.Fatal(cerr, err)
	}
	return n
}

// At most maxWide pipes are wide at once, whatever the number of servers,
// a server's two together or neither, and a server's count comes back
// when it exits (a hostile review: 113 servers spent a user's whole share
// of pipe memory).
func TestWidePipesAreBoundedAndGivenBack(t *testing.T) {
	before := wideCount.Load()
	p, _ := start(t, logfile.New(io.Discard), "exec cat")
	if p.widened != 2 || wideCount.Load() != before+2 {
		t.Fatalf("a server widened %d pipes, %d wide in all (%d before); want 2 and %d", p.widened, wideCount.Load(), before, before+2)
	}
	wideCount.Store(maxWide - 1) // room for one pipe, not a server's two
	q, _ := start(t, logfile.New(io.Discard), "exec cat")
	wideCount.Store(before + 2)
	if q.widened != 0 {
		t.Errorf("a server with room for one wide pipe widened %d", q.widened)
	}
	for _, f := range []*os.File{q.stdin, q.stdout} {
		if n := pipeBytes(t, f); n == pipeSize {
			t.Errorf("a server past maxWide has a pipe of %d bytes", n)
		}
	}
	p.Kill()
	<-p.Exited()
	q.Kill()
	<-q.Exited()
	if got := wideCount.Load(); got != before {
		t.Errorf("%d pipes wide once both exited, want %d", got, before)
	}
}
