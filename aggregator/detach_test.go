package aggregator

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/modern"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Tests of a parkable modern call's detach (modern/bridge.go callParkable,
// supervisor.Detacher): the call runs on its request until the server
// asks, at whatever moment the server asks, answers, crashes, the client
// leaves or the gateway shuts down. Several came from an adversarial
// review of the change; each failed before its fix, most of the time or
// every time.

const askTools = `[{"name":"askanswer","inputSchema":{"type":"object"}},{"name":"sleepask","inputSchema":{"type":"object"}},` +
	`{"name":"asktwice","inputSchema":{"type":"object"}},{"name":"askcrash","inputSchema":{"type":"object"}}]`

const askCaps = `{"elicitation":{}}`

// parked counts the parked calls of gw.
func parked(gw *Gateway) int {
	return gw.h.modern.Parked()
}

// serveDirect serves one modern tools/call through h on ctx (the request's
// context, which net/http ends when the client leaves) and returns once
// the handler has.
func serveDirect(ctx context.Context, h http.Handler, name, params string) *httptest.ResponseRecorder {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `",` + params +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + askCaps + `}}}`
	r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body)).WithContext(ctx)
	r.Host = "127.0.0.1"
	r.Header.Set("Authorization", "Bearer "+testToken)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range modernHeaders("tools/call", name) {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// A server that asks exactly as it answers: the client gets the answer,
// not a round for a call that has ended (8 to 10 of 60 did).
func TestDetachAskAsItAnswersIsNoRound(t *testing.T) {
	srv, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": askTools}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: askCaps}
	for i := range 60 {
		msg := c.call(i, "askanswer", "")
		if strings.Contains(string(msg), "input_required") {
			t.Fatalf("call %d: a round for a call that had answered: %s", i, msg)
		}
		if got := upstreamText(t, msg); got != "answered" {
			t.Fatalf("call %d: %s", i, msg)
		}
	}
	if n := parked(gw); n != 0 {
		t.Errorf("%d calls left parked", n)
	}
}

// onGathered sets modern.TestHookGathered to f for the rest of the test.
func onGathered(t *testing.T, f func()) {
	modern.TestHookGathered = f
	t.Cleanup(func() { modern.TestHookGathered = nil })
}

// A client that leaves while the server's asks are gathered into a round
// cancels the call upstream; it is not parked for StateTTL (5 of 8 were).
func TestDetachClientLeavesWhileTheRoundGathers(t *testing.T) {
	cancelFile := t.TempDir() + "/cancelled"
	srv, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": askTools, "MCP_FAKE_CANCEL_FILE": cancelFile}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	onGathered(t, cancel) // the client leaves as the round is gathered
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- serveDirect(ctx, srv.Config.Handler, "sleepask", `"arguments":{"ms":0},`) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not return after the client left")
	}
	fakeserver.WaitFile(t, cancelFile) // the server got notifications/cancelled
	if p := parked(gw); p != 0 {
		t.Errorf("%d parked after their client left", p)
	}
}

// Shutdown (CancelCalls) while a call runs on its request, and as it
// detaches: its client gets the shutdown error, and nothing stays parked
// (8 of 12 got a round instead).
func TestDetachShutdownWhileDetaching(t *testing.T) {
	for _, stage := range []string{"attached", "gathering"} {
		srv, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": askTools}})
		started := t.TempDir() + "/started"
		args := `"arguments":{"ms":0},`
		if stage == "attached" {
			args = `"arguments":{"ms":30000,"started":"` + started + `"},` // it asks only after 30 s
		} else {
			onGathered(t, func() { gw.CancelCalls("the gateway is shutting down") })
		}
		done := make(chan *httptest.ResponseRecorder, 1)
		go func() { done <- serveDirect(context.Background(), srv.Config.Handler, "sleepask", args) }()
		if stage == "attached" {
			fakeserver.WaitFile(t, started)
			gw.CancelCalls("the gateway is shutting down")
		}
		var w *httptest.ResponseRecorder
		select {
		case w = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no answer after CancelCalls", stage)
		}
		if !strings.Contains(w.Body.String(), "shutting down") {
			t.Errorf("%s: %s, want the shutdown error", stage, w.Body.String())
		}
		if p := parked(gw); p != 0 {
			t.Errorf("%s: %d parked after CancelCalls", stage, p)
		}
		modern.TestHookGathered = nil
	}
}

// The server asks twice, at spacings about the round's quiet time
// (askQuiet): the final result holds both answers, in one round or two.
func TestDetachAskTwice(t *testing.T) {
	srv, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": askTools}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: askCaps}
	for _, ms := range []int{0, 5, 20, 24, 25, 26, 30, 60, 260} {
		args := fmt.Sprintf(`"arguments":{"ms":%d},`, ms)
		msg := c.call(1, "asktwice", args)
		for round := 0; strings.Contains(string(msg), "input_required"); round++ {
			if round > 3 {
				t.Fatalf("ms=%d: more than 3 rounds", ms)
			}
			reqs, state := inputRequired(t, msg)
			var ans []string
			for k := range reqs {
				ans = append(ans, fmt.Sprintf(`%q:{"action":"accept","content":{"k":%q}}`, k, k))
			}
			msg = c.call(2, "asktwice", args+retry(state, "{"+strings.Join(ans, ",")+"}"))
		}
		if got := upstreamText(t, msg); strings.Count(got, `"k"`) != 2 {
			t.Errorf("ms=%d: final %s, want both answers", ms, got)
		}
	}
	if n := parked(gw); n != 0 {
		t.Errorf("%d calls left parked", n)
	}
}

