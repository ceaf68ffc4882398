package supervisor

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// modernFake is fake with the fake in modern mode (2026-07-28 only); it
// also returns the file where the fake records every request it gets.
func modernFake(t *testing.T, env map[string]string) (*Supervisor, *Upstream, string) {
	t.Helper()
	rec := filepath.Join(t.TempDir(), "requests")
	e := map[string]string{"MCP_FAKE_MODERN": "1", "MCP_FAKE_RECORD_FILE": rec}
	for k, v := range env {
		e[k] = v
	}
	s, u, _ := fake(t, e)
	return s, u, rec
}

// recorded returns the requests the fake got, as "<method> <params>".
func recorded(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// modernPeer is a calling client of either era: it answers
// elicitation/create with the next of names and records what reaches it.
type modernPeer struct {
	session string
	client  ClientInfo

	mu       sync.Mutex
	names    []string
	notes    []string
	requests []string
}

func (p *modernPeer) ClientID() string   { return p.session }
func (p *modernPeer) Client() ClientInfo { return p.client }

func (p *modernPeer) Notify(_ context.Context, method string, params json.RawMessage) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.notes = append(p.notes, method+" "+string(params))
}

func (p *modernPeer) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, method+" "+string(params))
	if method != "elicitation/create" || len(p.names) == 0 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "not declared"}
	}
	name := p.names[0]
	p.names = p.names[1:]
	return json.RawMessage(`{"action":"accept","content":{"name":"` + name + `"}}`), nil
}

func (p *modernPeer) seen() (notes, requests []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.notes...), append([]string(nil), p.requests...)
}

// callRaw calls tools/call with params within 20 s.
func callRaw(t *testing.T, u *Upstream, params string, peer Peer) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := u.Call(ctx, "tools/call", json.RawMessage(params), peer)
	if err != nil {
		t.Fatalf("call %s: %v", params, err)
	}
	return res
}

func TestEraIsDetectedPerServer(t *testing.T) {
	_, legacy, _ := fake(t, nil)
	_, modern, rec := modernFake(t, nil)
	for _, u := range []*Upstream{legacy, modern} {
		if err := u.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if st := legacy.Status(); st.Era != EraLegacy || st.Protocol != ProtocolVersion {
		t.Errorf("legacy server: era %q, protocol %q", st.Era, st.Protocol)
	}
	if st := modern.Status(); st.Era != EraModern || st.Protocol != "2026-07-28" || st.Tools != 1 {
		t.Errorf("modern server: era %q, protocol %q, %d tools", st.Era, st.Protocol, st.Tools)
	}
	if b, _ := json.Marshal(modern.Status()); !strings.Contains(string(b), `"protocolVersion":"2026-07-28","era":"modern"`) {
		t.Errorf("/health's server entry = %s, want its era", b)
	}
	own := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"mcp-gateway","version":"dev"}}}`
	listen := `{"notifications":{"toolsListChanged":true},` + own[1:]
	got := recorded(t, rec)
	if len(got) != 4 {
		t.Fatalf("requests = %q, want initialize, server/discover, subscriptions/listen, tools/list", got)
	}
	if !strings.HasPrefix(got[0], "initialize ") {
		t.Errorf("first request = %s, want initialize", got[0])
	}
	want := []string{"server/discover " + own, "subscriptions/listen " + listen, "tools/list " + own}
	if diff := cmp.Diff(want, got[1:]); diff != "" {
		t.Errorf("requests after initialize (-want +got):\n%s", diff)
	}
}

func TestModernRequestMetaKeepsEveryOtherByte(t *testing.T) {
	_, u, rec := modernFake(t, nil)
	legacyClient := &modernPeer{session: "a", client: ClientInfo{
		Capabilities: json.RawMessage(`{"elicitation":{"form":{}}}`), Info: json.RawMessage(`{"name":"c","version":"1.0"}`), LogLevel: "info"}}
	modernClient := &modernPeer{session: "b", client: ClientInfo{Modern: true}}
	for _, tc := range []struct {
		name       string
		peer       Peer
		sent, want string
	}{{
		name: "legacy client",
		peer: legacyClient,
		sent: `{"name":"args","_meta":{"x.example/trace":{"big":18446744073709551617},"io.modelcontextprotocol/protocolVersion":"2099-01-01"},` +
			`"arguments":{"n":9007199254740993,"z":[1,2.50,"é"],"a":{}},"task":{"ttl":5},"zzz-unknown":null,"\u00e9t\u00e9":"<ok>"}`,
		want: `{"name":"args","_meta":{"x.example/trace":{"big":18446744073709551617},"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1.0"},` +
			`"io.modelcontextprotocol/logLevel":"info"},"arguments":{"n":9007199254740993,"z":[1,2.50,"é"],"a":{}},"task":{"ttl":5},"zzz-unknown":null,"\u00e9t\u00e9":"<ok>"}`,
	}, {
		name: "modern client keeps its own _meta, version aside",
		peer: modernClient,
		sent: `{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"m","version":"9"},"io.modelcontextprotocol/protocolVersion":"2026-07-29",` +
			`"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/logLevel":"debug"},"name":"args","arguments":{}}`,
		want: `{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"m","version":"9"},"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/logLevel":"debug"},"name":"args","arguments":{}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := callRaw(t, u, tc.sent, tc.peer)
			var r struct {
				Content []struct{ Text string } `json:"content"`
			}
			if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
				t.Fatalf("result %s: %v", res, err)
			}
			if diff := cmp.Diff(tc.want, r.Content[0].Text); diff != "" {
				t.Errorf("params the server got (-want +got):\n%s", diff)
			}
		})
	}
	for _, line := range recorded(t, rec)[1:] {
		if !strings.Contains(line, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) || !strings.Contains(line, `"io.modelcontextprotocol/clientCapabilities":{`) {
			t.Errorf("request without the required _meta: %s", line)
		}
	}
}

