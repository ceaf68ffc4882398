package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/fakehttp"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// serveFake serves f in-process until the test ends, and returns its MCP
// endpoint (/sse for the HTTP+SSE era).
func serveFake(t *testing.T, f *fakehttp.Server, era string) string {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		f.Wait()
	})
	if era == "sse" {
		return srv.URL + "/sse"
	}
	return srv.URL + "/mcp"
}

// httpSupervisor is a supervisor over the given servers, with short waits.
func httpSupervisor(t *testing.T, servers []adapters.Server) (*Supervisor, *syncBuffer) {
	t.Helper()
	logBuf := &syncBuffer{}
	s := New(servers, Options{
		Log:          logfile.New(logBuf),
		StartTimeout: 20 * time.Second,
		Stop:         proc.StopTimeouts{CloseWait: time.Second, TermWait: time.Second},
		EventStall:   5 * time.Second,
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s, logBuf
}

// httpFake is a fake HTTP server with options o, reached as server
// "remote" with headers.
func httpFake(t *testing.T, o fakehttp.Options, headers map[string]string) (*Upstream, *fakehttp.Server, *syncBuffer) {
	t.Helper()
	f := fakehttp.New(o)
	url := serveFake(t, f, o.Era)
	var secrets []string
	for _, v := range headers {
		secrets = append(secrets, v)
	}
	s, log := httpSupervisor(t, []adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: url, Headers: headers, Secrets: secrets}}})
	u, _ := s.Upstream("remote")
	return u, f, log
}

// seenPOSTs are the POSTs f saw of method.
func seenOf(f *fakehttp.Server, http, method string) []fakehttp.Seen {
	var out []fakehttp.Seen
	for _, s := range f.Seen() {
		if s.HTTP == http && (method == "*" || s.Method == method) {
			out = append(out, s)
		}
	}
	return out
}

func TestHTTPLegacySessionAndHeaders(t *testing.T) {
	u, f, _ := httpFake(t, fakehttp.Options{}, map[string]string{"X-Api-Key": "k-secret-1"})
	if got := mustText(t, u, "echo", `{"text":"over http"}`); got != "over http" {
		t.Fatalf("echo = %q", got)
	}
	testwait.For(t, 0, "the GET stream", func() bool { return len(seenOf(f, "GET", "*")) == 1 })
	st := u.Status()
	if st.State != StateRunning || st.Transport != "streamable-http" || st.Era != EraLegacy || st.PID != 0 || st.Protocol != "2025-11-25" {
		t.Errorf("status %+v", st)
	}
	init := seenOf(f, "POST", "initialize")
	if len(init) != 1 || init[0].Header.Get("Mcp-Session-Id") != "" || init[0].Header.Get("Mcp-Protocol-Version") != "" {
		t.Fatalf("initialize: %+v", init)
	}
	var session string
	for i, s := range f.Seen() {
		h := s.Header
		if h.Get("X-Api-Key") != "k-secret-1" || h.Get("Authorization") != "" {
			t.Errorf("request %d (%s %s): X-Api-Key %q, Authorization %q", i, s.HTTP, s.Method, h.Get("X-Api-Key"), h.Get("Authorization"))
		}
		if s.HTTP == "POST" && (h.Get("Content-Type") != "application/json" || h.Get("Accept") != "application/json, text/event-stream") {
			t.Errorf("request %d: Content-Type %q, Accept %q", i, h.Get("Content-Type"), h.Get("Accept"))
		}
		if s.Method == "initialize" {
			continue
		}
		if session == "" {
			session = h.Get("Mcp-Session-Id")
		}
		if h.Get("Mcp-Session-Id") != session || session == "" || h.Get("Mcp-Protocol-Version") != "2025-11-25" {
			t.Errorf("request %d (%s %s): session %q (want %q), version %q", i, s.HTTP, s.Method, h.Get("Mcp-Session-Id"), session, h.Get("Mcp-Protocol-Version"))
		}
	}
	u.Stop(context.Background())
	if got := f.Deleted(); !slices.Equal(got, []string{session}) {
		t.Errorf("sessions deleted at stop: %q, want [%s]", got, session)
	}
}

func TestHTTPJSONAnswersAreByteFaithful(t *testing.T) {
	tools := `[{"name":"echo","inputSchema":{"type":"object"},"x-unknown":9007199254740993}]`
	u, _, _ := httpFake(t, fakehttp.Options{JSON: true, Tools: tools}, nil)
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := string(u.Tools()[0].Raw); got != `{"name":"echo","inputSchema":{"type":"object"},"x-unknown":9007199254740993}` {
		t.Errorf("tool = %s", got)
	}
	big := strings.Repeat("b", 9<<20)
	// A generous bound: 9 MiB each way, decoded by the fake, on a busy machine.
	if got, err := callWithin(u, "echo", `{"text":"`+big+`"}`, time.Minute); err != nil || got != big {
		t.Errorf("9 MiB echo came back with %d bytes, %v", len(got), err)
	}
}

