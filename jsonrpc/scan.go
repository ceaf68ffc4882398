package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// This file reads members of a JSON object without decoding it: the relay
// looks at a message's envelope (id, method, params.name,
// params._meta.progressToken) and passes every other byte through as it
// came (SPEC §4.3, §4.4). Skipping an 8 MiB string is one bytes.IndexByte
// scan; encoding/json would validate, decode and copy it.
//
// These functions do not validate. Call them on input that json.Valid has
// accepted (a client's body) or that a server wrote as one JSON line and
// that Decode accepted.

// errSyntax is returned for input that is not the JSON these functions
// expect; with validated input it means "not an object".
var errSyntax = errors.New("scan JSON: malformed or not an object")

// Members calls fn with each top-level member of the object obj, in order:
// the raw key (without its quotes, escapes kept) and the raw value. It
// stops early when fn returns false.
func Members(obj []byte, fn func(key, value []byte) bool) error {
	return members(obj, func(key []byte, _, start, end int) bool { return fn(key, obj[start:end]) })
}

// members is Members with offsets in obj: the member's (its key's opening
// quote, keyAt) and its value's (start, end).
func members(obj []byte, fn func(key []byte, keyAt, start, end int) bool) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errSyntax
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
		if i >= len(obj) {
			return errSyntax
		}
		if obj[i] == '}' {
			return nil
		}
		keyAt := i
		keyEnd, err := skipString(obj, i)
		if err != nil {
			return err
		}
		key := obj[i+1 : keyEnd-1]
		i = skipSpace(obj, keyEnd)
		if i >= len(obj) || obj[i] != ':' {
			return errSyntax
		}
		i = skipSpace(obj, i+1)
		end, err := skipValue(obj, i)
		if err != nil {
			return err
		}
		if !fn(key, keyAt, i, end) {
			return nil
		}
		i = end
	}
}

// Member returns the raw value of obj's member key (the last one, as
// encoding/json and JavaScript's JSON.parse take it), or false.
func Member(obj []byte, key string) (json.RawMessage, bool) {
	var (
		out   []byte
		found bool
	)
	_ = Members(obj, func(k, v []byte) bool {
		if keyIs(k, key) {
			out, found = v, true
		}
		return true
	})
	return out, found
}

// Value is Member's value alone: the raw value of obj's member key, or
// nil when obj has none or is not an object.
func Value(obj []byte, key string) json.RawMessage {
	v, _ := Member(obj, key)
	return v
}

// TrimLeft is b without its leading JSON whitespace (RFC 8259: space,
// tab, line feed, carriage return): where a raw value's first byte says
// what it is.
func TrimLeft(b []byte) []byte { return b[skipSpace(b, 0):] }

// IsNull reports whether raw is the JSON value null, with JSON white
// space around it allowed.
func IsNull(raw []byte) bool {
	t := TrimLeft(raw)
	return len(t) >= 4 && string(t[:4]) == "null" && len(TrimLeft(t[4:])) == 0
}

// Replace returns obj with the value of its member key replaced by value,
// every other byte unchanged; obj itself is not modified. A missing key is
// added as the last member. It fails only if obj is not an object.
func Replace(obj []byte, key string, value []byte) ([]byte, error) {
	start, end, err := Find(obj, key)
	if err != nil {
		return nil, err
	}
	if start < 0 {
		return AppendMember(obj, key, value), nil
	}
	return Splice(obj, start, end, value), nil
}

// Splice returns a copy of obj with obj[start:end] (a value Find gave)
// replaced by value; obj itself is not modified.
func Splice(obj []byte, start, end int, value []byte) []byte {
	out := make([]byte, 0, len(obj)-(end-start)+len(value))
	out = append(out, obj[:start]...)
	out = append(out, value...)
	return append(out, obj[end:]...)
}

// Find returns the offsets in obj of the value of its member key (the
// last one, as Member takes it): obj[start:end]; -1, -1 when it has none.
// It fails only if obj is not an object.
func Find(obj []byte, key string) (start, end int, err error) {
	start, end = -1, -1
	err = members(obj, func(k []byte, _, s, e int) bool {
		if keyIs(k, key) {
			start, end = s, e
		}
		return true
	})
	return start, end, err
}

// Edit is one member SetMembers writes: Key with the raw JSON Value, or,
// with a nil Value, Key removed.
type Edit struct {
	Key   string
	Value []byte
}

// SetMembers returns obj with each edit applied in one scan, every other
// byte unchanged: the value of the edit's first member of that key
// replaced, its other members of that key removed (with the comma that
// joined each), and an edit obj has no member for added as the last
// member; a nil Value removes every member of the key. obj itself is not
// modified; it fails only if obj is not an object.
func SetMembers(obj []byte, edits ...Edit) ([]byte, error) {
	return SetMembersIn(obj, 0, len(obj), edits...)
}

// SetMembersIn returns a copy of obj in which the object obj[start:end]
// (a value Find gave) is edited as SetMembers edits an object, every
// other byte of obj unchanged: one scan of the object, one copy of obj.
// obj itself is not modified; it fails only if obj[start:end] is not an
// object.
func SetMembersIn(obj []byte, start, end int, edits ...Edit) ([]byte, error) {
	size := len(obj)
	for _, ed := range edits {
		size += len(ed.Key) + len(ed.Value) + len(`,"":`)
	}
	out := make([]byte, 0, size)
	out, err := appendSetMembers(append(out, obj[:start]...), obj[start:end], edits)
	if err != nil {
		return nil, err
	}
	return append(out, obj[end:]...), nil
}

