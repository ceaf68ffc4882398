package jsonrpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Upstream quirks found by an adversarial pass: each used to turn a result
// into an error of code 0, or to leave the call waiting forever.
func TestLenientUpstreamResponses(t *testing.T) {
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[]},"error":null}`))
	if err != nil || !m.IsResponse() || len(m.Error) != 0 || string(m.Result) != `{"content":[]}` {
		t.Errorf(`"error":null beside a result: %+v, %v`, m, err)
	}
	for raw, wantCode := range map[string]int64{
		`{"code":-32602,"message":"bad","data":{"n":1}}`: -32602,
		`{"message":"no code"}`:                          CodeInternalError,
		`{"code":"x","message":"string code"}`:           CodeInternalError,
		`"just a string"`:                                CodeInternalError,
	} {
		if e := DecodeError(json.RawMessage(raw)); e.Code != wantCode {
			t.Errorf("DecodeError(%s): code %d, want %d", raw, e.Code, wantCode)
		}
	}
	for raw, want := range map[string]int64{`14`: 14, `"14"`: 14, ` 7 `: 7} {
		if n, ok := ParseIntID(json.RawMessage(raw)); !ok || n != want {
			t.Errorf("ParseIntID(%s) = %d, %v; want %d", raw, n, ok, want)
		}
	}
	for _, raw := range []string{`"a"`, `1.5`, `null`, `""`} {
		if _, ok := ParseIntID(json.RawMessage(raw)); ok {
			t.Errorf("ParseIntID(%s) accepted", raw)
		}
	}
}

// TestAppendRequest checks that AppendRequest, and AppendRequestHead with
// the params and '}' after it, write the line Request encodes.
func TestAppendRequest(t *testing.T) {
	for _, tc := range []struct {
		id     int64
		method string
		params string
	}{
		{1, "tools/call", `{"name":"echo","arguments":{"message":"hi"}}`},
		{-7, "ping", ``},
		{1 << 62, `we"ird\method`, `{}`},
	} {
		want := string(Request(IntID(tc.id), tc.method, json.RawMessage(tc.params)))
		if got := string(AppendRequest([]byte("kept"), tc.id, tc.method, json.RawMessage(tc.params))); got != "kept"+want {
			t.Errorf("AppendRequest(%d, %q, %s) = %s, want kept%s", tc.id, tc.method, tc.params, got, want)
		}
		if tc.params == "" {
			continue
		}
		if got := string(AppendRequestHead(nil, tc.id, tc.method)) + tc.params + "}"; got != want {
			t.Errorf("AppendRequestHead(%d, %q) + params + } = %s, want %s", tc.id, tc.method, got, want)
		}
	}
}

// ValidEnvelope answers as Valid does for an object, and reads the
// envelope ReadEnvelope reads; anything else is not ok.
func FuzzValidEnvelope(f *testing.F) {
	for _, s := range []string{`{}`, ` { } `, `[]`, `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,{"b":null}]}}`,
		` {"id" : "x" , "result" : {"content":[]} , "jsonrpc":"2.0"} `, `{"id":1,"error":{"code":-1,"message":"m"},"id":2}`,
		`{"a":1,}`, `{"a" 1}`, `{"a":1}{}`, `{"a":"\x01"}`, `{"params":[[[[]]]]}`, `{"m\u0065thod":"x"}`, `{"id":1 `, `{"id":tru}`,
		`{"params":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
		`{"params":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, ok := ValidEnvelope(b)
		t0 := bytes.TrimSpace(b)
		want := Valid(b) && len(t0) > 0 && t0[0] == '{'
		if ok != want {
			t.Fatalf("ValidEnvelope(%q) ok = %v, want %v", b, ok, want)
		}
		if !ok {
			return
		}
		if r, err := ReadEnvelope(b); err != nil || !reflect.DeepEqual(r, e) {
			t.Fatalf("ValidEnvelope(%q) = %+v, ReadEnvelope says %+v (%v)", b, e, r, err)
		}
	})
}

// A server's line is a message with only the white space JSON allows
// around it (RFC 8259 §2): \v, \f or U+00A0 make it not JSON, as
// encoding/json reads it.
func TestDecodeTakesOnlyJSONWhiteSpace(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"result":{}}`
	for line, ok := range map[string]bool{
		" \t" + msg + "\r": true, msg + "\n": true,
		"\v" + msg: false, "\f" + msg: false, msg + "\u00a0": false, "\u0085" + msg: false,
	} {
		if _, err := DecodeOwned([]byte(line)); (err == nil) != ok {
			t.Errorf("DecodeOwned(%q): %v, want ok %v", line, err, ok)
		}
	}
}
