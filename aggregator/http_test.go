package aggregator

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tests of the /mcp endpoint's transport behaviour (issue 4, SPEC §3),
// each with real HTTP requests.

// unset is a header value meaning "do not send the header"; acceptBoth
// (transport.go) is the Accept clients send.
const unset = "\x00unset"

func initBody(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// send makes one request with the token and the usual headers, overridden
// by hdr (unset removes one), and reads the whole response body within 10 s.
func send(t *testing.T, method, url, body string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", acceptBoth)
	}
	if method == "GET" {
		req.Header.Set("Accept", "text/event-stream")
	}
	for k, v := range hdr {
		if v == unset {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %.60s: %v", method, body, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %.60s: reading the body: %v", method, body, err)
	}
	return resp, b
}

// message returns the JSON-RPC response in a body, whether it came as JSON
// or as the last data line of an SSE stream.
func message(t *testing.T, resp *http.Response, body []byte) []byte {
	t.Helper()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return body
	}
	var last []byte
	for line := range strings.SplitSeq(string(body), "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
			last = []byte(d)
		}
	}
	if last == nil {
		t.Fatalf("no response in the stream: %q", body)
	}
	return last
}

// wantRPCError checks an HTTP error: its status and a JSON-RPC error body
// with the given code (0: any).
func wantRPCError(t *testing.T, what string, resp *http.Response, body []byte, status, code int) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s: status %d (%s), want %d", what, resp.StatusCode, body, status)
		return
	}
	var m struct {
		JSONRPC string `json:"jsonrpc"`
		ID      json.RawMessage
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" || m.Error == nil || m.Error.Message == "" {
		t.Errorf("%s: body %q is not a JSON-RPC error", what, body)
		return
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("%s: Content-Type %q, want application/json", what, resp.Header.Get("Content-Type"))
	}
	if code != 0 && m.Error.Code != code {
		t.Errorf("%s: code %d (%s), want %d", what, m.Error.Code, m.Error.Message, code)
	}
}

func sessionHeaders(c *rawClient) map[string]string {
	return map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": "2025-06-18"}
}

func with(h map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range h {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

// 1. Sessions

func TestSessionIDIsIssuedAndRequired(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	u := srv.URL + "/mcp"
	resp, body := send(t, "POST", u, initBody("2025-06-18"), nil)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: %d, Mcp-Session-Id %q: %s", resp.StatusCode, id, body)
	}
	for _, r := range id {
		if r < 0x21 || r > 0x7e {
			t.Errorf("session id %q has a character outside visible ASCII", id)
		}
	}
	// Without the header, anything but initialize is a 400 with a JSON-RPC
	// error body (go-sdk alone answers 200 with an error of code 0, or
	// silently opens a throwaway session for a notification).
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`,
	} {
		resp, b := send(t, "POST", u, body, map[string]string{"Mcp-Protocol-Version": "2025-06-18"})
		wantRPCError(t, "no session: "+body, resp, b, 400, 0)
	}
	// The error names the request it answers.
	resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":"req-7","method":"tools/list"}`, nil)
	if !strings.Contains(string(b), `"id":"req-7"`) {
		t.Errorf("no-session error %d %s does not carry the request id", resp.StatusCode, b)
	}
	// The session works with the header.
	resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": id})
	if resp.StatusCode != 200 || !strings.Contains(string(message(t, resp, b)), `"name":"echo"`) {
		t.Errorf("tools/list in the session: %d %s", resp.StatusCode, b)
	}
}

func TestUnknownOrDeletedSessionIs404(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	u := srv.URL + "/mcp"
	c := newClient(t, srv)
	check := func(what, id string) {
		t.Helper()
		h := map[string]string{"Mcp-Session-Id": id}
		resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, h)
		wantRPCError(t, what+" POST", resp, b, 404, 0)
		resp, b = send(t, "GET", u, "", h)
		wantRPCError(t, what+" GET", resp, b, 404, 0)
		resp, b = send(t, "DELETE", u, "", h)
		wantRPCError(t, what+" DELETE", resp, b, 404, 0)
	}
	check("unknown id", "no-such-session")
	resp, b := send(t, "DELETE", u, "", sessionHeaders(c))
	if resp.StatusCode != 200 && resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, b)
	}
	check("deleted id", c.session)
}

