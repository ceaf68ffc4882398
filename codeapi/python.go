package codeapi

import (
	"strings"
)

// This file writes the Python side (SPEC §12.2): one module per tool,
// python/mcp_tools/<server>/<tool>.py, a package per server that imports
// them all, and the mcp_tools package around the runtime (_client.py).
// Standard library only, Python 3.8 or later: annotations are postponed
// (from __future__ import annotations), so a type never runs at import.

// param is one keyword parameter of a tool's function.
type param struct {
	ident, name string // the Python identifier, the argument's name
	required    bool
	t           *typ
	description string
}

// params reads an inputSchema's top-level properties as parameters,
// required ones first (in the schema's order, then names that "required"
// lists without a property), optional ones after.
func params(tp *typer, s schema) []param {
	raw := s.raw
	top := parseNode(raw)
	for refs := 0; top.ref != "" && refs < maxRefs; refs++ {
		target, ok := resolve(s.root, top.ref)
		if !ok {
			return nil
		}
		raw, top = target, parseNode(target)
	}
	req := map[string]bool{}
	for _, r := range top.required {
		req[r] = true
	}
	seen := map[string]bool{}
	var first, rest []param
	for _, p := range top.props {
		if seen[p.name] {
			continue // a name given twice: the last one's schema counts for JSON, one parameter here
		}
		seen[p.name] = true
		pn := parseNode(p.raw)
		t := anyType
		if tp.nodes++; tp.nodes <= maxNodes && isObject(p.raw) {
			t = tp.readNode(pn, s.root, 1, 0)
		}
		prm := param{name: p.name, required: req[p.name], t: t, description: pn.description}
		if prm.required {
			first = append(first, prm)
		} else {
			rest = append(rest, prm)
		}
	}
	for _, r := range top.required {
		if !seen[r] {
			seen[r] = true
			first = append(first, param{name: r, required: true, t: anyType})
		}
	}
	out := append(first, rest...)
	n := newNamer(false)
	for i := range out {
		out[i].ident = n.take(out[i].name)
	}
	return out
}

// detail is how much of a definition a file shows; a file that would
// exceed its definition's bytes plus 1.5 KB (SPEC §12.5) is written
// again with less.
type detail int

const (
	detailFull  detail = iota // typed parameters, their descriptions
	detailTyped               // typed parameters, no descriptions
	detailPlain               // no parameter list: keyword arguments as given
)

// sizeSlack is what a tool's file may hold beyond its definition's bytes
// (SPEC §12.5).
const sizeSlack = 1536

// pyTool writes a tool's module.
func pyTool(t *tool, ps []param, out *typ, d detail) []byte {
	b := make([]byte, 0, 1024+len(t.description))
	b = append(b, "from __future__ import annotations\nfrom typing import Any, Dict, List, Literal, Optional, Union\n\nfrom .. import _client as _mcp_client\n\n_mcp_tool = _mcp_client.Tool("...)
	b = pyString(b, t.name)
	if t.hasOutput {
		b = append(b, ", True, {"...)
	} else {
		b = append(b, ", False, {"...)
	}
	if d < detailPlain {
		sep := ""
		for _, p := range ps {
			if p.ident != p.name {
				b = pyString(append(pyString(append(b, sep...), p.ident), ": "...), p.name)
				sep = ", "
			}
		}
	}
	b = append(b, "}, ("...)
	for _, h := range t.headers {
		b = append(pyString(append(b, '('), h.Name), ", ("...)
		for _, k := range h.Path {
			b = append(pyString(b, k), ", "...)
		}
		b = append(b, ")), "...)
	}
	b = append(b, "))\n\n\ndef "...)
	b = append(b, t.file...)
	b = append(b, '(')
	if d < detailPlain && len(ps) > 0 {
		b = append(b, "*, "...)
		for _, p := range ps {
			b = append(append(b, p.ident...), ": "...)
			if p.required {
				b = pyType(b, p.t)
				b = append(b, ", "...)
				continue
			}
			start := len(b)
			b = pyType(b, p.t)
			if s := string(b[start:]); s != "Any" && s != "None" && !strings.HasPrefix(s, "Optional[") {
				b = append(append(b[:start], "Optional["...), s...)
				b = append(b, ']')
			}
			b = append(b, " = None, "...)
		}
	}
	b = append(b, "**_mcp_extra: Any) -> "...)
	if t.hasOutput {
		b = pyType(b, out)
	} else {
		b = append(b, "Union[str, List[Dict[str, Any]]]"...)
	}
	b = append(b, ":\n    \"\"\""...)
	const indent = "    "
	if desc := strings.TrimSpace(t.description); desc != "" {
		b = append(pyDoc(b, desc, indent), "\n\n    "...)
	}
	if d == detailFull && described(ps) {
		b = append(b, "Args:\n"...)
		for _, p := range ps {
			if desc := strings.TrimSpace(p.description); desc != "" {
				b = append(append(append(b, indent+indent...), p.ident...), ": "...)
				b = append(pyDoc(b, desc, indent+indent+indent), '\n')
			}
		}
		b = append(b, "\n    "...)
	}
	b = append(b, "Exported name: "...)
	b = pyDoc(b, t.name, indent)
	b = append(b, " (server "...)
	b = pyDoc(b, cut(t.serverName, 64), indent)
	b = append(b, ").\n    \"\"\"\n    return _mcp_client.call(_mcp_tool, locals())\n"...)
	return b
}

// described reports whether a parameter has a description.
func described(ps []param) bool {
	for _, p := range ps {
		if strings.TrimSpace(p.description) != "" {
			return true
		}
	}
	return false
}

// pyServer writes a server's __init__.py: its description line, then an
// import of every tool's function.
func pyServer(s *serverOut) []byte {
	b := []byte(`"""Server `)
	b = pyDoc(b, cut(s.name, 200), "")
	b = append(b, " ("...)
	b = append(b, count(len(s.tools), "tool")...)
	b = append(b, ')')
	if line := strings.TrimRight(firstLine(s.description, 200), "."); line != "" {
		b = pyDoc(append(b, ": "...), line, "")
	}
	b = append(b, ".\"\"\"\n\nfrom .._client import InputRequiredError, ToolError\n"...)
	for _, t := range s.tools {
		b = append(b, "from ."...)
		b = append(b, t.file...)
		b = append(b, " import "...)
		b = append(b, t.file...)
		b = append(b, '\n')
	}
	b = append(b, "\n__all__ = ["...)
	for _, t := range s.tools {
		b = append(b, '"')
		b = append(b, t.file...)
		b = append(b, "\", "...)
	}
	return append(b, "]\n"...)
}

// pyPackage is mcp_tools/__init__.py.
const pyPackage = `"""The gateway's tools as code (read ../../INDEX.md first).

    from mcp_tools import <server>
    result = <server>.<tool>(argument=...)

Each call is a tools/call to the gateway on loopback; a failed call raises
ToolError (InputRequiredError when the tool asks for input).
"""

from ._client import InputRequiredError, ToolError

__all__ = ["InputRequiredError", "ToolError"]
`
