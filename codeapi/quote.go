package codeapi

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file writes text from tool definitions (names, descriptions, enum
// values) into generated source so that it compiles whatever it holds
// (SPEC §12.4): string literals escape to ASCII, comments and docstrings
// keep readable text but cannot be ended early, and nothing a definition
// holds (NUL, a lone line separator, invalid UTF-8) reaches the source raw.

const hexDigits = "0123456789abcdef"

// pyString appends s as a Python string literal in ASCII.
func pyString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r >= 0x20 && r < 0x7f:
			b = append(b, byte(r))
		case r < 0x100:
			b = append(b, '\\', 'x', hexDigits[r>>4], hexDigits[r&15])
		case r < 0x10000:
			b = appendHex(append(b, '\\', 'u'), uint32(r), 4)
		default:
			b = appendHex(append(b, '\\', 'U'), uint32(r), 8)
		}
	}
	return append(b, '"')
}

// jsString appends s as a JavaScript (and TypeScript) string literal in
// ASCII: characters past U+FFFF as surrogate pairs.
func jsString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r >= 0x20 && r < 0x7f:
			b = append(b, byte(r))
		case r < 0x10000:
			b = appendHex(append(b, '\\', 'u'), uint32(r), 4)
		default:
			r -= 0x10000
			b = appendHex(append(b, '\\', 'u'), uint32(0xd800+(r>>10)), 4)
			b = appendHex(append(b, '\\', 'u'), uint32(0xdc00+(r&0x3ff)), 4)
		}
	}
	return append(b, '"')
}

func appendHex(b []byte, v uint32, digits int) []byte {
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hexDigits[(v>>(4*uint(i)))&15])
	}
	return b
}

// pyDoc appends s for the inside of a Python """docstring""": newlines
// and printable text as they are, quotes and backslashes escaped (so the
// string cannot end early), other control and separator characters as
// escapes; each line after the first indented by indent.
func pyDoc(b []byte, s, indent string) []byte {
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(append(b, '\n'), indent...)
		case r == '\t' || r >= 0x20 && r < 0x7f:
			b = append(b, byte(r))
		case r < 0x20 || r == 0x7f:
			b = append(b, '\\', 'x', hexDigits[r>>4], hexDigits[r&15])
		case r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == utf8.RuneError:
			b = appendHex(append(b, '\\', 'u'), uint32(r), 4)
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

// jsDoc appends s for the inside of a /** block comment */: each line
// after the first begins with indent and " * ", "*/" cannot occur, and
// control characters become spaces.
func jsDoc(b []byte, s, indent string) []byte {
	prev := rune(0)
	for _, r := range s {
		switch {
		case r == '\n':
			b = append(append(b, '\n'), indent...)
			b = append(b, " * "...)
			r = ' '
		case r == '/' && prev == '*':
			b = append(b, '\\', '/')
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
			b = append(b, ' ')
		default:
			b = utf8.AppendRune(b, r)
		}
		prev = r
	}
	return b
}

// firstLine is s's first non-empty line, trimmed and cut to max runes
// (with "…" where cut).
func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	// A Markdown heading ("# Everything Server", as servers write their
	// instructions) is its text: its marks would open a heading of their
	// own in INDEX.md's server line.
	if h := strings.TrimLeft(s, "#"); h != s && (h == "" || h[0] == ' ') {
		s = strings.TrimSpace(h)
	}
	return cut(s, max)
}

// firstSentence is the first sentence of s's first line: up to the first
// ". " (or "。"), cut to max runes.
func firstSentence(s string, max int) string {
	s = firstLine(s, 4*max)
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if i := strings.Index(s, "。"); i >= 0 {
		s = s[:i+len("。")]
	}
	return cut(s, max)
}

// cut cuts s to max runes, marking the cut with "…", and makes it valid
// UTF-8 without control characters.
func cut(s string, max int) string {
	if len(s) <= max && plainASCII(s) {
		return s
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == 0x2028 || r == 0x2029 {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimSpace(s[:i]) + "…"
		}
		n++
	}
	return s
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }

// plainASCII reports whether s is printable ASCII only.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