// DELETE ends the session: its running call is cancelled upstream, the
// POST stream carrying it and the GET stream end, and nothing waits for the
// 20 s call to finish.
func TestDeleteCancelsCallsAndClosesStreams(t *testing.T) {
	cancelFile := t.TempDir() + "/cancelled"
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS":       `[{"name":"sleep","inputSchema":{"type":"object"}}]`,
		"MCP_FAKE_CANCEL_FILE": cancelFile,
	}})
	c := newClient(t, srv)

	get, _ := http.NewRequest("GET", c.url, nil)
	get.Header.Set("Authorization", "Bearer "+testToken)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", c.session)
	getResp, err := http.DefaultClient.Do(get)
	if err != nil || getResp.StatusCode != 200 {
		t.Fatalf("GET /mcp: %v %v", getResp, err)
	}
	getDone := drain(getResp)

	// go-sdk sends the POST's response headers with its first event, so
	// the call is posted in the background.
	started := t.TempDir() + "/started"
	callDone := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", c.url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":20000,"started":"`+started+`"}}}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", acceptBoth)
		req.Header.Set("Mcp-Session-Id", c.session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			callDone <- err.Error()
			return
		}
		callDone <- <-drain(resp)
	}()
	fakeserver.WaitFile(t, started) // the call reached the upstream

	start := time.Now()
	resp, b := send(t, "DELETE", c.url, "", sessionHeaders(c))
	t.Logf("DELETE took %v", time.Since(start))
	if resp.StatusCode != 200 && resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, b)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("DELETE took %v: it waited for the running call", d)
	}
	for what, done := range map[string]<-chan string{"the call's POST stream": callDone, "the GET stream": getDone} {
		select {
		case rest := <-done:
			t.Logf("%s ended after %v: %q", what, time.Since(start), rest)
			if strings.Contains(rest, `"slept"`) {
				t.Errorf("%s delivered the call's result after DELETE", what)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s is still open 10 s after DELETE", what)
		}
	}
	waitRecord(t, cancelFile, `"requestId"`) // the upstream got notifications/cancelled after DELETE
}

// drain reads a response body to its end in the background and sends what
// it read.
func drain(resp *http.Response) <-chan string {
	ch := make(chan string, 1)
	go func() {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		ch <- string(b)
	}()
	return ch
}

// An idle session expires (only activity keeps it), and its slot under
// the session cap returns; the cap's 503 has a JSON-RPC error body.
func TestIdleSessionExpiresAndFreesItsSlot(t *testing.T) {
	const idle = 400 * time.Millisecond
	srv, gw := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{SessionTimeout: idle, MaxSessions: 1})
	c := newClient(t, srv)
	u := srv.URL + "/mcp"

	resp, b := send(t, "POST", u, initBody("2025-06-18"), nil)
	wantRPCError(t, "initialize over the cap", resp, b, 503, 0)
	if resp.Header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}

	// Activity keeps the session: pings every idle/4 for 2×idle. The sleep
	// is the client's pace, shorter than the idle timeout, not a wait.
	for end := time.Now().Add(2 * idle); time.Now().Before(end); time.Sleep(idle / 4) {
		result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
	}
	if n := countSessions(gw); n != 1 {
		t.Fatalf("%d sessions after the pings, want 1", n)
	}
	// Idle, it expires (watched without requests, which would reset it).
	testwait.For(t, 10*time.Second, fmt.Sprintf("the idle session to expire (%v idle timeout)", idle), func() bool { return countSessions(gw) == 0 })
	resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, sessionHeaders(c))
	wantRPCError(t, "expired session", resp, b, 404, 0)
	// Its slot is free again.
	resp, b = send(t, "POST", u, initBody("2025-06-18"), nil)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("initialize after expiry: %d %s", resp.StatusCode, b)
	}
}

