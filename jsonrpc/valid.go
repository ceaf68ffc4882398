package jsonrpc

import (
	"bytes"
	"encoding/binary"
)

// Valid reports whether b is one valid JSON value (RFC 8259), with
// surrounding white space allowed: the same answer as encoding/json's
// Valid (FuzzValid holds it to that), at several times its speed on the
// long strings a large message is made of. Every message is validated
// once on its way through the relay, a client's body and a server's line
// alike, so an 8 MiB message costs one scan here instead of
// encoding/json's byte-at-a-time state machine (23 ms for 8 MiB on the
// benchmark machine). Nesting deeper than maxDepth is invalid, as there.
func Valid(b []byte) bool {
	end, ok := validFrom(b, skipSpace(b, 0), 0, nil)
	return ok && skipSpace(b, end) == len(b)
}

// validFrom reads the one value at b[i], which sits in base objects (0,
// or 1 for a member's value: they count toward maxDepth), and returns
// the index after it and the space that follows. The long strings k
// found valid are not read again (k may be nil).
func validFrom(b []byte, i, base int, k *scanned) (int, bool) {
	// The containers around the value at i: '{' or '['; on the stack up
	// to a depth of 32 (every message's), grown on the heap past it.
	var stack [32]byte
	open := stack[:base]
	for k := range open {
		open[k] = '{'
	}
	for {
		var opened, ok bool
		i, open, opened, ok = validValue(b, i, open, k)
		if !ok {
			return i, false
		}
		if opened {
			continue // i is at the container's first value
		}
		if i, open, ok = validAfter(b, i, open, base, k); !ok {
			return i, false
		}
		if len(open) == base {
			return i, true
		}
	}
}

// validValue reads the value at b[i]. An object or array that is not
// empty is opened instead (pushed on open, which it returns, opened
// true), with i at its first value: after its first key's colon, or after
// its bracket. open goes in and out by value, so that Valid's stack of it
// stays on Valid's stack.
func validValue(b []byte, i int, open []byte, k *scanned) (next int, _ []byte, opened, ok bool) {
	if i >= len(b) {
		return i, open, false, false
	}
	switch c := b[i]; {
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == end {
			return i + 1, open, false, len(open) < maxDepth // an empty one counts too
		}
		if open = append(open, c); len(open) > maxDepth {
			return i, open, false, false
		}
		if c == '[' {
			return i, open, true, true
		}
		i, ok = validKey(b, i, k)
		return i, open, true, ok
	case c == '"':
		i, ok = validStringKnown(b, i, k)
	case c == '-' || (c >= '0' && c <= '9'):
		i, ok = validNumber(b, i)
	case c == 't':
		i, ok = validLiteral(b, i, "true")
	case c == 'f':
		i, ok = validLiteral(b, i, "false")
	case c == 'n':
		i, ok = validLiteral(b, i, "null")
	}
	return i, open, false, ok
}

// maxDepth is encoding/json's nesting limit (its scanner's
// maxNestingDepth): 10000 open containers are valid, 10001 are not.
const maxDepth = 10000

// validAfter reads what follows a value: closing brackets, and then a
// comma (and the next key) before the next value, if inside a container;
// open, less the containers it closed, is returned. It stops at the
// first base containers, which are the caller's.
func validAfter(b []byte, i int, open []byte, base int, k *scanned) (int, []byte, bool) {
	for {
		i = skipSpace(b, i)
		if len(open) == base {
			return i, open, true
		}
		if i >= len(b) {
			return i, open, false
		}
		top := open[len(open)-1]
		switch c := b[i]; {
		case c == ',':
			i = skipSpace(b, i+1)
			if top == '{' {
				i, ok := validKey(b, i, k)
				return i, open, ok
			}
			return i, open, true
		case (c == '}' && top == '{') || (c == ']' && top == '['):
			open = open[:len(open)-1]
			i++
		default:
			return i, open, false
		}
	}
}

// validKey reads `"key" :` and the space after it.
func validKey(b []byte, i int, k *scanned) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := validStringKnown(b, i, k)
	if !ok {
		return i, false
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// validString reads the string at b[i] == '"'. Short runs of plain
// content (between escapes, or a short string) are read a byte at a
// time; past 32 bytes, the rest of the run is found with bytes.IndexByte,
// which the runtime runs with vector instructions: the next quote
// (searched once, again only when an escape has passed it, so a string
// of many escapes stays linear), the next backslash before it, and then
// the control characters before that, four 64-bit words at a time
// (noControl). An 8 MiB argument is validated in about a fifth of the
// time of a byte at a time, and a string of escapes within 20 % of it
// (BenchmarkValidLongString, BenchmarkValidEscapes): the largest pass
// the gateway makes over a large message that the floor proxy does not.
func validString(b []byte, i int) (int, bool) {
	j := i + 1
	q := -1 // the next quote at or after j, once searched; len(b) if none
	for {
		for short := min(len(b), j+32); j < short && !stringStop[b[j]]; j++ {
		}
		if j < len(b) && !stringStop[b[j]] { // a long run
			j = plainRun(b, j, &q)
		}
		if j >= len(b) {
			return j, false
		}
		switch b[j] {
		case '"':
			return j + 1, true
		case '\\':
			if j+1 >= len(b) {
				return j, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) || !isHex(b[j+5]) {
					return j, false
				}
				j += 6
			default:
				return j, false
			}
		default: // a control character
			return j, false
		}
	}
}

// plainRun returns where the plain string content from b[j] ends: at
// the first quote, backslash or control character (len(b): none). q
// keeps the next quote at or after j between calls (-1: not searched;
// len(b): none), searched again only once an escape has passed it, so
// that a string of many escapes is read in linear time.
func plainRun(b []byte, j int, q *int) int {
	if *q < j {
		*q = len(b)
		if k := bytes.IndexByte(b[j:], '"'); k >= 0 {
			*q = j + k
		}
	}
	end := *q
	if k := bytes.IndexByte(b[j:end], '\\'); k >= 0 {
		end = j + k
	}
	j += noControl(b[j:end])
	for j < end && b[j] >= 0x20 {
		j++
	}
	return j
}

// noControl returns the length of the longest prefix of seg, in whole
// 32-byte blocks, that holds no control character (a byte below 0x20),
// by the exact test for "a byte is less than n" on a 64-bit word
// ((w - n·0x01…) &^ w & 0x80…, exact for n ≤ 128).
func noControl(seg []byte) int {
	const ones, highs, spaces = 0x0101010101010101, 0x8080808080808080, 0x2020202020202020
	rest := seg
	for len(rest) >= 32 {
		w1 := binary.LittleEndian.Uint64(rest)
		w2 := binary.LittleEndian.Uint64(rest[8:])
		w3 := binary.LittleEndian.Uint64(rest[16:])
		w4 := binary.LittleEndian.Uint64(rest[24:])
		if ((w1-spaces)&^w1|(w2-spaces)&^w2|(w3-spaces)&^w3|(w4-spaces)&^w4)&highs != 0 {
			break
		}
		rest = rest[32:]
	}
	return len(seg) - len(rest)
}

// stringStop marks the bytes that end a run of plain string content:
// the quote, the backslash and the control characters.
var stringStop = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// validNumber reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func validNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && isDigit(b[i]):
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, true
}

func validLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}
