package aggregator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Fuzz targets of the HTTP front (issue 15): the body and envelope
// parser, the header rules of modern requests, the SSE writer, and the
// whole /mcp handler. `make fuzz` runs each for FUZZTIME.

var fuzzBodies = []string{
	``, `{}`, `[]`, `[{}]`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","arguments":{"z":9007199254740993}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
	`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"r","result":{}}]`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}`, `{"a\u0062":1,"jsonrpc":"2.0","id":-0,"method":"m"}`,
}

// FuzzParseBody: never panics; what it accepts is JSON-RPC, with each
// message's id and params byte slices of its own raw text.
func FuzzParseBody(f *testing.F) {
	for _, b := range fuzzBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, batch, err := parseBody(body)
		if err != nil {
			if err.status != http.StatusBadRequest || (err.code != -32700 && err.code != -32600) {
				t.Fatalf("error %d %d for %q", err.status, err.code, body)
			}
			return
		}
		if len(msgs) == 0 || (!batch && len(msgs) != 1) {
			t.Fatalf("%d messages, batch %v, for %q", len(msgs), batch, body)
		}
		for _, m := range msgs {
			if !json.Valid(m.raw) || (m.id != nil && !bytes.Contains(m.raw, m.id)) || (m.params != nil && !json.Valid(m.params)) {
				t.Fatalf("message %q: id %q params %q", m.raw, m.id, m.params)
			}
			if m.isRequest() && !validID(m.id) {
				t.Fatalf("request with id %q accepted", m.id)
			}
		}
	})
}

// FuzzModernHeaders: the header rules never panic, and a request they
// accept carries matching Mcp-Method and, on tools/call, Mcp-Name.
func FuzzModernHeaders(f *testing.F) {
	f.Add("2026-07-28", "tools/call", "echo", "=?base64?ZWNobw==?=", "us", `{"name":"echo","arguments":{"r":"us"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	f.Add("2026-07-28", "tools/list", "", "", "", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	f.Add("", "x", "=?base64?!!?=", "\x00", "42.0", `{"_meta":1}`)
	specs := []paramHeader{{name: "R", path: []string{"r"}}, {name: "N", path: []string{"o", "n"}}}
	f.Fuzz(func(t *testing.T, version, method, name, param, param2, params string) {
		if !json.Valid([]byte(params)) || !strings.HasPrefix(strings.TrimSpace(params), "{") {
			return
		}
		r := httptest.NewRequest("POST", "/mcp", nil)
		for k, v := range map[string]string{"Mcp-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name, "Mcp-Param-R": param, "Mcp-Param-N": param2} {
			r.Header[k] = []string{v}
		}
		m := &envelope{raw: []byte(params), id: []byte("1"), method: method, params: []byte(params)}
		req, herr := validateModern(r, m, r.Header.Get("Mcp-Protocol-Version"))
		if herr != nil {
			if herr.status != http.StatusBadRequest {
				t.Fatalf("status %d", herr.status)
			}
			return
		}
		if req.version != version || !isModern(version) {
			t.Fatalf("accepted version %q (header %q)", req.version, version)
		}
		_ = checkParamHeaders(r, m.params, specs)
	})
}

// FuzzStreamEvent: whatever a message holds, the SSE stream carries it
// as data lines that join back to it.
func FuzzStreamEvent(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"x"}`), []byte(`{"a":1}`))
	f.Add([]byte("a\nb\r\nc\rd"), []byte(""))
	f.Fuzz(func(t *testing.T, first, second []byte) {
		rec := httptest.NewRecorder()
		s := newStream(rec, true)
		if err := s.event(first); err != nil {
			t.Fatal(err)
		}
		s.finish(second)
		var got [][]byte
		sc := bufio.NewScanner(bytes.NewReader(rec.Body.Bytes()))
		sc.Buffer(nil, 1<<20)
		var data [][]byte
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case bytes.HasPrefix(line, []byte("data: ")):
				data = append(data, bytes.Clone(line[len("data: "):]))
			case len(line) == 0 && data != nil:
				got = append(got, bytes.Join(data, []byte("\n")))
				data = nil
			}
		}
		norm := func(b []byte) []byte {
			return bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
		}
		if len(got) != 2 || !bytes.Equal(got[0], norm(first)) || !bytes.Equal(got[1], norm(second)) {
			t.Fatalf("events %q, want %q and %q", got, first, second)
		}
	})
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
	gw := New(nil, "fuzz", slog.New(slog.NewTextHandler(io.Discard, nil)))
	h := gw.Handler(HTTPOptions{Token: "t", MaxBodyBytes: 1 << 20, Health: func() any { return gw.Health() }})
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