// A session whose client dropped its POST while a call runs on a server
// that never answers still expires: its call is cancelled upstream and
// its slot under the cap returns. Before, go-sdk's expiry waited for the
// call forever and every later initialize got 503.
func TestIdleSessionWithARunningCallExpires(t *testing.T) {
	const idle = 500 * time.Millisecond
	cancelFile := t.TempDir() + "/cancelled"
	srv, gw := startGatewayOpts(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS":       `[{"name":"sleep","inputSchema":{"type":"object"}}]`,
		"MCP_FAKE_CANCEL_FILE": cancelFile,
	}}, HTTPOptions{SessionTimeout: idle, MaxSessions: 1})
	c := newClient(t, srv)

	started := t.TempDir() + "/started"
	ctx, drop := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", c.url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600000,"started":"`+started+`"}}}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", acceptBoth)
	req.Header.Set("Mcp-Session-Id", c.session)
	posted := make(chan struct{})
	go func() {
		defer close(posted)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	fakeserver.WaitFile(t, started) // the call reached the upstream
	drop()                          // the client goes away without DELETE
	<-posted

	testwait.For(t, 10*time.Second, fmt.Sprintf("the idle session with a running call to expire (%v idle timeout)", idle), func() bool { return countSessions(gw) == 0 })
	fakeserver.WaitFile(t, cancelFile) // the upstream got notifications/cancelled
	resp, b := send(t, "POST", c.url, initBody("2025-06-18"), nil)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("initialize after expiry: %d %s", resp.StatusCode, b)
	}
}

// A failed initialize does not hold a slot under the cap: before, each
// held one for 10 s, and a burst of them locked every client out.
func TestFailedInitializeFreesItsSlot(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{MaxSessions: 1})
	u := srv.URL + "/mcp"
	for i := range 3 {
		resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":[]}`, nil)
		if !strings.Contains(string(b), `"error"`) {
			t.Fatalf("bad initialize %d: %d %s, want a JSON-RPC error", i, resp.StatusCode, b)
		}
	}
	resp, b := send(t, "POST", u, initBody("2025-06-18"), nil)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Errorf("initialize after failed ones: %d %s", resp.StatusCode, b)
	}
}

func countSessions(gw *Gateway) int { return gw.SessionCount() }

// 2. Protocol versions

func TestProtocolVersionNegotiation(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{MaxSessions: 20})
	u := srv.URL + "/mcp"
	for requested, want := range map[string]string{
		"2024-11-05": "2024-11-05",
		"2025-03-26": "2025-03-26",
		"2025-06-18": "2025-06-18",
		"2025-11-25": "2025-11-25",
		"1999-01-01": "2025-11-25",
		"2031-01-01": "2025-11-25",
		"banana":     "2025-11-25",
		// initialize is not part of the stateless 2026-07-28 protocol, so
		// the newest version that has it is chosen.
		"2026-07-28": "2025-11-25",
	} {
		resp, b := send(t, "POST", u, initBody(requested), nil)
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(result(t, message(t, resp, b)), &r) != nil || r.ProtocolVersion != want {
			t.Errorf("initialize %s: %d %s, want protocolVersion %s", requested, resp.StatusCode, b, want)
			continue
		}
		// The negotiated version works as the header.
		h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": want}
		if resp, _ := send(t, "POST", u, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h); resp.StatusCode != 202 {
			t.Errorf("%s: initialized: %d", requested, resp.StatusCode)
		}
		resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, h)
		if resp.StatusCode != 200 || !strings.Contains(string(result(t, message(t, resp, b))), `"echo"`) {
			t.Errorf("%s: tools/list: %d %s", requested, resp.StatusCode, b)
		}
	}
}