func TestHTTPProgressAndLogsOnTheAnswerStream(t *testing.T) {
	u, _, _ := httpFake(t, fakehttp.Options{}, nil)
	p := &recordingPeer{}
	if _, err := u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"progress","arguments":{"n":3},"_meta":{"progressToken":"tok-1"}}`), p); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"log"}`), p); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`notifications/progress {"progressToken":"tok-1","progress":1,"total":3}`,
		`notifications/progress {"progressToken":"tok-1","progress":2,"total":3}`,
		`notifications/progress {"progressToken":"tok-1","progress":3,"total":3}`,
		`notifications/message {"level":"info","logger":"fakehttp","data":"hello from the fake"}`,
	}
	if !slices.Equal(p.notes, want) {
		t.Errorf("notifications:\n%s\nwant:\n%s", strings.Join(p.notes, "\n"), strings.Join(want, "\n"))
	}
}

// askingPeer answers every request the server makes, naming itself.
type askingPeer struct {
	id       string
	mu       sync.Mutex
	requests []string
}

func (p *askingPeer) ClientID() string                                { return p.id }
func (p *askingPeer) Client() ClientInfo                              { return ClientInfo{} }
func (p *askingPeer) Notify(context.Context, string, json.RawMessage) {}
func (p *askingPeer) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.requests)
}
func (p *askingPeer) Request(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, method)
	return json.RawMessage(`{"action":"accept","content":{"n":7,"from":"` + p.id + `"}}`), nil
}

// TestHTTPServerRequestGoesToTheCallOfItsStream: with calls of two
// sessions in flight, stdio cannot tell whose a server's request is and
// refuses it; over HTTP it came on one call's answer, and goes to that
// call's client.
func TestHTTPServerRequestGoesToTheCallOfItsStream(t *testing.T) {
	u, f, _ := httpFake(t, fakehttp.Options{}, nil)
	alice, bob := &askingPeer{id: "alice"}, &askingPeer{id: "bob"}
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	aliceCtx, stopAlice := context.WithCancel(context.Background())
	aliceDone := make(chan error, 1)
	go func() {
		_, err := u.Call(aliceCtx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"ms":30000}}`), alice)
		aliceDone <- err
	}()
	testwait.For(t, 0, "alice's call at the server", func() bool { return len(seenOf(f, "POST", "tools/call")) == 1 })
	res, err := u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"elicit"}`), bob)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), `\"from\":\"bob\"`) {
		t.Errorf("result %s, want bob's answer", res)
	}
	if got := alice.asked(); len(got) != 0 {
		t.Errorf("alice was asked %v", got)
	}
	stopAlice()
	<-aliceDone
}

func TestHTTPLegacyCancelNotifies(t *testing.T) {
	u, f, _ := httpFake(t, fakehttp.Options{}, nil)
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := u.Call(ctx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"ms":30000}}`), &recordingPeer{})
		done <- err
	}()
	testwait.For(t, 0, "the call at the server", func() bool { return len(seenOf(f, "POST", "tools/call")) == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	testwait.For(t, 0, "notifications/cancelled at the server", func() bool {
		return slices.ContainsFunc(f.Cancelled(), func(s string) bool { return strings.HasPrefix(s, "notified ") })
	})
}

func TestHTTPExpiredSessionIsRenewedOnce(t *testing.T) {
	u, f, log := httpFake(t, fakehttp.Options{}, nil)
	mustText(t, u, "echo", `{"text":"a"}`)
	f.Expire()
	if got := mustText(t, u, "echo", `{"text":"b"}`); got != "b" {
		t.Fatalf("echo after the session expired = %q", got)
	}
	// The tool that ends its session after answering: the next call renews it.
	mustText(t, u, "expire", `{}`)
	if got := mustText(t, u, "echo", `{"text":"c"}`); got != "c" {
		t.Fatalf("echo after expire = %q", got)
	}
	if n := len(seenOf(f, "POST", "initialize")); n != 3 {
		t.Errorf("%d initializes, want 3 (the start and two renewals)", n)
	}
	contains(t, "log", log.String(), "the server ended the session (HTTP 404); starting a new one")
	// The last session gets a GET stream of its own (a GET loop of an
	// earlier one may be replaced before it ever connects).
	testwait.For(t, 0, "one session, with its GET stream", func() bool {
		ids := f.SessionIDs()
		return len(ids) == 1 && slices.ContainsFunc(seenOf(f, "GET", "*"), func(s fakehttp.Seen) bool { return s.Header.Get("Mcp-Session-Id") == ids[0] })
	})
	if st := u.Status(); st.State != StateRunning || st.Restarts != 0 {
		t.Errorf("status %+v: a renewed session is no restart", st)
	}
}

func TestHTTPStreamThatEndsEarlyIsResumed(t *testing.T) {
	u, f, _ := httpFake(t, fakehttp.Options{}, nil)
	if got := mustText(t, u, "closeearly", `{}`); got != "resumed" {
		t.Fatalf("closeearly = %q", got)
	}
	var resumed bool
	for _, s := range seenOf(f, "GET", "*") {
		resumed = resumed || strings.HasPrefix(s.Header.Get("Last-Event-ID"), "early-")
	}
	if !resumed {
		t.Error("no GET with Last-Event-ID")
	}
}

func TestHTTPListChangedOnTheGETStream(t *testing.T) {
	tools2 := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"added","inputSchema":{"type":"object"}}]`
	u, f, _ := httpFake(t, fakehttp.Options{Tools2: tools2}, nil)
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "the GET stream", func() bool { return f.Listening() == 1 })
	mustText(t, u, "change", `{}`)
	testwait.For(t, 0, "the new tool list", func() bool { return len(u.Tools()) == 2 })
}

