package supervisor

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// A server that sends more than its answer's Content-Length (here, its
// answer twice, the copy a moment later) leaves bytes on the kept-alive
// connection. The next call may read them for its answer and fail; the
// calls after it must not: before, a connection given back within a
// second was reused without a look at it, so under steady calls each
// read the previous call's answer and failed, for as long as they came.
func TestHTTPStrayAnswerBytesFailOneCallAtMost(t *testing.T) {
	f := fakehttp.New(fakehttp.Options{JSON: true, NoGET: true})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serveStray(c, f)
		}
	}()
	s, _ := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: "http://" + l.Addr().String() + "/mcp"}}})
	u, _ := s.Upstream("remote")
	mustText(t, u, "echo", `{"text":"warm"}`)
	mustText(t, u, "echo", `{"text":"stray"}`) // answered twice
	var failed []string
	for i := range 6 {
		text := "call-" + strconv.Itoa(i)
		if got, err := callText(t, u, "echo", `{"text":"`+text+`"}`); err != nil || got != text {
			failed = append(failed, fmt.Sprintf("%s: %q, %v", text, got, err))
		}
	}
	if len(failed) > 1 {
		t.Errorf("%d of 6 calls after the stray answer failed:\n%s", len(failed), strings.Join(failed, "\n"))
	}
}

// serveStray serves one connection with h, answering every request with
// a Content-Length; a request whose body holds "stray" is answered, and
// 20 ms later answered again.
func serveStray(c net.Conn, h http.Handler) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		resp := rec.Result()
		out, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(bytes.NewReader(out))
		resp.ContentLength = int64(len(out))
		var wire bytes.Buffer
		if err := resp.Write(&wire); err != nil {
			return
		}
		if _, err := c.Write(wire.Bytes()); err != nil {
			return
		}
		if bytes.Contains(body, []byte(`"stray"`)) {
			time.Sleep(20 * time.Millisecond)
			if _, err := c.Write(wire.Bytes()); err != nil {
				return
			}
		}
	}
}