func TestProtocolVersionHeader(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	u := c.url
	for _, bad := range []string{"banana", "2020-01-01", "2025-06-18x", "2099-12-31"} {
		h := map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": bad}
		resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, h)
		wantRPCError(t, "header "+bad+" on a request", resp, b, 400, 0)
		resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h)
		wantRPCError(t, "header "+bad+" on a notification", resp, b, 400, 0)
		resp, b = send(t, "GET", u, "", h)
		wantRPCError(t, "header "+bad+" on GET", resp, b, 400, 0)
		resp, b = send(t, "POST", u, initBody("2025-06-18"), map[string]string{"Mcp-Protocol-Version": bad})
		wantRPCError(t, "header "+bad+" on initialize", resp, b, 400, 0)
	}
	// A missing header means 2025-03-26: requests still work.
	h := map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": unset}
	resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"no header"}}}`, h)
	if resp.StatusCode != 200 || !strings.Contains(string(result(t, message(t, resp, b))), "no header") {
		t.Errorf("tools/call without the header: %d %s", resp.StatusCode, b)
	}
	resp, _ = send(t, "POST", u, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, h)
	if resp.StatusCode != 202 {
		t.Errorf("notification without the header: %d", resp.StatusCode)
	}
}

// The newest go-sdk client first tries the stateless 2026-07-28 protocol
// (server/discover, no session), which the gateway now serves (issue 13);
// a client pinned to a legacy version still gets a session (below).
func TestGoSDKClientPicksTheNewestVersion(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	cl := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Errorf("negotiated %s, want 2026-07-28", v)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hi" {
		t.Errorf("CallTool: %v %v", res, err)
	}
}

// 3. Bodies and methods

func TestNotificationsAndResponsesGet202(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"x"}}`,
		`{"jsonrpc":"2.0","id":"unasked","result":{}}`,
		`{"jsonrpc":"2.0","id":"unasked-2","error":{"code":-1,"message":"no"}}`,
	} {
		resp, b := send(t, "POST", c.url, body, sessionHeaders(c))
		if resp.StatusCode != 202 || len(b) != 0 {
			t.Errorf("POST %s: %d %q, want 202 with no body", body, resp.StatusCode, b)
		}
	}
	// Batches of them (2025-03-26, where batches exist).
	resp, b := send(t, "POST", c.url, `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"unasked-3","result":{}}]`,
		map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": "2025-03-26"})
	if resp.StatusCode != 202 || len(b) != 0 {
		t.Errorf("batch of a notification and a response: %d %q, want 202 with no body", resp.StatusCode, b)
	}
	result(t, c.rpc(`{"jsonrpc":"2.0","id":5,"method":"ping"}`))
}

func TestBatchIsAnsweredOrRejected(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	batch := `[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"tools/list"}]`
	// 2025-03-26 (also a missing header): answered, one response per request.
	for _, v := range []string{"2025-03-26", unset} {
		resp, b := send(t, "POST", c.url, batch, map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": v})
		if resp.StatusCode != 200 || !strings.Contains(string(b), `"id":7,"result":{}`) || !strings.Contains(string(b), `"id":8,"result":{"tools"`) {
			t.Errorf("batch at %q: %d %s, want both answers", v, resp.StatusCode, b)
		}
	}
	// 2025-06-18 removed batching: 400 with -32600, not silence.
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		resp, b := send(t, "POST", c.url, batch, map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": v})
		wantRPCError(t, "batch at "+v, resp, b, 400, -32600)
	}
	resp, b := send(t, "POST", c.url, `[]`, sessionHeaders(c))
	wantRPCError(t, "empty batch", resp, b, 400, -32600)
	result(t, c.rpc(`{"jsonrpc":"2.0","id":9,"method":"ping"}`))
}

func TestMalformedBodiesGet400AndServingGoesOn(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	for _, tc := range []struct {
		body string
		code int
	}{
		{"", -32700},
		{"   \n", -32700},
		{`{nope`, -32700},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"`, -32700},
		{"\xff\xfe", -32700},
		{`{}`, -32600},
		{`"ping"`, -32600},
		{`{"jsonrpc":"1.0","id":2,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":2}`, -32600},
		{`[1,2]`, -32600},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, -32600},
		// Ids that are not integers (MCP: "a string or integer ID").
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, -32600},
		{`{"jsonrpc":"2.0","id":-0,"method":"ping"}`, -32600},
	} {
		for _, h := range []map[string]string{sessionHeaders(c), nil} {
			resp, b := send(t, "POST", c.url, tc.body, h)
			wantRPCError(t, fmt.Sprintf("body %q (session %v)", tc.body, h != nil), resp, b, 400, tc.code)
		}
		result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
	}
	// Integer ids of any size, and strings, come back exactly (issue 12:
	// go-sdk's server decoded ids through float64, so ids past 2^53 were
	// refused).
	for _, id := range []string{"9007199254740991", "-9007199254740991", `"9007199254740993"`,
		"9007199254740993", "-9007199254740993", "99999999999999999999999", "0", `"1"`} {
		if msg := string(c.rpc(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)); !strings.Contains(msg, `"id":`+id+`,`) && !strings.Contains(msg, `"id":`+id+`}`) {
			t.Errorf("id %s came back as %s", id, msg)
		}
	}
}

