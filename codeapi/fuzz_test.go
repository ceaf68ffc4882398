package codeapi

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzGenerate gives the generator any tool name, server name, parameter
// name and schema: it must not panic, every identifier it makes must be
// one (and no reserved word), every file valid UTF-8 without NUL, and a
// tool's files within its definition's bytes plus 1.5 KB (SPEC §12.4,
// §12.5).
func FuzzGenerate(f *testing.F) {
	f.Add("read_file", "fs", "path", `{"type":"string","description":"The path."}`, `{"type":"object"}`)
	f.Add("class", "async", "from", `{"oneOf":[{"$ref":"#/$defs/a"},{"type":"null"}]}`, `{}`)
	f.Add("ünï.cødé", "github/acme/x", "日本", `{"enum":["a",1,true,null,1.5,{}]}`, `true`)
	f.Add("", "", "", `{"type":["string","null"],"items":{"$ref":"#"}}`, `{"$ref":"#/properties/x"}`)
	f.Add("9", "None", "__debug__", `{"$ref":"#"}`, `{"type":"object","properties":{"a":{"$ref":"#"}}}`)
	f.Fuzz(func(t *testing.T, toolName, serverName, paramName, paramSchema, outputSchema string) {
		name, _ := json.Marshal(toolName)
		pname, _ := json.Marshal(paramName)
		def := `{"name":` + string(name) + `,"description":` + string(pname) +
			`,"inputSchema":{"type":"object","$defs":{"a":` + paramSchema + `},"properties":{` + string(pname) + `:` + paramSchema + `},"required":[` + string(pname) + `]},"outputSchema":` + outputSchema + `}`
		in := Input{Servers: []Server{
			{Name: serverName, Description: paramName, Tools: []Tool{{Name: toolName, Definition: json.RawMessage(def)}, {Name: toolName + "x", Definition: json.RawMessage(`{"name":"` + toolName + `x",` + strings.TrimPrefix(paramSchema, "{"))}}},
			{Name: serverName + ".", Tools: []Tool{{Name: toolName, Definition: json.RawMessage(def)}}},
		}, URL: "http://127.0.0.1:1/mcp", TokenFile: "/t"}
		files := Generate(in, "/code")
		for _, fl := range files {
			if !utf8.Valid(fl.Data) || bytes.IndexByte(fl.Data, 0) >= 0 {
				t.Fatalf("%s: invalid UTF-8 or a NUL:\n%q", fl.Path, fl.Data)
			}
		}
		for _, s := range layoutOf(in.Servers) {
			checkIdent(t, s.ident)
			for _, tl := range s.tools {
				checkIdent(t, tl.file)
				py, ts := toolFiles(tl)
				js := jsTool(tl)
				for _, b := range [][]byte{py, ts, js} {
					// The bound holds for exported names (SPEC §4.2: at most
					// 64 of [A-Za-z0-9_-]), which a definition holds itself.
					if exportedRE.MatchString(tl.name) && len(b) > tl.size+sizeSlack {
						t.Fatalf("a file of %d bytes for a definition of %d:\n%s", len(b), tl.size, b)
					}
				}
				for _, p := range params(&typer{}, tl.input) {
					checkIdent(t, p.ident)
				}
				// Nothing from the definition ends the docstring or a comment early.
				if strings.Count(string(py), `"""`) != 2 || strings.Count(string(ts), "*/") != 1+strings.Count(string(ts), "/** ") {
					t.Fatalf("a docstring or comment ended early:\n%s\n%s", py, ts)
				}
			}
		}
	})
}

var exportedRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func checkIdent(t *testing.T, id string) {
	t.Helper()
	if !identRE.MatchString(id) || reserved[id] || len(id) > maxIdent+8 {
		t.Fatalf("not an identifier: %q", id)
	}
}
