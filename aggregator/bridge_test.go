package aggregator

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-gateway/mcp-gateway/aggregator/auth"
	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
)

// Tests of server-to-client requests across eras (SPEC §4.6, issue 13).

// modernCaller makes modern tools/calls with the given client
// capabilities (raw JSON).
type modernCaller struct {
	t    *testing.T
	url  string
	caps string
}

// call posts tools/call name with extra params members (raw, may be "")
// and returns the response message.
func (c modernCaller) call(id int, name, extra string) []byte {
	c.t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":%s}}}`,
		id, name, extra, c.caps)
	resp, b := send(c.t, "POST", c.url, body, modernHeaders("tools/call", name))
	return message(c.t, resp, b)
}

// inputRequired reads an InputRequiredResult.
func inputRequired(t *testing.T, msg []byte) (requests map[string]json.RawMessage, state string) {
	t.Helper()
	var r struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}
	if err := json.Unmarshal(result(t, msg), &r); err != nil || r.ResultType != "input_required" || r.RequestState == "" {
		t.Fatalf("want an InputRequiredResult, got %s", msg)
	}
	return r.InputRequests, r.RequestState
}

func retry(state, responses string) string {
	return `"requestState":` + string(mustQuote(state)) + `,"inputResponses":` + responses + `,`
}

func mustQuote(s string) []byte { b, _ := json.Marshal(s); return b }

func wantCode(t *testing.T, what string, msg []byte, code string) {
	t.Helper()
	if e := rpcError(t, msg); string(e["code"]) != code {
		t.Errorf("%s: error %s, want code %s", what, msg, code)
	}
}

// A legacy server's elicitation during a modern client's call parks the
// call; the retry answers it, byte for byte, and resumes it.
func TestBridgeLegacyServerModernClient(t *testing.T) {
	srv, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"elicit","inputSchema":{"type":"object"}}]`}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{}}`}
	reqs, state := inputRequired(t, c.call(1, "elicit", ""))
	want := map[string]json.RawMessage{"elicitation-1": json.RawMessage(`{"method":"elicitation/create","params":{"message":"pick n","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}}`)}
	if diff := cmp.Diff(want, reqs); diff != "" {
		t.Fatalf("inputRequests (-want +got):\n%s", diff)
	}
	answer := `{"action":"accept","content":{"n":9007199254740993,"zz":1,"aa":2},"vendorField":true}`
	final := c.call(2, "elicit", retry(state, `{"elicitation-1":`+answer+`}`))
	if diff := cmp.Diff(answer, upstreamText(t, final)); diff != "" {
		t.Errorf("the answer as the server got it (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(result(t, final)), `"resultType":"complete"`) {
		t.Errorf("final result %s has no resultType", final)
	}
	// Replayed, tampered, foreign: errors, at once.
	wantCode(t, "replayed state", c.call(3, "elicit", retry(state, `{"elicitation-1":`+answer+`}`)), "-32602")
	wantCode(t, "tampered state", c.call(4, "elicit", retry(state[:len(state)-2]+"xy", `{}`)), "-32602")
	foreign := gw.states.Seal(reqstate.State{Kind: reqstate.KindPark, ID: "x", Round: 1, Tool: "elicit", Token: auth.TokenDigest("someone else"), Expiry: time.Now().Add(time.Hour).UnixMilli()})
	wantCode(t, "foreign state", c.call(5, "elicit", retry(foreign, `{}`)), "-32602")
	// The state is bound to its tool call.
	_, state = inputRequired(t, c.call(6, "elicit", ""))
	wantCode(t, "state of another tool", c.call(7, "echo", retry(state, `{}`)), "-32602")
}

// A parked call nobody resumes is cancelled upstream when its state
// expires, and the state is refused after.
func TestBridgeParkedCallExpires(t *testing.T) {
	cancelFile := t.TempDir() + "/cancelled"
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"elicit","inputSchema":{"type":"object"}}]`, "MCP_FAKE_CANCEL_FILE": cancelFile}},
		HTTPOptions{StateTTL: 300 * time.Millisecond})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{}}`}
	_, state := inputRequired(t, c.call(1, "elicit", ""))
	fakeserver.WaitFile(t, cancelFile) // the server got notifications/cancelled
	wantCode(t, "expired state", c.call(2, "elicit", retry(state, `{"elicitation-1":{"action":"decline"}}`)), "-32602")
}