// Content-Type: application/json as clients send it, or with parameters
// or in another case, is a JSON-RPC POST; any other type is 415.
func TestContentTypeVariants(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{MaxSessions: 20})
	u := srv.URL + "/mcp"
	for _, tc := range []struct {
		contentType string
		want        int
	}{
		{"application/json", 200}, {"application/json; charset=utf-8", 200}, {"Application/JSON", 200},
		{"text/plain", 415}, {"application/json-seq", 415}, {"application/jsonx", 415},
	} {
		resp, b := send(t, "POST", u, initBody("2025-06-18"), map[string]string{"Content-Type": tc.contentType})
		if resp.StatusCode != tc.want {
			t.Errorf("Content-Type %q: initialize %d %s, want %d", tc.contentType, resp.StatusCode, b, tc.want)
		}
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			send(t, "DELETE", u, "", map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"})
		}
	}
}

func TestAcceptVariants(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{MaxSessions: 20})
	u := srv.URL + "/mcp"
	for _, tc := range []struct{ accept, wantType string }{
		{acceptBoth, ""},
		{"text/event-stream, application/json", ""},
		{"application/json;q=0.9, text/event-stream;q=0.5", ""},
		{"text/event-stream", "text/event-stream"},
		{"application/json", "application/json"},
		{"application/json; charset=utf-8", "application/json"},
		{"*/*", ""},
		{"application/*", "application/json"},
		{unset, ""},
	} {
		h := map[string]string{"Accept": tc.accept}
		resp, b := send(t, "POST", u, initBody("2025-06-18"), h)
		id := resp.Header.Get("Mcp-Session-Id")
		ct := resp.Header.Get("Content-Type")
		if resp.StatusCode != 200 || id == "" || (tc.wantType != "" && !strings.HasPrefix(ct, tc.wantType)) {
			t.Errorf("Accept %q: initialize %d %q %s", tc.accept, resp.StatusCode, ct, b)
			continue
		}
		if !strings.Contains(string(result(t, message(t, resp, b))), `"protocolVersion":"2025-06-18"`) {
			t.Errorf("Accept %q: initialize result %s", tc.accept, b)
		}
		h = with(h, "Mcp-Session-Id", id, "Mcp-Protocol-Version", "2025-06-18")
		if resp, b := send(t, "POST", u, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, h); resp.StatusCode != 202 {
			t.Errorf("Accept %q: initialized %d %s", tc.accept, resp.StatusCode, b)
		}
		resp, b = send(t, "POST", u, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"accepted"}}}`, h)
		ct = resp.Header.Get("Content-Type")
		if resp.StatusCode != 200 || (tc.wantType != "" && !strings.HasPrefix(ct, tc.wantType)) {
			t.Errorf("Accept %q: tools/call %d %q %s", tc.accept, resp.StatusCode, ct, b)
			continue
		}
		want := `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"accepted"}]}}`
		if got := string(message(t, resp, b)); got != want {
			t.Errorf("Accept %q: tools/call answered %s, want %s", tc.accept, got, want)
		}
		send(t, "DELETE", u, "", h)
	}
	// Nothing usable accepted: 406.
	for _, accept := range []string{"text/html", "image/png, text/plain", "application/json;q=0, text/event-stream;q=0"} {
		resp, b := send(t, "POST", u, initBody("2025-06-18"), map[string]string{"Accept": accept})
		wantRPCError(t, "POST Accept "+accept, resp, b, 406, 0)
	}
}

// A JSON-only client gets the call's result as one JSON body; the
// progress notifications sent on the way have nowhere to go and are
// dropped, not mixed into the body.
func TestJSONOnlyClientGetsOneJSONResponse(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"progress","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	h := with(sessionHeaders(c), "Accept", "application/json")
	resp, b := send(t, "POST", c.url, `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"progress","arguments":{"n":3},"_meta":{"progressToken":1}}}`, h)
	want := `{"jsonrpc":"2.0","id":"p","result":{"content":[{"type":"text","text":"done"}]}}`
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || strings.TrimSpace(string(b)) != want {
		t.Errorf("JSON-only tools/call: %d %q %s, want %s", resp.StatusCode, resp.Header.Get("Content-Type"), b, want)
	}
	// A 2025-03-26 batch comes back as a JSON array.
	resp, b = send(t, "POST", c.url, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`, with(h, "Mcp-Protocol-Version", "2025-03-26"))
	var arr []json.RawMessage
	if resp.StatusCode != 200 || json.Unmarshal(b, &arr) != nil || len(arr) != 2 {
		t.Errorf("JSON-only batch: %d %s, want an array of 2", resp.StatusCode, b)
	}
}

