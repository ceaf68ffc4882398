package supervisor

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/fakehttp"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// startErr starts a server "remote" at url with headers and returns the
// error, failing the test if the start takes longer than bound.
func startErr(t *testing.T, url string, headers map[string]string, bound time.Duration) (error, *Upstream, *syncBuffer) {
	t.Helper()
	var secrets []string
	for _, v := range headers {
		secrets = append(secrets, v)
	}
	s, log := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: url, Headers: headers, Secrets: secrets}}})
	u, _ := s.Upstream("remote")
	began := time.Now()
	err := u.Start(context.Background())
	if took := time.Since(began); took > bound {
		t.Errorf("the start took %v", took)
	}
	return err, u, log
}

func TestHTTPUnreachableAtLaunch(t *testing.T) {
	closed := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return "http://" + l.Addr().String() + "/mcp"
	}()
	tlsSrv := httptest.NewTLSServer(fakehttp.New(fakehttp.Options{}))
	t.Cleanup(tlsSrv.Close)
	serve := func(o fakehttp.Options) string { return serveFake(t, fakehttp.New(o), "") }
	tests := []struct {
		name, url string
		want      []string
	}{
		{"connect", closed, []string{"initialize: POST " + closed + ": connect", "connection refused"}},
		{"DNS", "http://no-such-host.invalid/mcp", []string{"DNS: cannot resolve no-such-host.invalid"}},
		{"TLS", tlsSrv.URL + "/mcp", []string{"TLS: the server's certificate is not trusted"}},
		{"HTTP status", serve(fakehttp.Options{Status: 500, Body: "boom", BodyType: "text/plain"}), []string{"HTTP 500 Internal Server Error: boom"}},
		{"a page, not MCP", serve(fakehttp.Options{Status: 200, Body: "<html>hi</html>", BodyType: "text/html"}), []string{"HTTP 200 OK with Content-Type text/html, not an MCP answer"}},
		{"not found, nor HTTP+SSE", serve(fakehttp.Options{Status: 404, Body: "<pre>Cannot POST /mcp</pre>", BodyType: "text/html"}),
			[]string{"HTTP 404 Not Found: <pre>Cannot POST /mcp</pre>", "nor is it an HTTP+SSE server: GET ", "HTTP 404"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err, u, _ := startErr(t, tc.url, nil, 15*time.Second)
			if err == nil {
				t.Fatal("the start succeeded")
			}
			t.Log(err)
			contains(t, "error", err.Error(), `server "remote"`)
			for _, w := range tc.want {
				contains(t, "error", err.Error(), w)
			}
			if st := u.Status(); st.State != StateFailed || st.LastError == "" {
				t.Errorf("status %+v", st)
			}
		})
	}
}

// faultPair is a supervisor over a stdio fake ("local") and an HTTP fake
// of o ("remote"): the faults are remote's; local shows that the gateway
// keeps serving its other servers.
func faultPair(t *testing.T, o fakehttp.Options) (remote, local *Upstream, f *fakehttp.Server) {
	t.Helper()
	f = fakehttp.New(o)
	url := serveFake(t, f, "")
	s, _ := httpSupervisor(t, []adapters.Server{
		{Name: "local", Spec: adapters.LaunchSpec{Argv: fakeserver.Argv(), Env: map[string]string{"MCP_FAKE": "1"}}},
		{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: url, Headers: map[string]string{"X-Api-Key": "k-fault"}, Secrets: []string{"k-fault"}}},
	})
	if err := s.StartAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	remote, _ = s.Upstream("remote")
	local, _ = s.Upstream("local")
	return remote, local, f
}

func TestHTTPFaultsDuringCalls(t *testing.T) {
	elsewhere := fakehttp.New(fakehttp.Options{})
	other := serveFake(t, elsewhere, "")
	remote, local, _ := faultPair(t, fakehttp.Options{RedirectTo: other})
	tests := []struct {
		tool, args string
		want       string
	}{
		{"stall", `{}`, "the server stopped sending in the middle of a message for 5s"},
		{"stalljson", `{}`, "the server stopped sending in the middle of a message for 5s"},
		{"huge", `{"bytes":67108864}`, "larger than the gateway's 64 MiB message limit"},
		{"html", `{}`, "HTTP 200 OK with Content-Type text/html; charset=utf-8, not an MCP answer"},
		{"fail500", `{}`, "HTTP 500 Internal Server Error: internal failure on purpose"},
		{"redirect", `{}`, "the server redirected to " + strings.TrimSuffix(strings.Replace(other, "http://", "http://", 1), "/mcp")},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			began := time.Now()
			_, err := callWithin(remote, tc.tool, tc.args, 30*time.Second)
			if err == nil {
				t.Fatal("the call succeeded")
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("the call hung: %v", err)
			}
			t.Log(err)
			contains(t, "error", err.Error(), tc.want)
			if took := time.Since(began); took > 15*time.Second {
				t.Errorf("the fault took %v to fail the call", took)
			}
			if got := mustText(t, remote, "echo", `{"text":"still here"}`); got != "still here" {
				t.Errorf("remote after the fault: %q", got)
			}
			if got := mustText(t, local, "echo", `{"text":"local"}`); got != "local" {
				t.Errorf("local after the fault: %q", got)
			}
		})
	}
	if n := len(elsewhere.Seen()); n != 0 {
		t.Errorf("the other origin got %d requests", n)
	}
	if st := remote.Status(); st.State != StateRunning || st.Restarts != 0 {
		t.Errorf("remote %+v: a fault in one answer is no loss of the server", st)
	}
}

