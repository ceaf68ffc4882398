// Package jsonobj decodes the documents the gateway takes as a JSON object
// keyed by server name, the config (SPEC §5.1) and the catalog file (SPEC
// §6.2), with the same messages for the same mistakes.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Decode decodes doc, a JSON object, into its raw values by key. Its
// errors say what doc is instead ("want a JSON object keyed by server
// name, got an array", "at byte 7: …", "… got null"); the caller prefixes
// what it parsed. json.Unmarshal checks the whole document first, so a
// syntax error, including anything after the object, wins over a wrong
// kind.
func Decode(doc []byte) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil {
		if _, isType := errors.AsType[*json.UnmarshalTypeError](err); isType {
			return nil, fmt.Errorf("want a JSON object keyed by server name, got %s", Kind(doc))
		}
		if se, isSyntax := errors.AsType[*json.SyntaxError](err); isSyntax {
			return nil, fmt.Errorf("at byte %d: %w", se.Offset, err)
		}
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("want a JSON object keyed by server name, got null")
	}
	return obj, nil
}

// Kind names the kind of the JSON value raw for messages: "an object",
// "an array", "a string", "a number", "a boolean", "null", "nothing" or
// "invalid JSON". It looks at the first byte only.
func Kind(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		if t[0] == '-' || (t[0] >= '0' && t[0] <= '9') {
			return "a number"
		}
		return "invalid JSON"
	}
}
