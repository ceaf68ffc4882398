package aggregator

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// events reads the data lines of an SSE response into a channel.
func events(t *testing.T, resp *http.Response) <-chan string {
	ch := make(chan string, 64)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				ch <- d
			}
		}
	}()
	return ch
}

func next(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatalf("stream ended while waiting for %s", what)
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s within 10 s", what)
	}
	return ""
}

func TestLogMessagesReachTheCaller(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"log","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	var notes []string
	c.rpcNotes(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log"}}`, &notes)
	want := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"fake","data":{"msg":"hello from the fake"}}}`
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notifications = %v, want [%s]", notes, want)
	}
	// Above the session's level, it is filtered.
	result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"error"}}`))
	notes = nil
	c.rpcNotes(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"log"}}`, &notes)
	if len(notes) != 0 {
		t.Errorf("a warning reached a session at level error: %v", notes)
	}
}

func TestSamplingIsRelayedToTheCallingClient(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sample","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	ch := events(t, c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample"}}`))
	req := next(t, ch, "sampling request")
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal([]byte(req), &m); err != nil || m.Method != "sampling/createMessage" {
		t.Fatalf("got %s, want a sampling/createMessage request", req)
	}
	if !strings.Contains(string(m.Params), `"maxTokens":10`) {
		t.Errorf("sampling params %s lost the server's fields", m.Params)
	}
	resp := c.post(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"forty-two"},"model":"m1"}}`)
	resp.Body.Close()
	if resp.StatusCode != 202 {
		t.Errorf("posting the response: %d, want 202", resp.StatusCode)
	}
	final := next(t, ch, "call result")
	if !strings.Contains(final, `forty-two`) || !strings.Contains(final, `"id":2`) {
		t.Errorf("call result %s does not carry the client's answer", final)
	}
}

type bearerTransport struct{}

func (bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+testToken)
	return http.DefaultTransport.RoundTrip(r)
}

// A client's cancellation, here from go-sdk's client, reaches the upstream
// server as notifications/cancelled for the gateway's own request id.
func TestCancellationReachesTheServer(t *testing.T) {
	cancelFile := t.TempDir() + "/cancelled"
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`, "MCP_FAKE_CANCEL_FILE": cancelFile}})
	cl := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: bearerTransport{}}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// Long enough for the call to reach the server on a loaded machine,
	// far shorter than the call.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 20000}}); err == nil {
		t.Fatal("the cancelled call succeeded")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelled call returned after %v", d)
	}
	got := []byte(waitRecord(t, cancelFile, "\n")) // a whole line of params
	// The upstream sees its own request id (the gateway's): 1 was
	// initialize, 2 tools/list, 3 this call.
	var p struct {
		RequestID json.Number `json:"requestId"`
	}
	if err := json.Unmarshal(got, &p); err != nil || p.RequestID != "3" {
		t.Errorf("upstream got cancellation %q, want one for request 3", got)
	}
}

func TestServerListChangedReachesSessions(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{
		"a": {"MCP_FAKE_TOOLS": `[{"name":"change","inputSchema":{"type":"object"}},{"name":"keep","inputSchema":{"type":"object"}}]`,
			"MCP_FAKE_TOOLS2": `[{"name":"change","inputSchema":{"type":"object"}},{"name":"keep","inputSchema":{"type":"object"}},{"name":"added","inputSchema":{"type":"object"}}]`},
		"b": {"MCP_FAKE_TOOLS": `[{"name":"keep","inputSchema":{"type":"object"}}]`},
	})
	c := newClient(t, srv)
	req, _ := http.NewRequest("GET", srv.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /mcp: %v %v", resp, err)
	}
	stream := events(t, resp)
	result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"change"}}`))
	if ev := next(t, stream, "list_changed"); !strings.Contains(ev, `"notifications/tools/list_changed"`) {
		t.Fatalf("GET stream got %s", ev)
	}
	select {
	case ev := <-stream:
		t.Errorf("a second notification arrived: %s", ev)
	case <-time.After(300 * time.Millisecond):
	}
	list := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)))
	for _, name := range []string{`"change"`, `"keep"`, `"added"`, `"b_keep"`} {
		if !strings.Contains(list, `"name":`+name) {
			t.Errorf("rebuilt list %s lacks %s", list, name)
		}
	}
}

// A long call that reports progress completes: the gateway imposes no
// timeout of its own (issue 3). MCP_GATEWAY_LONG_TESTS=1 runs the 90 s
// version (progress every 10 s); the default is 3 s.
func TestLongCallWithProgressCompletes(t *testing.T) {
	n, ms := 3, 1000
	if os.Getenv("MCP_GATEWAY_LONG_TESTS") == "1" {
		n, ms = 9, 10000
	}
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"progress","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	var notes []string
	res := c.rpcNotes(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","arguments":{"n":%d,"ms":%d},"_meta":{"progressToken":7}}}`, n, ms), &notes)
	if !strings.Contains(string(res), `"done"`) || len(notes) != n {
		t.Errorf("long call: %d progress notifications, result %s", len(notes), res)
	}
}

// Invalid client input gets -32602 (MCP, Logging and Progress), instead of
// being accepted: a log level outside the eight, and a progress token that
// is neither a string nor an integer (null made progress notifications
// carry "progressToken":null to a client that never asked).
func TestInvalidLevelAndProgressTokenAreRefused(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"progress","inputSchema":{"type":"object"}}]`}})
	c := newClient(t, srv)
	for i, body := range []string{
		`{"jsonrpc":"2.0","id":%d,"method":"logging/setLevel","params":{"level":"bogus"}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"logging/setLevel","params":{"level":""}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},"_meta":{"progressToken":null}}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},"_meta":{"progressToken":{"x":1}}}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},"_meta":{"progressToken":true}}}`,
		// _meta twice (one spelt with an escape), or its token twice: the
		// server would read one and the gateway swap the other.
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"_meta":{"progressToken":"a"},"name":"progress","arguments":{"n":1},"_meta":{"progressToken":"b"}}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","_m\u0065ta":{},"arguments":{"n":1},"_meta":{"progressToken":"b"}}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},"_meta":{"progressToken":"a","progressToken":"b"}}}`,
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"n\u0061me":"progress","arguments":{"n":1},"_m\u0065ta":{"progressToken":null}}}`,
	} {
		msg := string(c.rpc(fmt.Sprintf(body, 10+i)))
		if !strings.Contains(msg, `"code":-32602`) {
			t.Errorf("%s: %s, want error -32602", body, msg)
		}
	}
	result(t, c.rpc(`{"jsonrpc":"2.0","id":20,"method":"logging/setLevel","params":{"level":"notice"}}`))
	result(t, c.rpc(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"progress","arguments":{"n":1},"_meta":{"progressToken":"ok"}}}`))
	result(t, c.rpc(`{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"_meta":{"progressToken":7},"n\u0061me":"progress","arguments":{"n":1}}}`))
}