// The fake must refuse what a modern server refuses, or the tests above
// would not prove that the gateway sends request _meta.
func TestModernFakeRejectsMissingMeta(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, fakeserver.Argv()[0], fakeserver.Argv()[1:]...)
	cmd.Env = append(os.Environ(), "MCP_FAKE=1", "MCP_FAKE_MODERN=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	out := bufio.NewReader(stdout)
	for _, tc := range []struct{ req, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, `"tools":[`},
	} {
		if _, err := in.Write([]byte(tc.req + "\n")); err != nil {
			t.Fatal(err)
		}
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		contains(t, "answer to "+tc.req, line, tc.want)
	}
}

func TestModernListChangedComesThroughListen(t *testing.T) {
	s, u, _ := modernFake(t, map[string]string{"MCP_FAKE_TOOLS2": `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"two","inputSchema":{"type":"object"}}]`})
	var mu sync.Mutex
	changed := 0
	s.opts.OnListChanged = func(string) { mu.Lock(); changed++; mu.Unlock() }
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustText(t, u, "changeuntagged", `{}`)
	// The notification came before the reply on the one stdout, so a
	// re-list it caused would have been asked before this call.
	if n := mustText(t, u, "lists", `{}`); n != "1" {
		t.Errorf("tools/list answered %s times after an untagged list_changed, want 1", n)
	}
	mustText(t, u, "change", `{}`)
	waitFor(t, func() bool { return len(u.Tools()) == 2 })
	mu.Lock()
	defer mu.Unlock()
	if changed < 2 { // the start, then the change
		t.Errorf("OnListChanged called %d times, want 2", changed)
	}
}

func TestModernListenEndedByTheServerIsLogged(t *testing.T) {
	_, u, log := fake(t, map[string]string{"MCP_FAKE_MODERN": "1"})
	mustText(t, u, "endlisten", `{}`)
	// The listen's answer came before the call's on the one stdout.
	contains(t, "log", log.String(), "the server ended the gateway's subscriptions/listen (the server closed it)")
	if got := mustText(t, u, "echo", `{"text":"still here"}`); got != "still here" {
		t.Errorf("echo after the listen ended = %q", got)
	}
}

