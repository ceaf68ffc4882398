package jsonobj

import (
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	for doc, want := range map[string]string{
		`[]`:           "want a JSON object keyed by server name, got an array",
		` "x"`:         "want a JSON object keyed by server name, got a string",
		`null`:         "want a JSON object keyed by server name, got null",
		`{"a": 1} x`:   "at byte 10: ",
		`{"a": 1}`:     "",
		"\n{\"a\":{}}": "",
	} {
		obj, err := Decode([]byte(doc))
		switch {
		case want == "" && (err != nil || len(obj) != 1):
			t.Errorf("Decode(%q) = %v, %v; want one key", doc, obj, err)
		case want != "" && (err == nil || !strings.HasPrefix(err.Error(), want)):
			t.Errorf("Decode(%q) error = %v, want %q…", doc, err, want)
		}
	}
}

func TestKind(t *testing.T) {
	for raw, want := range map[string]string{
		`{}`: "an object", ` [1]`: "an array", `"s"`: "a string", `-1`: "a number", `7`: "a number",
		`true`: "a boolean", `false`: "a boolean", `null`: "null", ``: "nothing", `x`: "invalid JSON",
	} {
		if got := Kind([]byte(raw)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", raw, got, want)
		}
	}
}
