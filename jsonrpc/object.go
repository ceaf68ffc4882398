package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Field is one member of a JSON object, its value raw.
type Field struct {
	Key   string
	Value json.RawMessage
	// rawKey is the key as it was written ("\u00e9" stays so), for
	// Encode; nil for a member made here.
	rawKey []byte
}

// Fields splits a JSON object into its members, in order, values raw.
// Encode writes them back with their keys as written.
func Fields(obj json.RawMessage) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("read object: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("read object: not a JSON object")
	}
	var out []Field
	for dec.More() {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read object: %w", err)
		}
		key, _ := tok.(string)
		rawKey := bytes.TrimLeft(obj[before:dec.InputOffset()], " \t\r\n,")
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("read object member %q: %w", key, err)
		}
		out = append(out, Field{Key: key, Value: v, rawKey: rawKey})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("read object: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("read object: data after the object")
	}
	return out, nil
}

// Get returns the raw value of key in obj.
func Get(fields []Field, key string) (json.RawMessage, bool) {
	for _, f := range fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// Set replaces key's value in place, or appends the member if absent.
func Set(fields []Field, key string, value json.RawMessage) []Field {
	for i := range fields {
		if fields[i].Key == key {
			fields[i].Value = value
			return fields
		}
	}
	return append(fields, Field{Key: key, Value: value})
}

// Encode writes fields back as a compact JSON object; values are copied as
// they are.
func Encode(fields []Field) json.RawMessage {
	n := 2
	for _, f := range fields {
		n += len(f.Key) + len(f.Value) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		if len(f.rawKey) > 0 {
			b = append(b, f.rawKey...)
		} else {
			b = appendString(b, f.Key)
		}
		b = append(b, ':')
		b = append(b, f.Value...)
	}
	return append(b, '}')
}

// Without returns obj without its member key, compacted (Fields, then
// Encode); obj as it is when it is not an object.
func Without(obj json.RawMessage, key string) json.RawMessage {
	fields, err := Fields(obj)
	if err != nil {
		return obj
	}
	out := fields[:0]
	for _, f := range fields {
		if f.Key != key {
			out = append(out, f)
		}
	}
	return Encode(out)
}