func TestModernListenReopenedAfterRestart(t *testing.T) {
	_, u, rec := modernFake(t, map[string]string{"MCP_FAKE_TOOLS2": `[{"name":"three","inputSchema":{"type":"object"}}]`})
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	pid := u.Status().PID
	if _, err := callText(t, u, "crash", `{}`); !errors.Is(err, ErrExited) {
		t.Fatalf("crash: err = %v, want the server's exit", err)
	}
	waitFor(t, func() bool { return u.Status().State == StateExited })
	mustText(t, u, "change", `{}`) // restarts it first
	if u.Status().PID == pid {
		t.Fatal("the server was not restarted")
	}
	waitFor(t, func() bool { ts := u.Tools(); return len(ts) == 1 && ts[0].Key == "three" })
	listens := 0
	for _, line := range recorded(t, rec) {
		if strings.HasPrefix(line, "subscriptions/listen ") {
			listens++
		}
	}
	if listens != 2 {
		t.Errorf("subscriptions/listen sent %d times, want once per run (2)", listens)
	}
}

func TestModernInputRoundsForLegacyClient(t *testing.T) {
	_, u, rec := modernFake(t, nil)
	p := &modernPeer{session: "a", names: []string{"ann", "bob", "cy"}, client: ClientInfo{Capabilities: json.RawMessage(`{"elicitation":{}}`)}}
	res := callRaw(t, u, `{"name":"mrtr","arguments":{"rounds":3}}`, p)
	contains(t, "result", string(res), `"text":"hello ann bob cy"`)
	_, requests := p.seen()
	if len(requests) != 3 {
		t.Fatalf("the client was asked %d times, want 3: %q", len(requests), requests)
	}
	want := `elicitation/create {"mode":"form","message":"name #2?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`
	if requests[1] != want {
		t.Errorf("second input request = %s, want the server's as sent: %s", requests[1], want)
	}
	pid := strconv.Itoa(u.Status().PID)
	var retries []string
	for _, line := range recorded(t, rec) {
		if strings.HasPrefix(line, "tools/call ") && strings.Contains(line, "requestState") {
			retries = append(retries, line)
		}
	}
	if len(retries) != 3 {
		t.Fatalf("%d retries, want 3: %q", len(retries), retries)
	}
	contains(t, "last retry", retries[2], `"inputResponses":{"ask":{"action":"accept","content":{"name":"cy"}}},"requestState":"`+pid+`|2|ann bob"`)
}

func TestModernInputRequiredPassesToModernClient(t *testing.T) {
	_, u, _ := modernFake(t, nil)
	p := &modernPeer{session: "m", client: ClientInfo{Modern: true, Capabilities: json.RawMessage(`{"elicitation":{}}`)}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := u.CallRun(ctx, 0, "tools/call", json.RawMessage(`{"name":"mrtr","arguments":{"rounds":1}}`), p)
	res, run := rep.Result, rep.Run
	if err != nil {
		t.Fatal(err)
	}
	state := strconv.Itoa(u.Status().PID) + "|0|"
	want := `{"resultType":"input_required","inputRequests":{"ask":{"method":"elicitation/create","params":{"mode":"form","message":"name #1?",` +
		`"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},"requestState":"` + state + `"}`
	if diff := cmp.Diff(want, string(res)); diff != "" {
		t.Fatalf("result (-want +got):\n%s", diff)
	}
	retry := `{"name":"mrtr","arguments":{"rounds":1},"inputResponses":{"ask":{"action":"accept","content":{"name":"zed"}}},"requestState":"` + state + `"}`
	rep, err = u.CallRun(ctx, run, "tools/call", json.RawMessage(retry), p)
	res, servedBy := rep.Result, rep.Run
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "retry result", string(res), `"text":"hello zed"`)
	if servedBy != run {
		t.Errorf("retry served by run %d, want %d", servedBy, run)
	}
	if _, requests := p.seen(); len(requests) != 0 {
		t.Errorf("a modern client was sent requests: %q", requests)
	}
}