// appendSetMembers appends obj, an object, to out with edits applied
// (SetMembers).
func appendSetMembers(out, obj []byte, edits []Edit) ([]byte, error) {
	base := len(out)
	var (
		written  uint64 // bit j: edits[j] is out (at most 64 edits)
		last     int    // obj is out up to here
		prevEnd  = -1   // the end of the last member kept, or -1
		dropNext bool   // a first member was removed: the next one's comma goes too
	)
	err := members(obj, func(k []byte, at, s, e int) bool {
		j := slices.IndexFunc(edits, func(ed Edit) bool { return keyIs(k, ed.Key) })
		switch {
		case j >= 0 && (edits[j].Value == nil || written&(1<<j) != 0): // removed
			switch {
			case prevEnd >= 0: // its comma is before it
				if last < prevEnd { // else a member removed before it took the bytes from there
					out = append(out, obj[last:prevEnd]...)
				}
			case !dropNext: // the first: its comma is after it
				out, dropNext = append(out, obj[last:at]...), true
			}
			last = e
			return true
		case dropNext:
			last, dropNext = at, false
		}
		if j >= 0 {
			out = append(append(out, obj[last:s]...), edits[j].Value...)
			last, written = e, written|1<<j
		}
		prevEnd = e
		return true
	})
	if err != nil {
		return nil, err
	}
	out = append(out, obj[last:]...)
	for j, ed := range edits {
		if ed.Value != nil && written&(1<<j) == 0 {
			out = appendMember(out, base, ed.Key, ed.Value)
		}
	}
	return out, nil
}

// AppendMember returns a copy of obj, an object (one Find accepted), with
// "key":value added before its closing brace; obj itself is not
// modified, and value is copied.
func AppendMember(obj []byte, key string, value []byte) []byte {
	out := make([]byte, 0, len(obj)+len(key)+len(value)+4)
	return appendMember(append(out, obj...), 0, key, value)
}

// appendMember adds "key":value to the object out[base:], before its
// closing brace (the whitespace after that brace goes), in place.
func appendMember(out []byte, base int, key string, value []byte) []byte {
	body := trimSpaceRight(out[base:])
	body = body[:len(body)-1]              // without the closing brace
	more := len(bytes.TrimSpace(body)) > 1 // members: more than "{"
	out = out[:base+len(body)]
	if more {
		out = append(out, ',')
	}
	out = appendString(out, key)
	out = append(out, ':')
	out = append(out, value...)
	return append(out, '}')
}

// KeyIs reports whether a raw key, as Members gives it (escapes kept),
// is name.
func KeyIs(raw []byte, name string) bool { return keyIs(raw, name) }

// KeyFolds reports whether a raw key, as Members gives it (escapes
// kept), is name but for case, and not name itself: "_META" or "_Meta"
// for "_meta", "progre\u017f\u017fToken" for "progressToken". A server
// that decodes with Go's encoding/json reads such a key as name (it
// matches keys under Unicode case folding, as strings.EqualFold does),
// where the gateway, which reads keys exactly, does not.
func KeyFolds(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) != name && bytes.EqualFold(raw, []byte(name))
	}
	key, ok := decodeKey(raw)
	return ok && key != name && strings.EqualFold(key, name)
}

// keyIs reports whether the raw key (escapes kept) is name.
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw) == name
	}
	key, ok := decodeKey(raw)
	return ok && key == name
}

// decodeKey is a raw key that holds an escape, decoded; false if it does
// not decode.
func decodeKey(raw []byte) (string, bool) {
	var s string
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	err := json.Unmarshal(q, &s)
	return s, err == nil
}

// trimSpaceRight is b without its trailing JSON whitespace; a loop, since
// bytes.TrimRight builds its set of the cutset at every call (half a µs
// a message, issue 33).
func trimSpaceRight(b []byte) []byte {
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\n', '\r':
			b = b[:len(b)-1]
		default:
			return b
		}
	}
	return b
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i].
func skipString(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errSyntax
	}
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, errSyntax
		}
		j += k
		// The quote ends the string unless an odd number of backslashes
		// stand before it.
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

// skipValue returns the index after the value that starts at b[i].
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
			if !nests[b[j]] {
				continue
			}
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
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errSyntax
	}
	j := i
	for j < len(b) && !endsLiteral(b[j]) {
		j++
	}
	if j == i {
		return 0, errSyntax
	}
	return j, nil
}

// nests marks the bytes skipValue stops at inside an object or array:
// the quote that starts a string, and the brackets. The rest it passes
// with one lookup each rather than a switch (issue 33: 15–25 % off a
// skip of an 8 MiB array of numbers, 3–7 % of one of small objects).
var nests = func() (t [256]bool) {
	for _, c := range `"{}[]` {
		t[c] = true
	}
	return t
}()

// endsLiteral reports whether c ends a number, true, false or null.
func endsLiteral(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}