// restartable serves f on a fixed address that can be closed and opened
// again.
type restartable struct {
	t    *testing.T
	addr string
	f    *fakehttp.Server
	srv  *httptest.Server
}

func newRestartable(t *testing.T, f *fakehttp.Server) *restartable {
	r := &restartable{t: t, f: f}
	r.up("127.0.0.1:0")
	t.Cleanup(r.down)
	return r
}

func (r *restartable) up(addr string) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = l.Addr().String()
	r.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: r.f}}
	r.srv.Start()
}

func (r *restartable) down() {
	if r.srv != nil {
		r.srv.CloseClientConnections()
		r.srv.Close()
		r.srv = nil
	}
}

func TestHTTPLostServerFailsPendingCallsAndReconnects(t *testing.T) {
	f := fakehttp.New(fakehttp.Options{})
	srv := newRestartable(t, f)
	url := "http://" + srv.addr + "/mcp"
	s, log := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: url, Headers: map[string]string{"X-Api-Key": "k-lost-1"}, Secrets: []string{"k-lost-1"}}}})
	u, _ := s.Upstream("remote")
	mustText(t, u, "echo", `{"text":"up"}`)
	done := make(chan error, 1)
	go func() {
		_, err := callWithin(u, "sleep", `{"ms":60000}`, 30*time.Second)
		done <- err
	}()
	testwait.For(t, 0, "the call at the server", func() bool { return len(seenOf(f, "POST", "tools/call")) == 2 })
	lost := time.Now()
	srv.down()
	err := <-done
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("pending call: %v", err)
	}
	if took := time.Since(lost); took > 5*time.Second {
		t.Errorf("the pending call failed %v after the server went", took)
	}
	contains(t, "error", err.Error(), `server "remote"`)
	testwait.For(t, 0, "the server seen lost", func() bool { return u.Status().State == StateExited })
	st := u.Status()
	if st.LastError == "" || strings.Contains(st.LastError, "k-lost-1") {
		t.Errorf("status %+v", st)
	}
	// Down: the next calls try to connect again, and fail; after two
	// failures in a row the next backs off (SPEC §7.3).
	for range 2 {
		if _, err := callWithin(u, "echo", `{"text":"x"}`, 20*time.Second); err == nil || !strings.Contains(err.Error(), "connect to "+srv.addr+": connection refused") {
			t.Errorf("call while down: %v", err)
		}
	}
	if _, err := callWithin(u, "echo", `{"text":"x"}`, 20*time.Second); err == nil || !strings.Contains(err.Error(), "backing off") {
		t.Errorf("call while backing off: %v", err)
	}
	srv.up(srv.addr)
	testwait.For(t, 20*time.Second, "a call after the server came back", func() bool {
		got, err := callWithin(u, "echo", `{"text":"back"}`, 10*time.Second)
		return err == nil && got == "back"
	})
	if st := u.Status(); st.State != StateRunning || st.Restarts < 2 {
		t.Errorf("status %+v, want running again after restarts", st)
	}
	contains(t, "log", log.String(), "server lost; the next call connects again")
	if strings.Contains(log.String(), "k-lost-1") {
		t.Error("the log holds the header value")
	}
}

func TestHTTPHeaderValuesMaskedWhereTheServerRepeatsThem(t *testing.T) {
	url := serveFake(t, fakehttp.New(fakehttp.Options{Status: 401, Body: "bad credentials: Bearer hosted-secret-xyz", BodyType: "text/plain"}), "")
	err, u, log := startErr(t, url, map[string]string{"Authorization": "Bearer hosted-secret-xyz"}, 15*time.Second)
	if err == nil {
		t.Fatal("the start succeeded")
	}
	contains(t, "error", err.Error(), "HTTP 401 Unauthorized")
	for what, s := range map[string]string{"error": err.Error(), "status": u.Status().LastError, "log": log.String()} {
		if strings.Contains(s, "hosted-secret-xyz") {
			t.Errorf("the %s shows the header value: %s", what, s)
		}
	}
}