// 4. GET /mcp

func TestGetOpensTheStream(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{})
	c := newClient(t, srv)
	for _, accept := range []string{"text/event-stream", "*/*", "text/event-stream, application/json", unset} {
		// A session has one GET stream at a time, and the previous one may
		// not have been torn down server-side yet: use a session each.
		c := newClient(t, srv)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", c.url, nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Mcp-Session-Id", c.session)
		if accept != unset {
			req.Header.Set("Accept", accept)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			cancel()
			t.Fatalf("GET Accept %q: %v", accept, err)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("GET Accept %q: %d %q", accept, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		// Headers and a first comment come at once, not when something
		// happens.
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		if err != nil || !strings.HasPrefix(line, ":") {
			t.Errorf("GET Accept %q: first line %q %v", accept, line, err)
		}
		cancel()
		resp.Body.Close()
	}
	for _, tc := range []struct {
		what string
		hdr  map[string]string
		want []int
	}{
		{"no session", nil, []int{400, 405}},
		{"JSON only", map[string]string{"Mcp-Session-Id": c.session, "Accept": "application/json"}, []int{406}},
		{"text/html", map[string]string{"Mcp-Session-Id": c.session, "Accept": "text/html"}, []int{406}},
	} {
		resp, b := send(t, "GET", c.url, "", tc.hdr)
		if resp.StatusCode != tc.want[0] && resp.StatusCode != tc.want[len(tc.want)-1] {
			t.Errorf("GET %s: %d %s, want %v", tc.what, resp.StatusCode, b, tc.want)
		}
	}
	for _, m := range []string{"PUT", "PATCH", "OPTIONS"} {
		resp, b := send(t, m, c.url, "", sessionHeaders(c))
		if resp.StatusCode != 405 || resp.Header.Get("Allow") == "" {
			t.Errorf("%s: %d %q %s, want 405 with Allow", m, resp.StatusCode, resp.Header.Get("Allow"), b)
		}
	}
	result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
}

// 5. Auth and probes

