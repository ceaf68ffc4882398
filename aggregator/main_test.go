package aggregator

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

func TestMain(m *testing.M) {
	if fakeserver.Enabled() {
		os.Exit(fakeserver.Main())
	}
	os.Exit(m.Run())
}

const testToken = "test-token-123"

// startGateway runs a gateway over fake servers (name → extra env) behind
// an httptest server.
func startGateway(t testing.TB, servers map[string]map[string]string) (*httptest.Server, *Gateway) {
	t.Helper()
	return startGatewayOpts(t, servers, HTTPOptions{MaxSessions: 3})
}

// startGatewayOpts is startGateway with the handler's options (Token and
// Health are set here).
func startGatewayOpts(t testing.TB, servers map[string]map[string]string, o HTTPOptions) (*httptest.Server, *Gateway) {
	t.Helper()
	srv, gw, _ := startGatewayLog(t, servers, o)
	return srv, gw
}

// startGatewayLog is startGatewayOpts that also returns the gateway's
// log so far, on each call.
func startGatewayLog(t testing.TB, servers map[string]map[string]string, o HTTPOptions) (*httptest.Server, *Gateway, func() string) {
	t.Helper()
	var names []string
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var list []adapters.Server
	for _, n := range names {
		env := map[string]string{"MCP_FAKE": "1"}
		for k, v := range servers[n] {
			env[k] = v
		}
		list = append(list, adapters.Server{Name: n, Spec: adapters.LaunchSpec{Argv: fakeserver.Argv(), Env: env}})
	}
	return startGatewayList(t, list, o)
}

// startGatewayList is startGatewayLog over servers given whole, in
// config-key order (fake or not, with their choice of tools).
func startGatewayList(t testing.TB, list []adapters.Server, o HTTPOptions) (*httptest.Server, *Gateway, func() string) {
	t.Helper()
	logBuf := &bytes.Buffer{}
	var logMu sync.Mutex
	log := logfile.New(writerFunc(func(p []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logBuf.Write(p)
	}))
	if o.Telemetry.CallLog == testCallLog {
		o.Telemetry.CallLog = log // the call lines go to this gateway's log
	}
	var gw *Gateway
	sup := supervisor.New(list, supervisor.Options{Log: log, Tracer: o.Telemetry.Tracer, OnListChanged: func(string) {
		if gw != nil {
			gw.Rebuild()
		}
	}, OnTaskStatus: func(server string, run uint64, method string, params json.RawMessage) {
		if gw != nil {
			gw.TaskStatus(server, run, method, params)
		}
	}, OnResourceUpdated: func(server, uri string, params json.RawMessage) {
		if gw != nil {
			gw.ResourceUpdated(server, uri, params)
		}
	}})
	o.Token = testToken
	gw = New(sup.Upstreams(), "test", log.Logger(), o)
	testLogs.Store(gw, func() string {
		logMu.Lock()
		defer logMu.Unlock()
		return logBuf.String()
	})
	if err := sup.StartAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	gw.Rebuild()
	srv := httptest.NewServer(gw.Handler())
	t.Cleanup(func() {
		if t.Failed() {
			logMu.Lock()
			t.Logf("gateway log:\n%s", logBuf.String())
			logMu.Unlock()
		}
		srv.CloseClientConnections()
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sup.Shutdown(ctx)
	})
	return srv, gw, func() string {
		logMu.Lock()
		defer logMu.Unlock()
		return logBuf.String()
	}
}

// testCallLog, as HTTPOptions.Telemetry.CallLog, sends the call lines to
// the gateway's own log (startGatewayLog).
var testCallLog = logfile.New(io.Discard)

// testLogs maps each test's *Gateway to a reader of its log.
var testLogs sync.Map

// gatewayLog returns what gw's log holds so far.
func gatewayLog(gw *Gateway) string {
	f, _ := testLogs.Load(gw)
	return f.(func() string)()
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// rawClient speaks MCP Streamable HTTP with raw bytes, so tests see exactly
// what the gateway sends.
type rawClient struct {
	t       *testing.T
	url     string
	session string
}

func newClient(t *testing.T, srv *httptest.Server) *rawClient {
	c := &rawClient{t: t, url: srv.URL + "/mcp"}
	res := c.rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	if !bytes.Contains(res, []byte(`"protocolVersion":"2025-06-18"`)) {
		t.Fatalf("initialize: %s", res)
	}
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *rawClient) post(body string) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequest("POST", c.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	return resp
}

// rpc posts one request and returns the raw JSON-RPC response message,
// collecting notifications sent before it into notes (if non-nil).
func (c *rawClient) rpcNotes(body string, notes *[]string) []byte {
	c.t.Helper()
	resp := c.post(body)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		c.t.Fatalf("POST %s: %d %s", body[:min(len(body), 80)], resp.StatusCode, b)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		if strings.Contains(data, `"method":"notifications/`) && !strings.Contains(data[:min(len(data), 40)], `"id"`) {
			if notes != nil {
				*notes = append(*notes, data)
			}
			continue
		}
		return []byte(data)
	}
	c.t.Fatalf("no response on the stream: %v", sc.Err())
	return nil
}

func (c *rawClient) rpc(body string) []byte { return c.rpcNotes(body, nil) }

// result extracts the raw "result" (or fails on "error").
func result(t *testing.T, msg []byte) json.RawMessage {
	t.Helper()
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatalf("decode %s: %v", msg, err)
	}
	if m.Error != nil {
		t.Fatalf("error response: %s", m.Error)
	}
	return m.Result
}

func rpcError(t *testing.T, msg []byte) map[string]json.RawMessage {
	t.Helper()
	var m struct {
		Error map[string]json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil || m.Error == nil {
		t.Fatalf("want an error response, got %s", msg)
	}
	return m.Error
}

// tool is the route of an exported tool name in the registry served now.
func (g *Gateway) tool(name string) registry.Route {
	rt, _ := g.reg.Load().Tool(name)
	return rt
}