// A server that crashes as it asks, or while the call is parked: the
// client gets an error, at once or on its retry, never a hang.
func TestDetachServerCrashesAsItAsks(t *testing.T) {
	for i, ms := range []int{0, 1, 5, 20, 100, 300} {
		// A gateway each: a server crashing twice in a row backs off.
		srv, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": askTools}})
		c := modernCaller{t: t, url: srv.URL + "/mcp", caps: askCaps}
		u := gw.tool("askcrash").Upstream
		msg := c.call(i, "askcrash", fmt.Sprintf(`"arguments":{"ms":%d},`, ms))
		if strings.Contains(string(msg), "input_required") {
			_, state := inputRequired(t, msg)
			testwait.For(t, 0, "the server's crash to be seen", func() bool { return u.Status().State == supervisor.StateExited })
			msg = c.call(100+i, "askcrash", retry(state, `{"elicitation-1":{"action":"decline"}}`))
		}
		if !strings.Contains(string(msg), `"error"`) {
			t.Errorf("ms=%d: %s, want an error", ms, msg)
		}
		if n := parked(gw); n != 0 {
			t.Errorf("ms=%d: %d calls left parked", ms, n)
		}
	}
}

// A call whose answer is an SSE stream when the server asks (progress
// first, or past sseAfter): the round ends that stream, and the retry
// resumes the call.
func TestDetachFromAnSSEResponse(t *testing.T) {
	srv, gw := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": askTools}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: askCaps}
	for _, a := range []struct{ args, meta string }{{`{"n":3,"ms":0}`, `"progressToken":"p1",`}, {`{"ms":1300}`, ``}} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleepask","arguments":` + a.args +
			`,"_meta":{` + a.meta + `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + askCaps + `}}}`
		resp, b := send(t, "POST", c.url, body, modernHeaders("tools/call", "sleepask"))
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			t.Errorf("%s: not an SSE stream: %s", a.args, b)
		}
		_, state := inputRequired(t, message(t, resp, b))
		final := c.call(2, "sleepask", `"arguments":`+a.args+`,`+retry(state, `{"elicitation-1":{"action":"accept","content":{"x":1}}}`))
		if got := upstreamText(t, final); !strings.Contains(got, `"x":1`) {
			t.Errorf("%s: final %s", a.args, final)
		}
	}
	if n := parked(gw); n != 0 {
		t.Errorf("%d calls left parked", n)
	}
}

// The server asks as it answers while the client leaves at moments
// around it, 300 times: every handler returns, and no Request, await or
// detached wait is left behind.
func TestDetachStress(t *testing.T) {
	srv, gw := startGatewayOpts(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": askTools}}, HTTPOptions{StateTTL: time.Hour})
	for i := range 300 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { serveDirect(ctx, srv.Config.Handler, "askanswer", ""); close(done) }()
		for range i % 40 * 20 { // the client leaves at moments spread around the ask
			runtime.Gosched()
		}
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("call %d: the handler hung", i)
		}
		gw.h.modern.ExpireParked() // a parked call would take the next call's ask
	}
	var left string
	if !testwait.Until(5*time.Second, func() bool {
		buf := make([]byte, 1<<22)
		stacks := string(buf[:runtime.Stack(buf, true)])
		left = ""
		for _, f := range []string{"bridgeCall).Request", "callParkable.func", "bridgeCall).await"} {
			if n := strings.Count(stacks, f); n > 0 {
				left += fmt.Sprintf(" %d in %s;", n, f)
			}
		}
		return left == ""
	}) {
		t.Fatalf("goroutines left behind:%s", left)
	}
}

// A detached call's peer used again for another call (a relayed task's
// tasks/cancel past the task limit) waits for that call: it used to come
// back detached at once, its wait dropped, and its run's active calls
// never drained, so a graceful restart hung.
func TestDetachedPeerUsedAgain(t *testing.T) {
	srv, gw := startGatewayOpts(t, map[string]map[string]string{"m": {"MCP_FAKE_MODERN": "1",
		"MCP_FAKE_TOOLS":  `[{"name":"askraw","inputSchema":{"type":"object"}}]`,
		"MCP_FAKE_RESULT": `{"resultType":"task","taskId":"up1","status":"working","ttlMs":60000,"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z"}`}},
		HTTPOptions{Tasks: TaskLimits{PerCaller: 1}})
	c := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`}
	for range 2 { // the second one is past the task limit
		_, state := inputRequired(t, c.call(1, "askraw", ""))
		c.call(2, "askraw", retry(state, `{"elicitation-1":{"action":"decline"}}`))
	}
	u := gw.tool("askraw").Upstream
	done := make(chan struct{})
	go func() { _, _ = u.Restart(context.Background(), 100*time.Millisecond); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("a graceful restart still waits after 15 s: a call never left its run's active calls")
	}
}