func TestWellKnownProbesAre404WithoutSecrets(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_SECRET": "s3cr3t-value"}})
	for _, path := range []string{
		"/.well-known/oauth-protected-resource",
		"/.well-known/oauth-protected-resource/mcp",
		"/.well-known/oauth-authorization-server",
		"/.well-known/openid-configuration",
		"/mcp/",
	} {
		for _, token := range []string{"", testToken} {
			req, _ := http.NewRequest("GET", srv.URL+path, nil)
			if token != "" {
				req.Header.Set("Authorization", "Bearer "+token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 404 {
				t.Errorf("GET %s (token %v): %d, want 404", path, token != "", resp.StatusCode)
			}
			if strings.Contains(string(b), testToken) || strings.Contains(string(b), "s3cr3t") || strings.Contains(string(b), "MCP_FAKE") {
				t.Errorf("GET %s: body reveals a secret: %s", path, b)
			}
		}
	}
}

func TestAllowedOrigins(t *testing.T) {
	for _, tc := range []struct {
		allowed []string
		origins map[string]int
	}{
		{[]string{"https://app.example.com", "https://other.example.org/"}, map[string]int{
			"https://app.example.com":      200,
			"https://APP.example.com":      200,
			"https://other.example.org":    200, // the list's trailing slash is ignored
			"http://app.example.com":       403, // scheme differs
			"https://app.example.com:8443": 403, // port differs
			"https://evil.example.com":     403,
			"https://app.example.com.evil": 403,
			"null":                         403,
			"http://localhost:5173":        200, // localhost always passes
			"http://[::1]:8080":            200,
		}},
		{[]string{"*"}, map[string]int{"https://evil.example.com": 200, "null": 200}},
	} {
		srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{AllowedOrigins: tc.allowed, MaxSessions: 20})
		for origin, want := range tc.origins {
			what := fmt.Sprintf("Origin %s with --allowed-origins %v", origin, tc.allowed)
			resp, b := send(t, "POST", srv.URL+"/mcp", initBody("2025-06-18"), map[string]string{"Origin": origin})
			if want == 403 {
				wantRPCError(t, what, resp, b, 403, 0)
			} else if resp.StatusCode != want {
				t.Errorf("%s: %d %s, want %d", what, resp.StatusCode, b, want)
			}
			// GET and DELETE are checked the same way.
			if want == 403 {
				resp, b = send(t, "GET", srv.URL+"/mcp", "", map[string]string{"Origin": origin})
				wantRPCError(t, what+" (GET)", resp, b, 403, 0)
			}
		}
	}
}

// 6. Concurrency and size

func TestEightMiBRequestAndResultPassIntact(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"big","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	// An 8 MiB argument with characters JSON must escape, and non-ASCII.
	var sb strings.Builder
	for i := 0; sb.Len() < 8<<20; i++ {
		fmt.Fprintf(&sb, "line %d: \"quoted\" \\ tab\t é ✓ 😀\n", i)
	}
	text := sb.String()
	arg, _ := json.Marshal(text)
	got := result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":`+string(arg)+`}}}`))
	var r struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(got, &r); err != nil || len(r.Content) != 1 || r.Content[0].Text != text {
		t.Errorf("echo of %d bytes came back changed (%d bytes of result, %v)", len(text), len(got), err)
	}
	// An 8 MiB result, byte for byte.
	const n = 8 << 20
	got = result(t, c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big","arguments":{"bytes":%d}}}`, n)))
	if want := `{"content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}`; string(got) != want {
		t.Errorf("big result: %d bytes, want %d identical bytes", len(got), len(want))
	}
}

func TestBodyOverTheCapIsRejectedAndServingGoesOn(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{MaxBodyBytes: 64 << 10})
	c := newClient(t, srv)
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("y", 1<<20) + `"}}}`
	for _, h := range []map[string]string{sessionHeaders(c), nil} {
		resp, b := send(t, "POST", c.url, big, h)
		wantRPCError(t, fmt.Sprintf("1 MiB body over a 64 KiB cap (session %v)", h != nil), resp, b, 413, 0)
	}
	// Just under the cap passes.
	small := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("z", 60<<10) + `"}}}`
	if res := result(t, c.rpc(small)); !strings.Contains(string(res), strings.Repeat("z", 60<<10)) {
		t.Errorf("60 KiB call: %.200s", res)
	}
	result(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"ping"}`))
}

func TestCallsFromManySessionsRunConcurrently(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}}, HTTPOptions{MaxSessions: 20})
	const sessions, perSession, ms = 8, 2, 1000
	var clients []*rawClient
	for range sessions {
		clients = append(clients, newClient(t, srv))
	}
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range clients {
		for j := range perSession {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":%d}}}`, 10+j, ms))
				if !strings.Contains(string(res), "slept") {
					t.Errorf("session %d call %d: %s", i, j, res)
				}
			}()
		}
	}
	wg.Wait()
	// One at a time would take 16 s; per session, 8 s.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("%d calls of %d ms over %d sessions took %v: they did not run concurrently", sessions*perSession, ms, sessions, d)
	}
}

// 7. Errors