// A modern client that did not declare elicitation is never asked: the
// legacy server gets -32601 and the call completes.
func TestBridgeClientWithoutCapability(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"elicit","inputSchema":{"type":"object"}}]`}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{}`}
	res := string(result(t, c.call(1, "elicit", "")))
	if !strings.HasPrefix(res, `{"resultType":"complete"`) {
		t.Errorf("call without the capability: %s, want a complete result", res)
	}
}

func modernGateway(t *testing.T, o HTTPOptions) (*httptest.Server, *Gateway) {
	return startGatewayOpts(t, map[string]map[string]string{"m": {"MCP_FAKE_MODERN": "1",
		"MCP_FAKE_TOOLS": `[{"name":"mrtr","inputSchema":{"type":"object"}},{"name":"crash","inputSchema":{"type":"object"}}]`}}, o)
}

// A modern server's InputRequiredResult reaches a modern client as sent,
// but for its requestState, sealed so that the retry reaches the process
// that issued it, round after round.
func TestBridgeModernServerModernClient(t *testing.T) {
	srv, _ := modernGateway(t, HTTPOptions{})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{}}`}
	reqs, state := inputRequired(t, c.call(1, "mrtr", `"arguments":{"rounds":2},`))
	if strings.Contains(state, "|") {
		t.Errorf("the server's requestState %q reached the client unsealed", state)
	}
	if !strings.Contains(string(reqs["ask"]), `"message":"name #1?"`) {
		t.Errorf("inputRequests %v", reqs)
	}
	_, state = inputRequired(t, c.call(2, "mrtr", `"arguments":{"rounds":2},`+retry(state, `{"ask":{"action":"accept","content":{"name":"ada"}}}`)))
	final := c.call(3, "mrtr", `"arguments":{"rounds":2},`+retry(state, `{"ask":{"action":"accept","content":{"name":"bob"}}}`))
	if got := upstreamText(t, final); got != "hello ada bob" {
		t.Errorf("final: %s", final)
	}
	// Without the capability: -32021.
	wantCode(t, "no elicitation capability", modernCaller{t: t, url: c.url, caps: `{}`}.call(4, "mrtr", `"arguments":{"rounds":1},`), "-32021")
}

// A retry after the server that issued the state restarted is a clear
// error, never a call on another process.
func TestBridgeModernServerRestartedBetweenRounds(t *testing.T) {
	srv, _ := modernGateway(t, HTTPOptions{})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{}}`}
	_, state := inputRequired(t, c.call(1, "mrtr", `"arguments":{"rounds":1},`))
	c.call(2, "crash", `"arguments":{"ms":0},`)
	msg := c.call(3, "mrtr", `"arguments":{"rounds":1},`+retry(state, `{"ask":{"action":"accept","content":{"name":"x"}}}`))
	if e := rpcError(t, msg); !strings.Contains(string(e["message"]), "ended") {
		t.Errorf("retry after a restart: %s", msg)
	}
}

