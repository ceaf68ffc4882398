package jsonrpc

import (
	"encoding/json"
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