func TestIsErrorResultPassesUnchanged(t *testing.T) {
	const res = `{"content":[{"type":"text","text":"the tool failed: disk full"}],"isError":true,"structuredContent":{"errno":28},"_meta":{"k":"v"}}`
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS":  `[{"name":"raw","inputSchema":{"type":"object"}}]`,
		"MCP_FAKE_RESULT": res,
	}})
	c := newClient(t, srv)
	msg := c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"raw"}}`)
	if diff := cmp.Diff(`{"jsonrpc":"2.0","id":2,"result":`+res+`}`, string(msg)); diff != "" {
		t.Errorf("isError result (-want +got):\n%s", diff)
	}
}

// Opening sessions up to the cap, 16 at a time, never gets a 503 before
// the cap is reached: a session being registered is not counted twice.
func TestSessionCapHasNoSpuriousRefusals(t *testing.T) {
	const max = 40
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{MaxSessions: max})
	var refused atomic.Int32
	for batch := 0; batch < max; batch += 16 {
		var wg sync.WaitGroup
		for range min(16, max-batch) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := &rawClient{t: t, url: srv.URL + "/mcp"}
				resp := c.post(initBody("2025-06-18"))
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusServiceUnavailable {
					refused.Add(1)
				}
			}()
		}
		wg.Wait()
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("%d of %d sessions refused below the cap", n, max)
	}
	c := &rawClient{t: t, url: srv.URL + "/mcp"}
	resp := c.post(initBody("2025-06-18"))
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("session %d: %d, want 503", max+1, resp.StatusCode)
	}
}

// A caller that sends headers and never its body gets its answer at once
// and the connection closed: before, net/http waited to drain the body of
// a 401 or 404, so such callers could hold every descriptor.
func TestUnsentBodyDoesNotHoldTheConnection(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	for _, path := range []string{"/mcp", "/elsewhere"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", path)
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%s: no response within 5 s: %v", path, err)
		}
		if resp.StatusCode != 401 && resp.StatusCode != 404 || !resp.Close {
			t.Errorf("%s: %d, close %v; want 401 or 404 and the connection closed", path, resp.StatusCode, resp.Close)
		}
		conn.Close()
	}
}

// DELETE ends a session at once even while one of its responses is stuck
// on a client that does not read: before, DELETE and then every request of
// the session waited for as long as that client did.
func TestDeleteWhileAResponseIsStuck(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"big","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { _ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{"bytes":20000000}}}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: %s\r\nMcp-Session-Id: %s\r\nContent-Length: %d\r\n\r\n%s",
		testToken, acceptBoth, c.session, len(body), body)
	// The 20 MB answer fills the socket buffers and blocks: the client,
	// which never reads, holds bytes, and the gateway has more queued.
	cport, sport := conn.LocalAddr().(*net.TCPAddr).Port, conn.RemoteAddr().(*net.TCPAddr).Port
	testwait.For(t, 0, "the answer to be stuck on the socket (unread bytes at the client, more queued at the gateway)", func() bool {
		_, rx := tcpQueues(t, cport, sport)
		tx, _ := tcpQueues(t, sport, cport)
		return rx > 0 && tx > 0
	})

	done := make(chan int, 1)
	go func() {
		resp, _ := send(t, "DELETE", c.url, "", sessionHeaders(c))
		done <- resp.StatusCode
	}()
	select {
	case code := <-done:
		if code != 200 && code != 204 {
			t.Errorf("DELETE: %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("DELETE still waits 10 s later, on the stuck response")
	}
}

// tcpQueues reads, from /proc/net/tcp, the queues of the IPv4 socket with
// local port local connected to port remote: tx, the bytes it has queued
// that its peer has not taken; rx, the bytes it holds unread. Both are 0
// when there is no such socket.
func tcpQueues(t *testing.T, local, remote int) (tx, rx int64) {
	t.Helper()
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		t.Fatal(err)
	}
	port := func(addr string) int64 {
		_, hex, _ := strings.Cut(addr, ":")
		n, _ := strconv.ParseInt(hex, 16, 32)
		return n
	}
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 5 || port(f[1]) != int64(local) || port(f[2]) != int64(remote) {
			continue
		}
		txs, rxs, _ := strings.Cut(f[4], ":")
		tx, _ = strconv.ParseInt(txs, 16, 64)
		rx, _ = strconv.ParseInt(rxs, 16, 64)
		return tx, rx
	}
	return 0, 0
}

// A call whose session is DELETEd before its JSON answer started gets that
// answer whole: before, its headers went out with a Content-Length and no
// body (the stream, aborted, refused the body's write), and the client saw
// a truncated response instead of the call's error.
func TestDeleteEndsAJSONAnswerWhole(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {
		"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`,
	}})
	c := newClient(t, srv)
	started := t.TempDir() + "/started"
	type answer struct {
		status int
		body   []byte
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", c.url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":20000,"started":"`+started+`"}}}`))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json") // one JSON answer, never SSE
		req.Header.Set("Mcp-Session-Id", c.session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- answer{resp.StatusCode, b, err}
	}()
	fakeserver.WaitFile(t, started)
	if resp, b := send(t, "DELETE", c.url, "", sessionHeaders(c)); resp.StatusCode != 200 && resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, b)
	}
	var a answer
	select {
	case a = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the call's answer is still open 10 s after DELETE")
	}
	if a.err != nil {
		t.Fatalf("the call's answer after DELETE: %v (status %d, %d bytes read)", a.err, a.status, len(a.body))
	}
	var msg struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(a.body, &msg); err != nil || string(msg.ID) != "2" || msg.Error == nil || !strings.Contains(msg.Error.Message, "session ended") {
		t.Fatalf("the call's answer after DELETE = %d %q, want a JSON-RPC error for id 2 that says the session ended", a.status, a.body)
	}
}