// A modern server's InputRequiredResult during a legacy client's call
// becomes requests on the client's session, round after round.
func TestBridgeModernServerLegacyClient(t *testing.T) {
	srv, _ := modernGateway(t, HTTPOptions{})
	c := &rawClient{t: t, url: srv.URL + "/mcp"}
	c.rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	ch := events(t, c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mrtr","arguments":{"rounds":2}}}`))
	for _, name := range []string{"ada", "bob"} {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if ev := next(t, ch, "elicitation"); json.Unmarshal([]byte(ev), &m) != nil || m.Method != "elicitation/create" {
			t.Fatalf("got %s, want elicitation/create", ev)
		}
		c.post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"action":"accept","content":{"name":"` + name + `"}}}`).Body.Close()
	}
	if final := next(t, ch, "result"); !strings.Contains(final, "hello ada bob") {
		t.Errorf("final %s", final)
	}
}

// A legacy server that crashes while a call is parked: the retry gets a
// clear error at once, never a hang or another process's answer.
func TestBridgeServerCrashWhileParked(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"elicit","inputSchema":{"type":"object"}},{"name":"crash","inputSchema":{"type":"object"}}]`}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{}}`}
	_, state := inputRequired(t, c.call(1, "elicit", ""))
	// The crash call comes from a client that cannot be asked anything,
	// so it runs while the other call is parked.
	modernCaller{t: t, url: c.url, caps: `{}`}.call(2, "crash", `"arguments":{"ms":0},`)
	msg := c.call(3, "elicit", retry(state, `{"elicitation-1":{"action":"accept","content":{"n":1}}}`))
	if e := rpcError(t, msg); !strings.Contains(string(e["message"]), "exit") {
		t.Errorf("retry after the crash: %s", msg)
	}
}

// A server's request that comes while a modern client's call is parked
// and another client's call runs could be for either: it goes to neither
// (the server gets an error), never to the other client. Before, parked
// calls did not count, and the second ask of a parked call reached the
// other client's stream (found by an adversarial review).
func TestBridgeParkedCallsRequestsReachNoOtherClient(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"asktwice","inputSchema":{"type":"object"}},{"name":"sleep","inputSchema":{"type":"object"}}]`}})
	b := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{}}`}
	inputRequired(t, b.call(1, "asktwice", `"arguments":{"ms":1500},`)) // B's call is parked on the first ask
	a := &rawClient{t: t, url: srv.URL + "/mcp"}
	a.rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"a","version":"1"}}}`)
	ch := events(t, a.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":3000}}}`))
	ev := next(t, ch, "A's result")
	if strings.Contains(ev, "elicitation/create") || !strings.Contains(ev, "slept") {
		t.Errorf("client A got %s; B's second ask must not reach it", ev)
	}
}

// A call whose client can be asked runs on its request's goroutine until
// the server asks something (callParkable): one the server asks nothing
// starts no goroutine of its own (with one from the start, such a call
// cost ~10 µs more than a legacy one), and one it asks still parks and
// resumes (TestBridgeLegacyServerModernClient).
func TestBridgeCallAskedNothingStartsNoGoroutine(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	h := srv.Config.Handler
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"roots":{}}}}}`
	call := func() {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		r.Host = "127.0.0.1"
		r.Header.Set("Authorization", "Bearer "+testToken)
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range modernHeaders("tools/call", "echo") {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"text":"hi"`) {
			t.Fatalf("tools/call: %d %s", w.Code, w.Body.String())
		}
	}
	call() // the server is started and its tools listed
	const n = 50
	before := goroutinesCreated()
	for range n {
		call()
	}
	if made := goroutinesCreated() - before; made >= n/2 {
		t.Errorf("%d goroutines started for %d calls the server asked nothing", made, n)
	}
}

func goroutinesCreated() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A modern server's InputRequiredResult that no retry could answer (its
// inputRequests not an object, its requestState not a string) is the
// server's error for a modern client, -32603 saying why, as it is for a
// legacy one; it used to reach the client as sent, unsealed.
func TestBridgeModernServerMalformedInputRequired(t *testing.T) {
	for _, tc := range []struct{ result, why string }{
		{`{"resultType":"input_required","inputRequests":[{"method":"elicitation/create"}],"requestState":"s"}`, "inputRequests is not an object"},
		{`{"resultType":"input_required","inputRequests":{"ask":{"method":"elicitation/create","params":{}}},"requestState":7}`, "requestState is not a string"},
		// An escaped key is the key it spells (found by a hostile review:
		// one scan of the result matched raw bytes, and passed this on).
		{`{"result\u0054ype":"input_required","inputRequests":[{"method":"elicitation/create"}],"requestState":"s"}`, "inputRequests is not an object"},
	} {
		srv, _ := startGateway(t, map[string]map[string]string{"m": {"MCP_FAKE_MODERN": "1", "MCP_FAKE_RESULT": tc.result,
			"MCP_FAKE_TOOLS": `[{"name":"raw","inputSchema":{"type":"object"}}]`}})
		msg := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{}}`}.call(1, "raw", "")
		wantCode(t, tc.why, msg, "-32603")
		if !strings.Contains(string(msg), tc.why) {
			t.Errorf("%s: %s, want the reason", tc.why, msg)
		}
	}
}
