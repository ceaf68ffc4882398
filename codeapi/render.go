package codeapi

import (
	"strings"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file renders a typ as a Python annotation and as a TypeScript type.
// A rendering longer than maxTypeBytes is Any / unknown.

// pyType appends t as a Python annotation (typing names: Any, Dict, List,
// Literal, Optional, Union; Python 3.8).
func pyType(b []byte, t *typ) []byte {
	start := len(b)
	b = pyTypeIn(b, t)
	if len(b)-start > maxTypeBytes {
		b = append(b[:start], "Any"...)
	}
	return b
}

func pyTypeIn(b []byte, t *typ) []byte {
	switch t.kind {
	case kString:
		return append(b, "str"...)
	case kNumber:
		return append(b, "float"...)
	case kInteger:
		return append(b, "int"...)
	case kBool:
		return append(b, "bool"...)
	case kNull:
		return append(b, "None"...)
	case kArray:
		return append(pyTypeIn(append(b, "List["...), t.elem), ']')
	case kObject:
		return append(b, "Dict[str, Any]"...)
	case kLiteral:
		return append(pyLiteral(append(b, "Literal["...), t.lit), ']')
	case kUnion:
		return pyUnion(b, t.alts)
	}
	return append(b, "Any"...)
}

// pyUnion writes a union: alternatives that render alike once, literals
// gathered into one Literal[…], None as Optional[…] around the rest.
func pyUnion(b []byte, alts []*typ) []byte {
	var parts []string
	var lits []byte
	null := false
	seen := map[string]bool{}
	for _, a := range alts {
		switch a.kind {
		case kLiteral:
			if len(lits) > 0 {
				lits = append(lits, ", "...)
			}
			lits = pyLiteral(lits, a.lit)
		case kNull:
			null = true
		default:
			if s := string(pyTypeIn(nil, a)); !seen[s] {
				seen[s] = true
				parts = append(parts, s)
			}
		}
	}
	if len(lits) > 0 {
		parts = append(parts, "Literal["+string(lits)+"]")
	}
	inner := strings.Join(parts, ", ")
	switch {
	case len(parts) == 0:
		return append(b, "None"...)
	case len(parts) > 1:
		inner = "Union[" + inner + "]"
	}
	if null {
		return append(append(append(b, "Optional["...), inner...), ']')
	}
	return append(b, inner...)
}

// pyLiteral writes a literal's JSON value as Python.
func pyLiteral(b []byte, lit []byte) []byte {
	switch string(lit) {
	case "true":
		return append(b, "True"...)
	case "false":
		return append(b, "False"...)
	}
	if s, ok := jsonrpc.Text(lit); ok {
		return pyString(b, s)
	}
	return append(b, lit...)
}

// tsType appends t as a TypeScript type.
func tsType(b []byte, t *typ, indent string) []byte {
	start := len(b)
	b = tsTypeIn(b, t, indent)
	if len(b)-start > maxTypeBytes {
		b = append(b[:start], "unknown"...)
	}
	return b
}

func tsTypeIn(b []byte, t *typ, indent string) []byte {
	switch t.kind {
	case kString:
		return append(b, "string"...)
	case kNumber, kInteger:
		return append(b, "number"...)
	case kBool:
		return append(b, "boolean"...)
	case kNull:
		return append(b, "null"...)
	case kArray:
		return append(tsTypeIn(append(b, "Array<"...), t.elem, indent), '>')
	case kObject:
		return tsObject(b, t, indent)
	case kLiteral:
		if s, ok := jsonrpc.Text(t.lit); ok {
			return jsString(b, s)
		}
		return append(b, t.lit...)
	case kUnion:
		for i, a := range t.alts {
			if i > 0 {
				b = append(b, " | "...)
			}
			b = tsTypeIn(b, a, indent)
		}
		return b
	}
	return append(b, "unknown"...)
}

// tsObject writes an object type on one line: its fields (names quoted),
// and an index signature unless it is closed.
func tsObject(b []byte, t *typ, indent string) []byte {
	if len(t.fields) == 0 {
		if t.closed {
			return append(b, "{}"...)
		}
		return append(b, "Record<string, unknown>"...)
	}
	b = append(b, "{ "...)
	for _, f := range t.fields {
		b = jsString(b, f.name)
		if !f.required {
			b = append(b, '?')
		}
		b = append(tsTypeIn(append(b, ": "...), f.t, indent), "; "...)
	}
	if !t.closed {
		b = append(b, "[key: string]: unknown; "...)
	}
	return append(b, '}')
}
