package jsonrpc

import (
	"encoding/json"
	"testing"
)

// Fields then Encode gives the object back as written, but for the
// whitespace between members: keys as escaped, values raw, order kept.
func TestFieldsEncodeKeepsKeysAndValues(t *testing.T) {
	in := `{ "a<b" : 1 , "\u00e9":{"x": 2},"n":9007199254740993,"s":"\u003c"}`
	want := `{"a<b":1,"\u00e9":{"x": 2},"n":9007199254740993,"s":"\u003c"}`
	fields, err := Fields(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(Encode(fields)); got != want {
		t.Errorf("Encode(Fields(%s)) =\n%s, want\n%s", in, got, want)
	}
	fields = Set(fields, "\u00e9", json.RawMessage(`true`))
	fields = Set(fields, "new<", json.RawMessage(`0`))
	if got, want := string(Encode(fields)), `{"a<b":1,"\u00e9":true,"n":9007199254740993,"s":"\u003c","new\u003c":0}`; got != want {
		t.Errorf("after Set: %s, want %s", got, want)
	}
}

func TestWithout(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1,"task":{"ttl":5},"b":[2]}`: `{"a":1,"b":[2]}`,
		`{"a":1}`:                          `{"a":1}`,
		`[1]`:                              `[1]`,
	} {
		if got := string(Without([]byte(in), "task")); got != want {
			t.Errorf("Without(%s) = %s, want %s", in, got, want)
		}
	}
}