func TestCallRunOnAnEndedRunIsAClearError(t *testing.T) {
	_, u, _ := modernFake(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rep, err := u.CallRun(ctx, 0, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`), nil)
	run := rep.Run
	if err != nil || run == 0 {
		t.Fatalf("first call: run %d, err %v", run, err)
	}
	if _, err := callText(t, u, "crash", `{}`); !errors.Is(err, ErrExited) {
		t.Fatalf("crash: err = %v, want the server's exit", err)
	}
	waitFor(t, func() bool { return u.Status().State == StateExited })
	_, err = u.CallRun(ctx, run, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`), nil)
	if !errors.Is(err, ErrRunEnded) {
		t.Fatalf("call on the ended run: err = %v, want ErrRunEnded", err)
	}
	contains(t, "error", err.Error(), `server "fake"`)
	if st := u.Status(); st.State != StateExited {
		t.Errorf("a call on an ended run started the server: state %s", st.State)
	}
	rep, err = u.CallRun(ctx, 0, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`), nil)
	run2 := rep.Run
	if err != nil || run2 == run {
		t.Fatalf("call on any run: run %d (old %d), err %v", run2, run, err)
	}
	if _, err = u.CallRun(ctx, run, "tools/call", json.RawMessage(`{"name":"echo","arguments":{}}`), nil); !errors.Is(err, ErrRunEnded) {
		t.Errorf("call on the old run after a restart: err = %v, want ErrRunEnded", err)
	}
}

func TestModernCrashMidCallFailsAtOnce(t *testing.T) {
	_, u, _ := modernFake(t, nil)
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := callText(t, u, "crash", `{"ms":100}`)
	if !errors.Is(err, ErrExited) {
		t.Fatalf("err = %v, want the server's exit", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call failed after %s, not at once", d)
	}
}

func TestModernProgressAndLogsReachOnlyTheirCall(t *testing.T) {
	_, u, _ := modernFake(t, nil)
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	quiet := &modernPeer{session: "a"}
	started := filepath.Join(t.TempDir(), "started")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := u.Call(ctx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"ms":30000,"started":"`+started+`"}}`), quiet)
		done <- err
	}()
	fakeserver.WaitFile(t, started)
	// Another session's call is in flight, which makes a legacy server's
	// log messages undeliverable; a modern one's go to the call that asked.
	loud := &modernPeer{session: "b", client: ClientInfo{LogLevel: "debug"}}
	callRaw(t, u, `{"name":"log"}`, loud)
	callRaw(t, u, `{"name":"progress","arguments":{"n":2},"_meta":{"progressToken":"tok-b"}}`, loud)
	cancel() // the other session's call was in flight all along
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the other session's call: %v, want it still running until cancelled", err)
	}
	notes, _ := loud.seen()
	want := []string{
		`notifications/message {"level":"warning","logger":"fake","data":{"msg":"hello from the fake"}}`,
		`notifications/progress {"progressToken":"tok-b","progress":1,"total":2}`,
		`notifications/progress {"progressToken":"tok-b","progress":2,"total":2}`,
	}
	if diff := cmp.Diff(want, notes); diff != "" {
		t.Errorf("what reached the calling client (-want +got):\n%s", diff)
	}
	if notes, _ := quiet.seen(); len(notes) != 0 {
		t.Errorf("another session got %q", notes)
	}
}

func TestModernRefusal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		version string
		modern  bool
		fails   bool
	}{
		{"modern only", &jsonrpc.Error{Code: -32022, Data: json.RawMessage(`{"supported":["2026-07-28"],"requested":"2025-11-25"}`)}, "2026-07-28", true, false},
		{"dual era", &jsonrpc.Error{Code: -32022, Data: json.RawMessage(`{"supported":["2026-07-28","2025-06-18"]}`)}, "", false, false},
		{"newer than ours", &jsonrpc.Error{Code: -32022, Data: json.RawMessage(`{"supported":["2099-01-01"]}`)}, "", true, true},
		{"no data", &jsonrpc.Error{Code: -32022}, "", false, false},
		{"another code", &jsonrpc.Error{Code: -32601, Data: json.RawMessage(`{"supported":["2026-07-28"]}`)}, "", false, false},
		{"not JSON-RPC", errors.New("eof"), "", false, false},
	} {
		v, modern, err := modernRefusal(tc.err)
		if v != tc.version || modern != tc.modern || (err != nil) != tc.fails {
			t.Errorf("%s: got %q, %v, %v; want %q, %v, fails %v", tc.name, v, modern, err, tc.version, tc.modern, tc.fails)
		}
	}
}

