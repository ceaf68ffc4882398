package codeapi

import "strings"

// This file writes the JavaScript side (SPEC §12.2): per tool an ES
// module, js/<server>/<tool>.mjs, with its declarations beside it,
// <tool>.d.ts; per server index.mjs, which exports them all; and the
// runtime js/_client.mjs. Node 18 or later (built-in fetch). A tool's
// function takes one object of arguments, so argument names need no
// mapping: the declarations quote them.

// contentType is what a tool without an outputSchema returns: the text
// of a text-only result, else its content list.
const contentType = "string | Array<{ type: string; [key: string]: unknown }>"

// jsTool writes a tool's .mjs: a call of the runtime with the tool's
// name, whether it returns structuredContent, and its Mcp-Param headers.
func jsTool(t *tool) []byte {
	b := make([]byte, 0, 512)
	b = append(b, "// "...)
	b = append(b, strings.ReplaceAll(cut(t.name, 64), "\n", " ")...)
	b = append(b, " (server "...)
	b = append(b, cut(t.serverName, 64)...)
	b = append(b, "): "...)
	b = append(b, firstSentence(t.description, 120)...)
	b = append(b, "\n// Arguments and result: "...)
	b = append(b, t.file...)
	b = append(b, ".d.ts.\nimport { call } from \"../_client.mjs\";\n\nconst tool = { name: "...)
	b = jsString(b, t.name)
	if t.hasOutput {
		b = append(b, ", structured: true, headers: ["...)
	} else {
		b = append(b, ", structured: false, headers: ["...)
	}
	for _, h := range t.headers {
		b = append(jsString(append(b, '['), h.Name), ", ["...)
		for _, k := range h.Path {
			b = append(jsString(b, k), ", "...)
		}
		b = append(b, "]], "...)
	}
	b = append(b, "] };\n\nexport async function "...)
	b = append(b, t.file...)
	b = append(b, "(args = {}) {\n  return call(tool, args);\n}\n\nexport default "...)
	b = append(b, t.file...)
	return append(b, ";\n"...)
}

// tsTool writes a tool's .d.ts: the function, its arguments' object
// (each property quoted, described, optional unless required) and its
// result.
func tsTool(t *tool, ps []param, out *typ, d detail) []byte {
	b := make([]byte, 0, 1024+len(t.description))
	b = append(b, "/**\n * "...)
	if desc := strings.TrimSpace(t.description); desc != "" {
		b = append(jsDoc(b, desc, ""), "\n *\n * "...)
	}
	b = append(b, "Exported name: "...)
	b = jsDoc(b, t.name, "")
	b = append(b, " (server "...)
	b = jsDoc(b, cut(t.serverName, 64), "")
	b = append(b, ").\n */\nexport declare function "...)
	b = append(b, t.file...)
	b = append(b, "(args"...)
	required := false
	for _, p := range ps {
		required = required || p.required
	}
	if !required || d == detailPlain {
		b = append(b, '?')
	}
	if d == detailPlain || len(ps) == 0 {
		b = append(b, ": Record<string, unknown>"...)
	} else {
		b = append(b, ": {\n"...)
		for _, p := range ps {
			if desc := strings.TrimSpace(p.description); desc != "" && d == detailFull {
				b = append(jsDoc(append(b, "  /** "...), desc, "  "), " */\n"...)
			}
			b = jsString(append(b, "  "...), p.name)
			if !p.required {
				b = append(b, '?')
			}
			b = append(tsType(append(b, ": "...), p.t, "  "), ";\n"...)
		}
		b = append(b, "  [key: string]: unknown;\n}"...)
	}
	b = append(b, "): Promise<"...)
	if t.hasOutput {
		b = tsType(b, out, "")
	} else {
		b = append(b, contentType...)
	}
	b = append(b, ">;\nexport default "...)
	b = append(b, t.file...)
	return append(b, ";\n"...)
}

// jsServer writes a server's index.mjs.
func jsServer(s *serverOut) []byte {
	b := []byte("// Server ")
	b = append(b, cut(s.name, 200)...)
	b = append(b, " ("...)
	b = append(b, count(len(s.tools), "tool")...)
	b = append(b, ')')
	if line := firstLine(s.description, 200); line != "" {
		b = append(append(b, ": "...), line...)
	}
	b = append(b, "\nexport { InputRequiredError, ToolError } from \"../_client.mjs\";\n"...)
	for _, t := range s.tools {
		b = append(b, "export { "...)
		b = append(b, t.file...)
		b = append(b, " } from \"./"...)
		b = append(b, t.file...)
		b = append(b, ".mjs\";\n"...)
	}
	return b
}
