// Package rawjson finds members of a JSON object without decoding it.
//
// The benchmark's echo server and load generator use it so that their own
// cost stays far below the gateway's: skipping an 8 MiB string is one
// memchr-speed scan (bytes.IndexByte), where encoding/json validates and
// then decodes it (two passes, ~30 ms for 8 MiB on the benchmark machine).
// It does not validate: the input comes from the gateway or from the
// benchmark itself.
package rawjson

import (
	"bytes"
	"errors"
	"strconv"
)

var errSyntax = errors.New("rawjson: malformed JSON")

// Get returns the raw value of the top-level member key of the object obj.
func Get(obj []byte, key string) ([]byte, bool) {
	var out []byte
	found := false
	_ = Each(obj, func(k, v []byte) bool {
		if string(k) == key {
			out, found = v, true
			return false
		}
		return true
	})
	return out, found
}

// Each calls fn for each top-level member of the object obj, with the raw
// key (without quotes, escapes kept) and raw value, until fn returns false.
func Each(obj []byte, fn func(key, value []byte) bool) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errSyntax
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return errSyntax
		}
		if obj[i] == '}' {
			return nil
		}
		if obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		if i >= len(obj) || obj[i] != '"' {
			return errSyntax
		}
		end, err := skipString(obj, i)
		if err != nil {
			return err
		}
		key := obj[i+1 : end-1]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return errSyntax
		}
		i = skipSpace(obj, i+1)
		end, err = skipValue(obj, i)
		if err != nil {
			return err
		}
		if !fn(key, obj[i:end]) {
			return nil
		}
		i = end
	}
}

// String returns the raw JSON string value as a Go string if it has no
// escapes (ok is false otherwise, or if raw is not a string).
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

// Int parses a raw JSON integer.
func Int(raw []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	return n, err == nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errSyntax
		}
		j += k
		// The quote ends the string unless an odd number of backslashes
		// precede it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j, nil
		}
	}
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errSyntax
	default:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\r' && b[j] != '\t' {
			j++
		}
		if j == i {
			return 0, errSyntax
		}
		return j, nil
	}
}
