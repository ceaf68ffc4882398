package jsonrpc

import (
	"bytes"
	"encoding/json"
)

// Text returns the Go string of a raw JSON string value, or false if raw
// is not a string.
func Text(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	return String(raw)
}

// String decodes a raw JSON string, or returns "" and false.
func String(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// Quote encodes s as a raw JSON string.
func Quote(s string) json.RawMessage { return appendString(nil, s) }

// appendString appends s as a JSON string, as encoding/json writes it:
// printable ASCII but '"', '\\', '<', '>' and '&' as it is, anything else
// through json.Marshal.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
