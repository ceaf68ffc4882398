package codeapi

import (
	"bytes"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file reads a JSON Schema as a type, for Python annotations and
// TypeScript declarations (SPEC §12.2, §12.4). It reads what maps to a
// type plainly (type, a list of types, properties, required, items, enum,
// const, oneOf, anyOf, a one-member allOf, local $ref into $defs or
// definitions) and falls back to Any/unknown for everything else, past a
// depth, or past a budget of nodes: the files must compile and stay small
// whatever the schema, and a looser type is never wrong.

// schema is one node of a JSON Schema, raw, with its document's root (for
// "#/…" references). The zero schema is the empty schema.
type schema struct {
	raw, root []byte
}

func newSchema(raw []byte) schema { return schema{raw: raw, root: raw} }

func isObject(v []byte) bool {
	for _, c := range v {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c == '{'
	}
	return false
}

// node is a schema's members the typer reads, from one scan.
type node struct {
	types        []string
	props        []prop
	required     []string
	items        []byte
	enum         [][]byte
	constant     []byte
	oneOf, allOf [][]byte
	ref          string
	closed       bool // additionalProperties: false
	description  string
}

// prop is one member of "properties", in the schema's order.
type prop struct {
	name string
	raw  []byte
}

func parseNode(raw []byte) node {
	var n node
	if !isObject(raw) {
		return n
	}
	_ = jsonrpc.Members(raw, func(k, v []byte) bool {
		switch key := keyText(k); key {
		case "type":
			if s, ok := jsonrpc.Text(v); ok {
				n.types = []string{s}
			} else {
				n.types = textItems(v)
				if n.types == nil {
					n.types = []string{"?"} // a type we cannot read
				}
			}
		case "properties":
			_ = jsonrpc.Members(v, func(pk, pv []byte) bool {
				n.props = append(n.props, prop{name: keyText(pk), raw: pv})
				return true
			})
		case "required":
			n.required = textItems(v)
		case "items":
			n.items = v
		case "enum":
			n.enum = arrayItems(v)
			if n.enum == nil {
				n.enum = [][]byte{} // present, but empty or not an array
			}
		case "const":
			n.constant = v
		case "oneOf", "anyOf":
			n.oneOf = append(n.oneOf, arrayItems(v)...)
			if len(n.oneOf) == 0 {
				n.oneOf = [][]byte{nil}
			}
		case "allOf":
			n.allOf = arrayItems(v)
		case "$ref":
			n.ref, _ = jsonrpc.Text(v)
		case "additionalProperties":
			n.closed = string(bytes.TrimSpace(v)) == "false"
		case "description":
			n.description, _ = jsonrpc.Text(v)
		}
		return true
	})
	return n
}

// keyText is a raw member key as a string (escapes read).
func keyText(k []byte) string {
	if bytes.IndexByte(k, '\\') < 0 {
		return string(k)
	}
	s, _ := jsonrpc.String(append(append([]byte{'"'}, k...), '"'))
	return s
}

// arrayItems splits a JSON array into its raw items (nil if not an
// array).
func arrayItems(v []byte) [][]byte {
	v = bytes.TrimSpace(v)
	if len(v) < 2 || v[0] != '[' {
		return nil
	}
	return splitArray(v)
}

// splitArray splits a valid JSON array into its items by depth counting.
func splitArray(a []byte) [][]byte {
	var out [][]byte
	depth, start, inStr := 0, -1, false
	for i := 0; i < len(a); i++ {
		c := a[i]
		if inStr {
			switch c {
			case '\\':
				i++
			case '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			if depth == 1 && start < 0 {
				start = i
			}
		case '[', '{':
			if depth == 1 && start < 0 {
				start = i
			}
			depth++
		case ']', '}':
			depth--
			if depth == 0 && start >= 0 {
				out = append(out, bytes.TrimSpace(a[start:i]))
			}
		case ',':
			if depth == 1 && start >= 0 {
				out = append(out, bytes.TrimSpace(a[start:i]))
				start = -1
			}
		case ' ', '\t', '\r', '\n':
		default:
			if depth == 1 && start < 0 {
				start = i
			}
		}
	}
	if out == nil {
		out = [][]byte{}
	}
	return out
}

// textItems is a JSON array's string items (others skipped).
func textItems(v []byte) []string {
	items := arrayItems(v)
	if items == nil {
		return nil
	}
	out := []string{}
	for _, it := range items {
		if s, ok := jsonrpc.Text(it); ok {
			out = append(out, s)
		}
	}
	return out
}

// resolve follows a local reference ("#", "#/$defs/x", any JSON pointer
// into the document); false if it leads nowhere.
func resolve(root []byte, ref string) ([]byte, bool) {
	if ref == "#" {
		return root, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		v, ok := jsonrpc.Member(cur, tok)
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// kind is what a type is.
type kind uint8

const (
	kAny kind = iota
	kString
	kNumber
	kInteger
	kBool
	kNull
	kArray
	kObject
	kUnion
	kLiteral
)

// typ is a schema read as a type.
type typ struct {
	kind   kind
	elem   *typ    // kArray
	fields []field // kObject, when read (TypeScript shows them)
	closed bool    // kObject: no other keys
	alts   []*typ  // kUnion
	lit    []byte  // kLiteral: a JSON string, integer, true, false or null
}

type field struct {
	name     string
	t        *typ
	required bool
}

var anyType = &typ{kind: kAny}

// Limits of the typer: past them a type is Any.
const (
	maxDepth     = 4  // nesting of arrays, objects and unions
	maxRefs      = 3  // references followed on one path
	maxNodes     = 96 // nodes read for one tool
	maxFieldsTS  = 24 // fields shown of a nested object
	maxTypeBytes = 400
)

// typer reads the types of one tool's schemas within one budget.
type typer struct{ nodes int }

// typeOf reads s as a type.
func (tp *typer) typeOf(s schema) *typ { return tp.read(s.raw, s.root, 0, 0) }

func (tp *typer) read(raw, root []byte, depth, refs int) *typ {
	if tp.nodes++; tp.nodes > maxNodes || depth > maxDepth || !isObject(raw) {
		return anyType
	}
	return tp.readNode(parseNode(raw), root, depth, refs)
}

// readNode is read of a node parsed already (counted in the budget).
func (tp *typer) readNode(n node, root []byte, depth, refs int) *typ {
	switch {
	case n.ref != "":
		target, ok := resolve(root, n.ref)
		if !ok || refs >= maxRefs {
			return anyType
		}
		return tp.read(target, root, depth, refs+1)
	case n.constant != nil:
		return literal(n.constant)
	case n.enum != nil:
		return tp.union(enumTypes(n.enum))
	case n.oneOf != nil:
		alts := make([]*typ, 0, len(n.oneOf))
		for _, o := range n.oneOf {
			alts = append(alts, tp.read(o, root, depth+1, refs))
		}
		return tp.union(alts)
	case len(n.allOf) == 1 && n.types == nil && n.props == nil:
		return tp.read(n.allOf[0], root, depth, refs)
	case n.allOf != nil:
		return anyType
	}
	types := n.types
	if types == nil {
		switch {
		case n.props != nil:
			types = []string{"object"}
		case n.items != nil:
			types = []string{"array"}
		default:
			return anyType
		}
	}
	alts := make([]*typ, 0, len(types))
	for _, t := range types {
		switch t {
		case "string":
			alts = append(alts, &typ{kind: kString})
		case "number":
			alts = append(alts, &typ{kind: kNumber})
		case "integer":
			alts = append(alts, &typ{kind: kInteger})
		case "boolean":
			alts = append(alts, &typ{kind: kBool})
		case "null":
			alts = append(alts, &typ{kind: kNull})
		case "array":
			elem := anyType
			if isObject(n.items) {
				elem = tp.read(n.items, root, depth+1, refs)
			}
			alts = append(alts, &typ{kind: kArray, elem: elem})
		case "object":
			alts = append(alts, tp.object(n, root, depth, refs))
		default:
			return anyType
		}
	}
	return tp.union(alts)
}

// object reads an object's fields (shown by TypeScript), within the
// budget: a deep or wide object is an open record.
func (tp *typer) object(n node, root []byte, depth, refs int) *typ {
	t := &typ{kind: kObject, closed: n.closed}
	if depth >= maxDepth-1 || len(n.props) > maxFieldsTS {
		t.closed = false
		return t
	}
	req := map[string]bool{}
	for _, r := range n.required {
		req[r] = true
	}
	for _, p := range n.props {
		t.fields = append(t.fields, field{name: p.name, t: tp.read(p.raw, root, depth+1, refs), required: req[p.name]})
	}
	return t
}

// union makes one type of several: Any absorbs the rest, nested unions
// flatten, one alternative is itself.
func (tp *typer) union(alts []*typ) *typ {
	var out []*typ
	for _, a := range alts {
		switch a.kind {
		case kAny:
			return anyType
		case kUnion:
			out = append(out, a.alts...)
		default:
			out = append(out, a)
		}
	}
	switch len(out) {
	case 0:
		return anyType
	case 1:
		return out[0]
	}
	return &typ{kind: kUnion, alts: out}
}

// enumTypes is an enum's values as literal types (Any for a value that is
// no literal).
func enumTypes(values [][]byte) []*typ {
	out := make([]*typ, 0, len(values))
	for _, v := range values {
		out = append(out, literal(v))
	}
	return out
}

// literal is a JSON value as a literal type: a string, a short integer,
// true, false or null; a number that is no short integer widens to a
// number, anything else to Any.
func literal(v []byte) *typ {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return anyType
	}
	switch c := v[0]; {
	case c == '"':
		if _, ok := jsonrpc.Text(v); ok {
			return &typ{kind: kLiteral, lit: v}
		}
	case c == 't' || c == 'f' || c == 'n':
		switch string(v) {
		case "true", "false":
			return &typ{kind: kLiteral, lit: v}
		case "null":
			return &typ{kind: kNull}
		}
	case c == '-' || c >= '0' && c <= '9':
		if len(v) <= 15 && !bytes.ContainsAny(v, ".eE") {
			return &typ{kind: kLiteral, lit: v}
		}
		return &typ{kind: kNumber}
	}
	return anyType
}
