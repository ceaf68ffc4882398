package supervisor

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// BenchmarkHTTPCall is tools/calls over the HTTP transport to a minimal
// JSON server in this process, from concurrent callers, for pprof of the
// transport (make bench measures the gateway end to end, HTTP figure).
func BenchmarkHTTPCall(b *testing.B) {
	u := benchUpstream(b)
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hello"}}`)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := u.Call(context.Background(), "tools/call", params, nil)
			if err != nil || !strings.Contains(string(res), "hello") {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHTTPCallSeq is BenchmarkHTTPCall from one caller.
func BenchmarkHTTPCallSeq(b *testing.B) {
	u := benchUpstream(b)
	params := json.RawMessage(`{"name":"echo","arguments":{"message":"hello"}}`)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := u.Call(context.Background(), "tools/call", params, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// benchUpstream is a started server over HTTP to benchServer.
func benchUpstream(b *testing.B) *Upstream {
	srv := benchServer()
	b.Cleanup(srv.Close)
	s := New([]adapters.Server{{Name: "b", Spec: adapters.LaunchSpec{Kind: "http", URL: srv.URL + "/mcp"}}}, Options{Log: logfile.New(io.Discard)})
	b.Cleanup(func() { s.Shutdown(context.Background()) })
	u, _ := s.Upstream("b")
	if err := u.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	return u
}

// benchServer answers initialize, tools/list and tools/call in JSON.
func benchServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, err := jsonrpc.Decode(body)
		if err != nil || !m.IsRequest() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s")
		var res string
		switch m.Method {
		case "initialize":
			res = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"b","version":"1"}}`
		case "tools/list":
			res = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
		default:
			res = `{"content":[{"type":"text","text":"hello"}]}`
		}
		io.WriteString(w, string(jsonrpc.Response(m.ID, json.RawMessage(res))))
	}))
}