// A GET stream that drops is reopened (after the server's retry time),
// and what the server sends there still arrives.
func TestHTTPGETStreamIsReopened(t *testing.T) {
	tools2 := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"added","inputSchema":{"type":"object"}}]`
	u, f, _ := httpFake(t, fakehttp.Options{Tools2: tools2}, nil)
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 0, "the GET stream", func() bool { return f.Listening() == 1 })
	f.DropStreams()
	testwait.For(t, 0, "the GET stream reopened", func() bool { return f.GETs() == 2 && f.Listening() == 1 })
	mustText(t, u, "change", `{}`)
	testwait.For(t, 0, "the new tool list", func() bool { return len(u.Tools()) == 2 })
}

func TestHTTPModernServer(t *testing.T) {
	tools := `[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"region":{"type":"string","x-mcp-header":"Region"}}}}]`
	tools2 := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"mrtr","inputSchema":{"type":"object"}}]`
	u, f, _ := httpFake(t, fakehttp.Options{Era: "modern", Tools: tools, Tools2: tools2}, nil)
	if got := mustText(t, u, "echo", `{"text":"modern","region":"eu west 1 "}`); got != "modern" {
		t.Fatalf("echo = %q", got)
	}
	st := u.Status()
	if st.Era != EraModern || st.Transport != "streamable-http" || st.Protocol != "2026-07-28" {
		t.Errorf("status %+v", st)
	}
	call := seenOf(f, "POST", "tools/call")[0].Header
	if call.Get("Mcp-Method") != "tools/call" || call.Get("Mcp-Name") != "echo" || call.Get("Mcp-Param-Region") != "=?base64?ZXUgd2VzdCAxIA==?=" || call.Get("Mcp-Session-Id") != "" {
		t.Errorf("tools/call headers: %v", call)
	}
	if len(seenOf(f, "GET", "*")) != 0 {
		t.Error("a GET to a modern server")
	}
	// MRTR for a legacy client: the supervisor asks it and retries.
	testwait.For(t, 0, "the listen stream", func() bool { return f.Listening() == 1 }) // else the change goes to no one
	mustText(t, u, "change", `{}`)
	testwait.For(t, 0, "the list change on the listen stream", func() bool { return len(u.Tools()) == 2 })
	res := callRaw(t, u, `{"name":"mrtr"}`, &modernPeer{session: "s", names: []string{"ada"}})
	contains(t, "mrtr result", string(res), "hello ada")
	// Cancellation closes the stream; no notifications/cancelled.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := u.Call(ctx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"ms":30000}}`), &recordingPeer{})
		done <- err
	}()
	testwait.For(t, 0, "the sleep at the server", func() bool { return len(seenOf(f, "POST", "tools/call")) == 5 })
	cancel()
	<-done
	testwait.For(t, 0, "the stream closed", func() bool { return len(f.Cancelled()) == 1 })
	if got := f.Cancelled(); !strings.HasPrefix(got[0], "closed ") {
		t.Errorf("cancelled: %q, want the stream closed", got)
	}
}

func TestHTTPPlusSSEFallback(t *testing.T) {
	u, f, log := httpFake(t, fakehttp.Options{Era: "sse"}, map[string]string{"X-Api-Key": "k-secret-2"})
	if got := mustText(t, u, "echo", `{"text":"old"}`); got != "old" {
		t.Fatalf("echo = %q", got)
	}
	if st := u.Status(); st.Transport != "http+sse" || st.Era != EraLegacy {
		t.Errorf("status %+v", st)
	}
	contains(t, "log", log.String(), "the server speaks the older HTTP+SSE transport")
	res, err := u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"elicit"}`), &askingPeer{id: "solo"})
	if err != nil || !strings.Contains(string(res), "solo") {
		t.Errorf("elicit = %s, %v", res, err)
	}
	for _, s := range f.Seen() {
		if s.Header.Get("X-Api-Key") != "k-secret-2" {
			t.Errorf("%s %s without the configured header", s.HTTP, s.Method)
		}
	}
	if n := len(seenOf(f, "POST", "initialize")); n != 2 {
		t.Errorf("%d initialize POSTs, want 2 (the refused one, then the endpoint's)", n)
	}
}
