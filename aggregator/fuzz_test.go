package aggregator

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
)

// Fuzz targets of the HTTP front (issue 15): the whole /mcp handler (the
// header rules of modern requests are package modern's, the body parser
// and the SSE writer wire's). `make fuzz` runs each for FUZZTIME.

var fuzzBodies = []string{
	``, `{}`, `[]`, `[{}]`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","arguments":{"z":9007199254740993}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
	`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"r","result":{}}]`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}`, `{"a\u0062":1,"jsonrpc":"2.0","id":-0,"method":"m"}`,
}

// FuzzHandler: the whole /mcp handler, over a gateway without servers,
// never panics and always answers with a status it documents; a JSON
// answer is JSON.
func FuzzHandler(f *testing.F) {
	for _, b := range fuzzBodies {
		f.Add("POST", b, "application/json, text/event-stream", "", "")
		f.Add("POST", b, "application/json", "2026-07-28", "ping")
	}
	f.Add("GET", "", "text/event-stream", "", "")
	f.Add("DELETE", "", "", "2025-06-18", "")
	gw := New(nil, "fuzz", slog.New(slog.NewTextHandler(io.Discard, nil)), HTTPOptions{Token: "t", MaxBodyBytes: 1 << 20})
	h := gw.Handler()
	f.Fuzz(func(t *testing.T, method, body, accept, version, mcpMethod string) {
		if method != "POST" && method != "GET" && method != "DELETE" && method != "PUT" {
			return
		}
		r := httptest.NewRequest(method, "/mcp", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer t")
		r.Header["Accept"] = []string{accept}
		r.Header["Mcp-Protocol-Version"] = []string{version}
		r.Header["Mcp-Method"] = []string{mcpMethod}
		if method == "GET" {
			return // a valid GET opens a stream that waits: covered by the HTTP tests
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		switch rec.Code {
		case 200, 202, 204, 400, 404, 405, 406, 413, 415, 503:
		default:
			t.Fatalf("%s %q: status %d", method, body, rec.Code)
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %q: JSON answer %q is not JSON", method, body, rec.Body.Bytes())
		}
	})
}

// FuzzSurface: an update's params, as a server sends them, are retagged
// and stay JSON (the registry's own fuzz target takes the templates and
// the URI memory).
func FuzzSurface(f *testing.F) {
	f.Add(`{"uri":"test://x"}`)
	f.Add(`{"_meta":{"io.modelcontextprotocol/subscriptionId":7},"uri":"u"}`)
	f.Add(`{"_meta":1}`)
	f.Fuzz(func(t *testing.T, params string) {
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(params), &obj) == nil && obj != nil {
			for _, id := range []json.RawMessage{nil, json.RawMessage(`"sub-1"`)} {
				if out := registry.TaggedUpdate(json.RawMessage(params), id); !json.Valid(out) {
					t.Fatalf("registry.TaggedUpdate(%s, %s) = %s, not JSON", params, id, out)
				}
			}
		}
	})
}
