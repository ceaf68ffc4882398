package aggregator

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/aggregator/modern"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// BenchmarkHandlerCall is one tools/call through the gateway's handler,
// called directly (no network, no client): legacy in a session, and
// modern (MCP 2026-07-28, _meta and headers on the request). It measures
// what each era costs the gateway itself per call (time, bytes and
// allocations, the upstream's round trip included), apart from the load
// generator and the network (issue 13: a modern call costs no more than a
// legacy one).
//
//	go test ./aggregator -run '^$' -bench HandlerCall -benchmem -count 5
func BenchmarkHandlerCall(b *testing.B) {
	srv, _ := startGateway(b, map[string]map[string]string{"s": {}})
	h := srv.Config.Handler
	sid := benchSession(b, srv.URL+"/mcp")
	eras := []struct {
		name, body string
		headers    map[string]string
	}{
		{"legacy", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`,
			map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}},
		{"modern", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hello"}}}`,
			map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}},
	}
	for _, era := range eras {
		b.Run(era.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(era.body))
				r.Host = "127.0.0.1"
				r.Header.Set("Authorization", "Bearer "+testToken)
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				for k, v := range era.headers {
					r.Header.Set(k, v)
				}
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(`"text":"hello"`)) {
					b.Fatalf("%s tools/call: %d %s", era.name, w.Code, w.Body.Bytes())
				}
			}
		})
	}
}

// benchSession opens a legacy session over HTTP and returns its id.
func benchSession(b *testing.B, url string) string {
	b.Helper()
	post := func(body, sid string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		b.Fatalf("initialize: %d, no session id", resp.StatusCode)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid)
	return sid
}

// BenchmarkRouteTool8MiB is what the gateway reads of a legacy
// tools/call whose arguments hold 8 MiB before the call goes upstream:
// the body parsed and validated, its era (modern.InMeta), its route and
// check (issue 33: no pass more than needed; InMeta alone once took
// 4.5 ms of it).
//
//	go test ./aggregator -run '^$' -bench RouteTool8MiB -count 5
func BenchmarkRouteTool8MiB(b *testing.B) {
	_, gw := startGateway(b, map[string]map[string]string{"s": {}})
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` +
		strings.Repeat("abcdefghijklmnopqrstuvwxyz", 1<<20/26*8) + `"}}}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		msgs, _, herr := wire.ParseBody(body, nil)
		if herr != nil {
			b.Fatal(herr)
		}
		if modern.InMeta(msgs[0]) {
			b.Fatal("a legacy call read as modern")
		}
		c, err := gw.router.Tool(msgs[0].Params, &msgs[0].Index)
		if err == nil {
			err = c.Check()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
