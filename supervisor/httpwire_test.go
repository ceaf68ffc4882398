package supervisor

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/fakehttp"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// countingServer serves h, counting the connections it accepts and
// closes; idle, if set, is how long it keeps an idle one.
func countingServer(t *testing.T, h http.Handler, idle time.Duration) (*httptest.Server, *atomic.Int64, *atomic.Int64) {
	t.Helper()
	var conns, closed atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.IdleTimeout = idle
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			conns.Add(1)
		case http.StateClosed:
			closed.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv, &conns, &closed
}

func TestHTTPCallsReuseTheirConnection(t *testing.T) {
	srv, conns, _ := countingServer(t, fakehttp.New(fakehttp.Options{JSON: true, NoGET: true}), 0)
	s, _ := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: srv.URL + "/mcp"}}})
	u, _ := s.Upstream("remote")
	for range 50 {
		mustText(t, u, "echo", `{"text":"x"}`)
	}
	if n := conns.Load(); n > 2 {
		t.Errorf("%d connections for 50 sequential calls", n)
	}
}

// An idle connection the server closed is not used: the next call goes on
// a new one and succeeds.
func TestHTTPIdleConnectionClosedByTheServer(t *testing.T) {
	srv, conns, closed := countingServer(t, fakehttp.New(fakehttp.Options{JSON: true, NoGET: true}), 50*time.Millisecond)
	s, _ := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: srv.URL + "/mcp"}}})
	u, _ := s.Upstream("remote")
	mustText(t, u, "echo", `{"text":"x"}`)
	opened := conns.Load()
	testwait.For(t, 0, "the server to close the idle connection", func() bool { return closed.Load() == opened })
	if got := mustText(t, u, "echo", `{"text":"again"}`); got != "again" {
		t.Fatalf("echo after the idle close = %q", got)
	}
	if conns.Load() != opened+1 {
		t.Errorf("%d connections, want one more than the %d before", conns.Load(), opened)
	}
}

func TestHTTPSameOriginRedirectIsFollowed(t *testing.T) {
	f := fakehttp.New(fakehttp.Options{})
	mux := http.NewServeMux()
	mux.Handle("/mcp", f)
	mux.Handle("/old", http.RedirectHandler("/mcp", http.StatusPermanentRedirect))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	s, _ := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: srv.URL + "/old"}}})
	u, _ := s.Upstream("remote")
	if got := mustText(t, u, "echo", `{"text":"moved"}`); got != "moved" {
		t.Errorf("echo = %q", got)
	}
}

// An interim 1xx answer (103 Early Hints, an unasked 100 Continue) comes
// before the real one; RFC 9110 §15.2 has a client read past it. The wire
// client took it for the answer: the call failed, and the real answer
// stayed on the kept-alive connection, where the next calls read each
// other's answers and failed too.
func TestHTTPInterimAnswersAreSkipped(t *testing.T) {
	f := fakehttp.New(fakehttp.Options{JSON: true, NoGET: true})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Del("Link")
		}
		f.ServeHTTP(w, r)
	})
	srv, _, _ := countingServer(t, h, 0)
	s, _ := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: srv.URL + "/mcp"}}})
	u, _ := s.Upstream("remote")
	for _, text := range []string{"one", "two", "three"} {
		if got := mustText(t, u, "echo", `{"text":"`+text+`"}`); got != text {
			t.Fatalf("echo %q = %q", text, got)
		}
	}
}

// An answer whose head (status line and headers) runs past what any MCP
// server sends is refused with an error that says so, as net/http's
// Transport refuses one past MaxResponseHeaderBytes: the wire client read
// it whole into memory, however large, outside the memory budget.
func TestHTTPAnswerHeadIsBounded(t *testing.T) {
	f := fakehttp.New(fakehttp.Options{JSON: true, NoGET: true})
	var huge atomic.Bool
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if huge.Load() && r.Method == http.MethodPost {
			w.Header().Set("X-Padding", strings.Repeat("a", 2*maxAnswerHeadForTest))
		}
		f.ServeHTTP(w, r)
	})
	srv, _, _ := countingServer(t, h, 0)
	s, _ := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: srv.URL + "/mcp"}}})
	u, _ := s.Upstream("remote")
	mustText(t, u, "echo", `{"text":"x"}`)
	huge.Store(true)
	_, err := callText(t, u, "echo", `{"text":"y"}`)
	if err == nil || !strings.Contains(err.Error(), "head") {
		t.Fatalf("call with a %d-byte header: err = %v, want one about the answer's head", 2*maxAnswerHeadForTest, err)
	}
	huge.Store(false)
	if got := mustText(t, u, "echo", `{"text":"z"}`); got != "z" {
		t.Fatalf("echo after = %q", got)
	}
}

// maxAnswerHeadForTest is httpup's bound on an answer's head.
const maxAnswerHeadForTest = 1 << 20
