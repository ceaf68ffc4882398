package mcpheader

import (
	"encoding/json"
	"testing"
)

// The examples of MCP 2026-07-28 streamable-http "Value Encoding".
func TestEncodeFollowsTheSpecExamples(t *testing.T) {
	for in, want := range map[string]string{
		"us-west1":           "us-west1",
		"Hello, 世界":          "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" padded ":           "=?base64?IHBhZGRlZCA=?=",
		"line1\nline2":       "=?base64?bGluZTEKbGluZTI=?=",
		"=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
		"":                   "",
	} {
		got := Encode(in)
		if got != want {
			t.Errorf("Encode(%q) = %q, want %q", in, got, want)
		}
		if back, err := Decode(got, true); err != nil || back != in {
			t.Errorf("Decode(Encode(%q)) = %q, %v", in, back, err)
		}
	}
}

func TestText(t *testing.T) {
	for raw, want := range map[string]string{`"a b"`: "a b", `42`: "42", `-7`: "-7", `true`: "true", `false`: "false"} {
		if got, ok := Text(json.RawMessage(raw)); !ok || got != want {
			t.Errorf("Text(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`null`, `{}`, `[1]`, ``} {
		if got, ok := Text(json.RawMessage(raw)); ok {
			t.Errorf("Text(%s) = %q, want none", raw, got)
		}
	}
}

func TestParamsFollowPropertiesOnly(t *testing.T) {
	schema := `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},` +
		`"o":{"type":"object","properties":{"n":{"type":"integer","x-mcp-header":"N"}}},` +
		`"list":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`
	got := map[string]string{}
	for _, p := range Params(json.RawMessage(schema)) {
		got[p.Name] = p.Path[len(p.Path)-1]
	}
	if len(got) != 2 || got["Region"] != "region" || got["N"] != "n" {
		t.Errorf("Params = %v, want Region and N", got)
	}
	if v, ok := ValueAt(json.RawMessage(`{"o":{"n":5}}`), []string{"o", "n"}); !ok || string(v) != "5" {
		t.Errorf("ValueAt = %s, %v", v, ok)
	}
}
