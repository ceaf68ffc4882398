package rawjson

import (
	"encoding/json"
	"testing"
)

func TestEachAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`,
		` { "a" : 1 , "b":"x" } `,
		`{"id":"a\"b","method":"tools/call","params":{"name":"echo","arguments":{"message":"h\"i\\","n":[1,{"x":"]}"}]}}}`,
		`{"result":{"content":[{"type":"text","text":"\\\\"}]},"jsonrpc":"2.0","id":2}`,
		`{"a":null,"b":true,"c":-1.5e3,"d":[],"e":"\u00e9"}`,
	} {
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		if err := Each([]byte(in), func(k, v []byte) bool { got[string(k)] = string(v); return true }); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: got %d members, want %d", in, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != string(v) {
				t.Errorf("%s: %s = %s, want %s", in, k, got[k], v)
			}
		}
	}
}

func TestGetStringInt(t *testing.T) {
	obj := []byte(`{"id":42,"method":"ping","s":"a\"b"}`)
	if v, ok := Get(obj, "id"); !ok || string(v) != "42" {
		t.Errorf("id = %s %v", v, ok)
	}
	if n, ok := Int([]byte("42")); !ok || n != 42 {
		t.Errorf("Int = %d %v", n, ok)
	}
	if m, _ := Get(obj, "method"); func() string { s, _ := String(m); return s }() != "ping" {
		t.Errorf("method = %s", m)
	}
	if s, _ := Get(obj, "s"); func() bool { _, ok := String(s); return ok }() {
		t.Errorf("String accepted an escaped string")
	}
	if _, ok := Get(obj, "missing"); ok {
		t.Error("Get found a missing key")
	}
	if err := Each([]byte(`{"a":"unterminated`), func(k, v []byte) bool { return true }); err == nil {
		t.Error("no error for an unterminated string")
	}
}