func TestModernInputRoundsAreBounded(t *testing.T) {
	_, u, _ := modernFake(t, nil)
	names := make([]string, 2*MaxInputRounds)
	for i := range names {
		names[i] = "n" + strconv.Itoa(i)
	}
	p := &modernPeer{session: "a", names: names}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := u.Call(ctx, "tools/call", json.RawMessage(`{"name":"mrtr","arguments":{"rounds":1000}}`), p)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError {
		t.Fatalf("err = %v, want a JSON-RPC internal error", err)
	}
	contains(t, "error", err.Error(), "rounds")
	if _, requests := p.seen(); len(requests) != MaxInputRounds {
		t.Errorf("the client was asked %d times, want %d", len(requests), MaxInputRounds)
	}

	// A client that cannot answer fails the call with its own error.
	refuser := &modernPeer{session: "b"}
	_, err = u.Call(ctx, "tools/call", json.RawMessage(`{"name":"mrtr","arguments":{"rounds":1}}`), refuser)
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("err = %v, want the client's -32601", err)
	}
}

func TestModernServerOfAnotherVersionFailsClearly(t *testing.T) {
	_, u, _ := modernFake(t, map[string]string{"MCP_FAKE_MODERN_SUPPORTED": `["2099-01-01"]`})
	err := u.Start(context.Background())
	if err == nil {
		t.Fatal("a server that speaks only 2099-01-01 started")
	}
	for _, want := range []string{`server "fake"`, "initialize", "supports only 2099-01-01", "2026-07-28"} {
		contains(t, "error", err.Error(), want)
	}
	// One that also lists a legacy version is not modern-only: its
	// refusal is an ordinary failed initialize.
	_, u2, _ := modernFake(t, map[string]string{"MCP_FAKE_MODERN_SUPPORTED": `["2026-07-28","2025-06-18"]`})
	err = u2.Start(context.Background())
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32022 {
		t.Fatalf("err = %v, want the server's -32022", err)
	}
	if u2.Status().Era != "" {
		t.Errorf("era %q for a server that never started", u2.Status().Era)
	}
}

func TestModernCancellationReachesTheServer(t *testing.T) {
	cancelFile := filepath.Join(t.TempDir(), "cancelled")
	_, u, _ := modernFake(t, map[string]string{"MCP_FAKE_CANCEL_FILE": cancelFile})
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	started := filepath.Join(t.TempDir(), "started")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := u.Call(ctx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"ms":10000,"started":"`+started+`"}}`), &modernPeer{session: "a"})
		done <- err
	}()
	fakeserver.WaitFile(t, started)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	waitFor(t, func() bool {
		b, _ := os.ReadFile(cancelFile)
		return strings.Contains(string(b), `"requestId":`)
	})
}

// killingPeer kills the server before it answers an input request.
type killingPeer struct {
	modernPeer
	t *testing.T
	u *Upstream
}

func (p *killingPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	_ = syscall.Kill(p.u.Status().PID, syscall.SIGKILL)
	waitFor(p.t, func() bool { return p.u.Status().State == StateExited })
	return p.modernPeer.Request(ctx, method, params)
}

// The rounds belong to the process that issued the requestState: if it
// dies meanwhile, the call fails; it is not retried on a new process.
func TestModernInputRoundsStayOnTheirRun(t *testing.T) {
	_, u, rec := modernFake(t, nil)
	p := &killingPeer{modernPeer: modernPeer{session: "a", names: []string{"ann"}}, t: t, u: u}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := u.Call(ctx, "tools/call", json.RawMessage(`{"name":"mrtr","arguments":{"rounds":1}}`), p)
	if !errors.Is(err, ErrExited) {
		t.Fatalf("err = %v, want the server's exit", err)
	}
	if st := u.Status(); st.State != StateExited || st.Restarts != 0 {
		t.Errorf("state %s after %d restarts; the retry must not start a new run", st.State, st.Restarts)
	}
	calls := 0
	for _, line := range recorded(t, rec) {
		if strings.HasPrefix(line, "tools/call ") {
			calls++
		}
	}
	if calls != 1 {
		t.Errorf("the server got %d tools/call, want 1", calls)
	}
}
