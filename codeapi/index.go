package codeapi

import "strings"

// index writes INDEX.md, what an agent reads first (SPEC §12.2): how to
// import, then per server one line (its name, the package to import, how
// many tools, its description's first line) and per tool one line (its
// exported name, the file where it differs, its description's first
// sentence). It stays within a tenth of the tools/list bytes for 100
// tools and more (SPEC §12.5): the paths are given once per server, and a
// sentence is cut at 100 characters.
func index(dir string, servers []*serverOut) []byte {
	n := 0
	for _, s := range servers {
		n += len(s.tools)
	}
	if dir == "" {
		dir = "."
	}
	var b strings.Builder
	b.WriteString("# Tools as code\n\n")
	b.WriteString(count(n, "tool") + " of " + count(len(servers), "server") + ", each a function that calls the tool through the gateway.\n\n")
	b.WriteString("Python 3.8+: `sys.path.insert(0, \"" + cut(dir, 500) + "/python\")`, then `from mcp_tools import <server>` and `<server>.<tool>(name=value, ...)`; " +
		"the docstring is in `python/mcp_tools/<server>/<tool>.py`.\n")
	b.WriteString("Node 18+: `const { <tool> } = await import(\"" + cut(dir, 500) + "/js/<server>/index.mjs\")`, then `await <tool>({ name: value })`; " +
		"the types are in `js/<server>/<tool>.d.ts`.\n")
	b.WriteString("A tool with an output schema returns its structured result, any other its text (or its content list); a failed call raises ToolError.\n")
	for _, s := range servers {
		b.WriteString("\n## ")
		b.WriteString(cut(s.name, 200))
		if s.ident != s.name {
			b.WriteString(" (`" + s.ident + "`)")
		}
		b.WriteString(": " + count(len(s.tools), "tool"))
		if line := strings.TrimRight(firstLine(s.description, 120), "."); line != "" {
			b.WriteString(". " + line + ".")
		}
		b.WriteString("\n")
		for _, t := range s.tools {
			b.WriteString("- " + cut(t.name, 64))
			if t.file != t.name {
				b.WriteString(" (`" + t.file + "`)")
			}
			if sentence := firstSentence(t.description, 100); sentence != "" {
				b.WriteString(": " + sentence)
			}
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

// count is "1 tool" or "n tools" (noun, "tool" or "server").
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return itoa(n) + " " + noun + "s"
}
