package supervisor

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
)

// freePort is a port nothing listens on (for a moment).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// commandSpec is an HTTP server whose command is the test binary as the
// fake HTTP server on port, with env.
func commandSpec(port int, env map[string]string) adapters.LaunchSpec {
	e := map[string]string{"MCP_FAKE_HTTP": "1", "PORT": strconv.Itoa(port)}
	for k, v := range env {
		e[k] = v
	}
	return adapters.LaunchSpec{Kind: "http", Argv: fakeserver.Argv(), Env: e, URL: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"}
}

func TestHTTPCommandIsSupervised(t *testing.T) {
	port := freePort(t)
	s, log := httpSupervisor(t, []adapters.Server{{Name: "served", Spec: commandSpec(port, nil)}})
	u, _ := s.Upstream("served")
	pid := mustText(t, u, "pid", `{}`)
	st := u.Status()
	if strconv.Itoa(st.PID) != pid || st.Transport != "streamable-http" || st.State != StateRunning {
		t.Errorf("status %+v, the server says pid %s", st, pid)
	}
	contains(t, "log", log.String(), "[served] fakehttp listening on 127.0.0.1:"+strconv.Itoa(port))
	// A crash fails the call with the exit; the next call starts the
	// command again, then connects.
	_, err := callText(t, u, "crash", `{}`)
	var exit *ExitError
	if !errors.As(err, &exit) {
		t.Fatalf("crash: %v, want an *ExitError", err)
	}
	contains(t, "error", err.Error(), "exit status 3")
	contains(t, "error", err.Error(), "fakehttp crash requested")
	pid2 := mustText(t, u, "pid", `{}`)
	if pid2 == pid {
		t.Error("the same process after the crash")
	}
	if st := u.Status(); st.Restarts != 1 || st.LastExit != "exit status 3" {
		t.Errorf("status %+v, want 1 restart after exit status 3", st)
	}
}

func TestHTTPCommandThatNeverServesFailsTheStart(t *testing.T) {
	s, _ := httpSupervisor(t, []adapters.Server{{Name: "broken", Spec: commandSpec(freePort(t), map[string]string{"PORT": "no-such-port"})}})
	u, _ := s.Upstream("broken")
	began := time.Now()
	err := u.Start(context.Background())
	if err == nil {
		t.Fatal("the start succeeded")
	}
	var exit *ExitError
	if !errors.As(err, &exit) || !strings.Contains(err.Error(), "exit status 1") || !strings.Contains(err.Error(), "fakehttp:") {
		t.Errorf("error %v, want the exit with its stderr", err)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the start took %v", took)
	}
}

func TestHTTPServerRestartsOnANewSpec(t *testing.T) {
	port := freePort(t)
	s, _ := httpSupervisor(t, []adapters.Server{{Name: "served", Spec: commandSpec(port, nil)}})
	u, _ := s.Upstream("served")
	pid := mustText(t, u, "pid", `{}`)
	spec := commandSpec(port, nil)
	spec.Headers = map[string]string{"X-New": "1"}
	if !u.SetSpec(spec) {
		t.Fatal("a new header is no new spec")
	}
	if restarted, err := u.Restart(context.Background(), time.Second); !restarted || err != nil {
		t.Fatalf("restart: %v %v", restarted, err)
	}
	if got := mustText(t, u, "pid", `{}`); got == pid {
		t.Error("the same process after the restart")
	}
}
