package codeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	// Names that differ only where an identifier cannot (collisions),
	// reserved words of either language, a name past 64 bytes, and schemas
	// whose texts close a docstring or comment, nest, or are not schemas.
	f.Add("a-b", "a_b", "constructor", `{"type":"object","properties":{"__proto__":{"type":"string","description":"*/ \"\"\" \\"}},"additionalProperties":{"type":"integer"}}`, `{"type":"object","properties":{"result":{"const":"*/"}}}`)
	f.Add(strings.Repeat("x", 70), strings.Repeat("s", 70), strings.Repeat("p", 70), `{"anyOf":[{"type":"string","enum":["\"\"\"","*/","\u0000"]},{"type":"array","items":{"type":"array","items":{"$ref":"#/$defs/a"}}}]}`, `{"allOf":[{"$ref":"#/$defs/missing"}]}`)
	f.Add("delete", "import", "lambda", `{"allOf":[{"$ref":"#/$defs/a"}],"not":{},"patternProperties":{".*":{"type":"null"}}}`, `{"type":["object","array"],"items":false}`)
	f.Add("get_x", "get-x", "self", `{"type":5,"properties":[],"required":"x","enum":{}}`, `null`)
	f.Add("tool\u2028name", "srv\n*/", "this", `{"type":"string","description":"\"\"\"\n*/\n/**","default":"*/","examples":["\"\"\""]}`, `[]`)
	f.Add("_", "-", "", `{"type":"object","properties":{"":{"type":"string"},"0":{"type":"number"},"-":{"type":"boolean"}},"required":["","0","-"]}`, `{"type":`)
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
				if err := pyDocstrings(py); err != nil {
					t.Fatalf("%v:\n%s", err, py)
				}
				if err := tsComments(ts); err != nil {
					t.Fatalf("%v:\n%s", err, ts)
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

// pyDocstrings checks a generated Python file's strings: one docstring,
// each string ended where it should (a docstring at the end of a line,
// a one-line string on its line), with text from a definition inside
// them only. Quotes inside a string literal are no docstring (counting
// them took a Literal["\"\"\""] for one).
func pyDocstrings(code []byte) error {
	docstrings := 0
	for i := 0; i < len(code); i++ {
		switch {
		case bytes.HasPrefix(code[i:], []byte(`"""`)):
			docstrings++
			end := closing(code, i+3, `"""`, true)
			if end < 0 || (end+3 < len(code) && code[end+3] != '\n') {
				return fmt.Errorf("a docstring ended early, at byte %d", end)
			}
			i = end + 2
		case code[i] == '"' || code[i] == '\'':
			end := closing(code, i+1, string(code[i]), false)
			if end < 0 {
				return fmt.Errorf("a string at byte %d does not end on its line", i)
			}
			i = end
		case code[i] == '#':
			for i < len(code) && code[i] != '\n' {
				i++
			}
		}
	}
	if docstrings != 1 {
		return fmt.Errorf("%d docstrings, want 1", docstrings)
	}
	return nil
}

// tsComments checks a generated TypeScript file's comments: each ends at
// the end of a line, and no "*/" is outside a comment or a string (a
// comment ended early leaves its rest there). "*/" in a string literal
// type, and "/**" inside a comment, are fine.
func tsComments(code []byte) error {
	for i := 0; i < len(code); i++ {
		switch {
		case bytes.HasPrefix(code[i:], []byte("/*")):
			end := bytes.Index(code[i+2:], []byte("*/"))
			if end < 0 {
				return fmt.Errorf("a comment at byte %d does not end", i)
			}
			i += 2 + end + 1
			if i+1 < len(code) && code[i+1] != '\n' {
				return fmt.Errorf("a comment ended early, at byte %d", i-1)
			}
		case bytes.HasPrefix(code[i:], []byte("*/")):
			return fmt.Errorf("a comment's end outside a comment, at byte %d", i)
		case bytes.HasPrefix(code[i:], []byte("//")):
			for i < len(code) && code[i] != '\n' {
				i++
			}
		case code[i] == '"' || code[i] == '\'':
			end := closing(code, i+1, string(code[i]), false)
			if end < 0 {
				return fmt.Errorf("a string at byte %d does not end on its line", i)
			}
			i = end
		}
	}
	return nil
}

// closing is the index of the quote that ends a string begun before from
// (backslash escapes skipped); -1 if none, or, unless multiline, none
// before the line's end.
func closing(code []byte, from int, quote string, multiline bool) int {
	for j := from; j < len(code); j++ {
		switch {
		case code[j] == '\\':
			j++
		case code[j] == '\n' && !multiline:
			return -1
		case bytes.HasPrefix(code[j:], []byte(quote)):
			return j
		}
	}
	return -1
}

// TestCommentChecks: the checks of FuzzGenerate see a docstring or a
// comment that ends early, and take quotes and "*/" in strings.
func TestCommentChecks(t *testing.T) {
	for _, c := range []struct {
		lang, code string
		ok         bool
	}{
		{"py", "def f():\n    \"\"\"doc \\\"\\\"\\\" here\n    \"\"\"\n    return Literal[\"\\\"\\\"\\\"\", '#']\n", true},
		{"py", "def f():\n    \"\"\"doc \"\"\" here\n    \"\"\"\n", false},
		{"py", "def f():\n    \"\"\"a\n    \"\"\"\n    \"\"\"b\n    \"\"\"\n", false},
		{"py", "x = \"open\n", false},
		{"ts", "/**\n * a */\n */\nexport type T = \"*/\" | '/*';\n", false},
		{"ts", "/** a */ b */\n", false},
		{"ts", "/**\n * a /** b\n */\n  /** c *\\/ */\n  \"p\": \"*/\";\n", true},
	} {
		check := tsComments
		if c.lang == "py" {
			check = pyDocstrings
		}
		if err := check([]byte(c.code)); (err == nil) != c.ok {
			t.Errorf("%s %q: err = %v, want ok %v", c.lang, c.code, err, c.ok)
		}
	}
}
