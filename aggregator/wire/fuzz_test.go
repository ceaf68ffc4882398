package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Fuzz targets of the framing: the body parser and the SSE writer. `make
// fuzz` runs each for FUZZTIME.

var seedBodies = []string{
	``, `{}`, `[]`, `[{}]`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","arguments":{"z":9007199254740993}}}`,
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`,
	`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"r","result":{}}]`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"x","params":"s"}`, `{"a\u0062":1,"jsonrpc":"2.0","id":-0,"method":"m"}`,
	" \t\r\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n", "\v" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\u00a0", "\f[" + `{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
}

// FuzzParseBody: never panics; what it accepts is JSON (white space
// around it too: only what RFC 8259 allows) and JSON-RPC, with each
// message's id and params byte slices of its own raw text.
func FuzzParseBody(f *testing.F) {
	for _, b := range seedBodies {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, batch, err := ParseBody(body, nil)
		if err != nil {
			if err.Status != http.StatusBadRequest || (err.Code != -32700 && err.Code != -32600) {
				t.Fatalf("error %d %d for %q", err.Status, err.Code, body)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted %q, which is not JSON", body)
		}
		if len(msgs) == 0 || (!batch && len(msgs) != 1) {
			t.Fatalf("%d messages, batch %v, for %q", len(msgs), batch, body)
		}
		for _, m := range msgs {
			if !json.Valid(m.Raw) || (m.ID != nil && !bytes.Contains(m.Raw, m.ID)) || (m.Params != nil && !json.Valid(m.Params)) {
				t.Fatalf("message %q: id %q params %q", m.Raw, m.ID, m.Params)
			}
			if m.IsRequest() && !ValidID(m.ID) {
				t.Fatalf("request with id %q accepted", m.ID)
			}
		}
	})
}

// FuzzStreamEvent: whatever a message holds, the SSE stream carries it
// as data lines that join back to it.
func FuzzStreamEvent(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"x"}`), []byte(`{"a":1}`))
	f.Add([]byte("a\nb\r\nc\rd"), []byte(""))
	f.Fuzz(func(t *testing.T, first, second []byte) {
		rec := httptest.NewRecorder()
		s := NewStream(rec, true)
		if err := s.Event(first); err != nil {
			t.Fatal(err)
		}
		s.Finish(second)
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
