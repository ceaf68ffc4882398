package catalog_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcp-gateway/mcp-gateway/catalog"
)

// parseRejectCases are catalog files that must be refused (SPEC §6.2, issue
// 5): the message must contain every want substring, which name the entry
// and what is wrong. The fuzz target is seeded from it.
var parseRejectCases = []struct {
	name string
	doc  string
	want []string
}{
	// Malformed JSON, or not an object.
	{"empty", ``, []string{"parse catalog", "empty"}},
	{"whitespace", " \n ", []string{"parse catalog", "empty"}},
	{"truncated", `{"x": {"command": [["a"]]`, []string{"parse catalog", "unexpected end of JSON input"}},
	{"missing value", `{"x": }`, []string{"parse catalog", "invalid character"}},
	{"trailing garbage", `{"x": {"command": [["a"]]}} x`, []string{"parse catalog", "invalid character"}},
	{"trailing brace", `{"x": {"command": [["a"]]}}}`, []string{"parse catalog", "invalid character"}},
	{"array", `[]`, []string{"parse catalog", "want a JSON object keyed by server name, got an array"}},
	{"string", `"x"`, []string{"parse catalog", "got a string"}},
	{"number", `12`, []string{"parse catalog", "got a number"}},
	{"null", `null`, []string{"parse catalog", "want a JSON object keyed by server name, got null"}},
	{"not JSON", `catalog`, []string{"parse catalog: at byte", "invalid character"}},

	// An entry that is not an entry.
	{"entry null", `{"x": null}`, []string{`entry "x"`, "command is empty"}},
	{"entry number", `{"x": 3}`, []string{`entry "x"`, "decode entry", "cannot unmarshal number"}},
	{"entry empty name", `{"": {"command": [["a"]]}}`, []string{`entry ""`, "name is empty"}},
	{"entry name with newline", `{"a\nb": {"command": [["a"]]}}`, []string{`entry "a\nb"`, "control characters"}},
	{"unknown field", `{"x": {"command": [["a"]], "comand": [["b"]]}}`, []string{`entry "x"`, `unknown field "comand"`}},
	{"unknown property field", `{"x": {"command": [["a"]], "properties": {"p": {"type": "string", "requried": true}}}}`, []string{`entry "x"`, `unknown field "requried"`}},
	{"command a string", `{"x": {"command": "uvx srv"}}`, []string{`entry "x"`, "decode entry", "cannot unmarshal string"}},
	{"command flat list", `{"x": {"command": ["uvx", "srv"]}}`, []string{`entry "x"`, "decode entry"}},
	{"command number item", `{"x": {"command": [["uvx", 1]]}}`, []string{`entry "x"`, "decode entry"}},

	// An empty command.
	{"command missing", `{"x": {"description": "d"}}`, []string{`entry "x"`, "command is empty"}},
	{"command null", `{"x": {"command": null}}`, []string{`entry "x"`, "command is empty"}},
	{"command []", `{"x": {"command": []}}`, []string{`entry "x"`, "command is empty"}},
	{"command [[]]", `{"x": {"command": [[]]}}`, []string{`entry "x"`, "command is empty"}},
	{`command [[""]]`, `{"x": {"command": [[""]]}}`, []string{`entry "x"`, "command is empty"}},
	{`command [["", "a"]]`, `{"x": {"command": [["", "a"]]}}`, []string{`entry "x"`, "command is empty"}},
	{"command later group empty", `{"x": {"command": [["a"], []]}}`, []string{`entry "x"`, "command group 1 is empty"}},
	{"install step empty", `{"x": {"command": [["a"]], "install": [[]]}}`, []string{`entry "x"`, "install step 0 is empty"}},
	{"install program empty", `{"x": {"command": [["a"]], "install": [["npm", "ci"], [""]]}}`, []string{`entry "x"`, "install step 1 is empty"}},

	// An unknown property type, or a bad default.
	{"property type integer", `{"x": {"command": [["a"]], "properties": {"p": {"type": "integer"}}}}`, []string{`entry "x"`, `property "p"`, `unknown type "integer"`, "string, array, number or boolean"}},
	{"property type missing", `{"x": {"command": [["a"]], "properties": {"p": {}}}}`, []string{`entry "x"`, `property "p"`, `unknown type ""`}},
	{"property type object", `{"x": {"command": [["a"]], "properties": {"p": {"type": "object"}}}}`, []string{`entry "x"`, `unknown type "object"`}},
	{"property named tools", `{"x": {"command": [["a"]], "properties": {"tools": {"type": "array"}}}}`, []string{`entry "x"`, `property "tools" is reserved`, "to choose the server's tools"}},
	{"property named prompts", `{"x": {"command": [["a"]], "properties": {"prompts": {"type": "string"}}}}`, []string{`entry "x"`, `property "prompts" is reserved`}},
	{"tools at the top of an entry", `{"x": {"command": [["a"]], "tools": ["t"]}}`, []string{`entry "x"`, `unknown field "tools"`}},
	{"property not an object", `{"x": {"command": [["a"]], "properties": {"p": "string"}}}`, []string{`entry "x"`, "decode entry"}},
	{"number default string", `{"x": {"command": [["a"]], "properties": {"depth": {"type": "number", "default": "2"}}}}`, []string{`entry "x"`, `property "depth": default: want number, got a string`}},
	{"string default number", `{"x": {"command": [["a"]], "properties": {"p": {"type": "string", "default": 2}}}}`, []string{`entry "x"`, `property "p": default: want string, got a number`}},
	{"boolean default string", `{"x": {"command": [["a"]], "properties": {"v": {"type": "boolean", "default": "true"}}}}`, []string{`entry "x"`, `property "v": default: want boolean, got a string`}},
	{"array default string", `{"x": {"command": [["a"]], "properties": {"p": {"type": "array", "default": "/a"}}}}`, []string{`entry "x"`, `property "p": default: want array, got a string`}},
	{"array default number items", `{"x": {"command": [["a"]], "properties": {"p": {"type": "array", "default": [1]}}}}`, []string{`entry "x"`, `property "p": default:`, "non-string item"}},

	// A placeholder naming an undeclared property.
	{"command placeholder undeclared", `{"x": {"command": [["a"], ["--p", "{{p}}"]]}}`, []string{`entry "x"`, "{{p}}", "names no declared property"}},
	{"command placeholder other name", `{"x": {"command": [["a"], ["{{path}}"]], "properties": {"paths": {"type": "array"}}}}`, []string{`entry "x"`, "{{path}}"}},
	{"env placeholder undeclared", `{"x": {"command": [["a"]], "env": {"TOKEN": "{{token}}"}}}`, []string{`entry "x"`, "env TOKEN", "{{token}}", "names no declared property"}},
	{"program placeholder optional", `{"x": {"command": [["{{prog}}"]], "properties": {"prog": {"type": "string"}}}}`, []string{`entry "x"`, "{{prog}}", "first group"}},

	// env names.
	{"env name bad", `{"x": {"command": [["a"]], "env": {"A-B": "v"}}}`, []string{`entry "x"`, `env: variable name "A-B"`}},
	{"env name empty", `{"x": {"command": [["a"]], "env": {"": "v"}}}`, []string{`entry "x"`, `env: variable name ""`}},

	// Every bad entry is named, good ones do not hide them.
	{"two bad entries", `{"a": {"command": []}, "ok": {"command": [["a"]]}, "b": {"command": [["b"]], "properties": {"p": {"type": "int"}}}}`, []string{`entry "a"`, `entry "b"`, "command is empty", `unknown type "int"`}},
}

func TestParseRejects(t *testing.T) {
	for _, tc := range parseRejectCases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := catalog.Parse([]byte(tc.doc), catalog.SourceTemplate)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, nil error; want an error", tc.doc, c.Names())
			}
			if c != nil {
				t.Errorf("Parse(%q) returned a catalog along with the error", tc.doc)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse(%q) error = %q\nwant it to contain %q", tc.doc, err, w)
				}
			}
		})
	}
}

func TestBuiltin(t *testing.T) {
	c := catalog.Builtin()
	want := []string{"arxiv", "duckduckgo", "fetch", "filesystem", "memory", "sequentialthinking", "time"}
	if diff := cmp.Diff(want, c.Names()); diff != "" {
		t.Errorf("Names() (-want +got):\n%s", diff)
	}
	for _, name := range c.Names() {
		e, ok := c.Lookup(name)
		if !ok {
			t.Fatalf("Lookup(%q) failed", name)
		}
		if e.Source != catalog.SourceBuiltin {
			t.Errorf("%s: Source = %q, want %q", name, e.Source, catalog.SourceBuiltin)
		}
		if e.Description == "" || len(e.Install) == 0 {
			t.Errorf("%s: missing description or install", name)
		}
		props := map[string]json.RawMessage{}
		if name == "filesystem" {
			props["paths"] = json.RawMessage(`["/data"]`)
		}
		r, warns, err := e.Resolve(props)
		if err != nil || len(warns) != 0 {
			t.Errorf("%s: Resolve = %v, %q", name, err, warns)
		}
		if want := map[string]string{"arxiv": "uvx", "duckduckgo": "uvx", "fetch": "uvx", "time": "uvx"}[name]; want != "" && r.Argv[0] != want {
			t.Errorf("%s: program %q, want %q (SPEC §6.1)", name, r.Argv[0], want)
		}
	}
	if _, ok := c.Lookup("nope"); ok {
		t.Error(`Lookup("nope") succeeded`)
	}
}

func TestLoadMissingFile(t *testing.T) {
	for _, path := range []string{"", filepath.Join(t.TempDir(), "catalog.json"), filepath.Join(t.TempDir(), "no", "such", "dir", "catalog.json")} {
		c, err := catalog.Load(path)
		if err != nil {
			t.Fatalf("Load(%q): %v", path, err)
		}
		if diff := cmp.Diff(catalog.Builtin().Names(), c.Names()); diff != "" {
			t.Errorf("Load(%q) names (-want +got):\n%s", path, diff)
		}
		e, _ := c.Lookup("time")
		if e.Source != catalog.SourceBuiltin {
			t.Errorf("Load(%q): time Source = %q", path, e.Source)
		}
	}
}

func TestLoadOverride(t *testing.T) {
	c, err := catalog.Load(filepath.Join("testdata", "override.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"arxiv", "duckduckgo", "fetch", "filesystem", "memory", "sequentialthinking", "time", "weather"}
	if diff := cmp.Diff(want, c.Names()); diff != "" {
		t.Errorf("Names() (-want +got):\n%s", diff)
	}
	sources := map[string]catalog.Source{}
	for _, n := range c.Names() {
		e, _ := c.Lookup(n)
		sources[n] = e.Source
	}
	wantSources := map[string]catalog.Source{
		"arxiv": catalog.SourceBuiltin, "duckduckgo": catalog.SourceBuiltin, "fetch": catalog.SourceBuiltin,
		"filesystem": catalog.SourceBuiltin, "memory": catalog.SourceBuiltin, "sequentialthinking": catalog.SourceBuiltin,
		"time": catalog.SourceTemplate, "weather": catalog.SourceTemplate,
	}
	if diff := cmp.Diff(wantSources, sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}

	// The replaced entry is the template's, whole.
	tm, _ := c.Lookup("time")
	r, _, err := tm.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"uvx", "mcp-server-time==0.6.2", "--local-timezone", "UTC"}, r.Argv); diff != "" {
		t.Errorf("time argv (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"uv", "tool", "install", "mcp-server-time==0.6.2"}}, tm.Install); diff != "" {
		t.Errorf("time install (-want +got):\n%s", diff)
	}

	// The built-in catalog itself is unchanged.
	orig, _ := catalog.Builtin().Lookup("time")
	if orig.Source != catalog.SourceBuiltin || orig.Command[0][1] != "mcp-server-time" {
		t.Errorf("Builtin() changed by Load: %+v", orig)
	}
}

func TestLoadBadFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"malformed", `{"weather": {`, []string{"unexpected end of JSON input"}},
		{"empty command", `{"weather": {"command": []}}`, []string{`entry "weather"`, "command is empty"}},
		{"unknown type", `{"weather": {"command": [["w"]], "properties": {"days": {"type": "int"}}}}`, []string{`entry "weather"`, `unknown type "int"`}},
		{"bad default", `{"weather": {"command": [["w"]], "properties": {"days": {"type": "number", "default": "3"}}}}`, []string{`entry "weather"`, `property "days": default`}},
		{"undeclared placeholder", `{"weather": {"command": [["w", "{{days}}"]]}}`, []string{`entry "weather"`, "{{days}}"}},
		{"two bad entries", `{"a": {"command": []}, "b": {"command": [[""]]}}`, []string{`entry "a"`, `entry "b"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
			if err := os.WriteFile(path, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := catalog.Load(path)
			if err == nil {
				t.Fatalf("Load: %v, nil error", c.Names())
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load error = %q\nwant it to contain %q", err, w)
				}
			}
			for line := range strings.SplitSeq(err.Error(), "\n") {
				if !strings.HasPrefix(line, "load catalog file "+path+": ") {
					t.Errorf("Load error line %q does not name the file", line)
				}
			}
		})
	}

	t.Run("unreadable", func(t *testing.T) {
		_, err := catalog.Load(dir) // a directory
		if err == nil || !strings.Contains(err.Error(), "read catalog file "+dir) {
			t.Errorf("Load(directory) error = %v, want it to name the file", err)
		}
	})
}

func TestMerge(t *testing.T) {
	base := catalog.Builtin()
	over, err := catalog.Parse([]byte(`{"fetch": {"command": [["my-fetch"]]}, "extra": {"command": [["extra"]]}}`), catalog.SourceTemplate)
	if err != nil {
		t.Fatal(err)
	}
	m := base.Merge(over)
	if got := len(m.Names()); got != len(base.Names())+1 {
		t.Errorf("merged has %d names, want %d", got, len(base.Names())+1)
	}
	fetch, _ := m.Lookup("fetch")
	if fetch.Source != catalog.SourceTemplate || fetch.Command[0][0] != "my-fetch" {
		t.Errorf("fetch not replaced: %+v", fetch)
	}
	if _, ok := base.Lookup("extra"); ok {
		t.Error("Merge changed its receiver")
	}
}

// resolveCases expand one entry "x" (given as a catalog document) with the
// config's props. A row wants either argv/env/warns or an error with the
// substrings in wantErr.
var resolveCases = []struct {
	name    string
	entry   string
	props   string
	argv    []string
	env     map[string]string
	warns   []string
	wantErr []string
}{
	{
		name:  "a placeholder inside an argument or env value is passed as written, and said",
		entry: `{"command": [["srv", "--port={{port}}", "--fmt={{.Name}}"]], "env": {"URL": "http://h:{{port}}", "T": "{{port}}"}, "properties": {"port": {"type": "string", "default": "80"}}}`,
		props: `{}`,
		argv:  []string{"srv", "--port={{port}}", "--fmt={{.Name}}"},
		env:   map[string]string{"URL": "http://h:{{port}}", "T": "80"},
		warns: []string{
			`command argument "--port={{port}}" holds {{port}} inside it and is passed as written: a placeholder is replaced only as a whole argument (a flag, then "{{port}}" as the next)`,
			`env URL holds {{port}} inside its value and is passed as written: a placeholder is replaced only as the whole value`,
		},
	},
	{
		name:  "no properties",
		entry: `{"command": [["srv", "--stdio"]]}`,
		props: `{}`,
		argv:  []string{"srv", "--stdio"},
	},
	{
		name:  "array expands to one argument per item",
		entry: `{"command": [["srv"], ["{{paths}}"], ["--end"]], "properties": {"paths": {"type": "array", "required": true}}}`,
		props: `{"paths": ["/a", "/b c", ""]}`,
		argv:  []string{"srv", "/a", "/b c", "", "--end"},
	},
	{
		name:  "array inside a group",
		entry: `{"command": [["srv"], ["--roots", "{{paths}}", "--"]], "properties": {"paths": {"type": "array"}}}`,
		props: `{"paths": ["/a", "/b"]}`,
		argv:  []string{"srv", "--roots", "/a", "/b", "--"},
	},
	{
		name:  "unset optional drops the whole group",
		entry: `{"command": [["srv"], ["--storage-path", "{{storagePath}}"], ["--x"]], "properties": {"storagePath": {"type": "string"}}}`,
		props: `{}`,
		argv:  []string{"srv", "--x"},
	},
	{
		name:  "null is unset",
		entry: `{"command": [["srv"], ["--storage-path", "{{storagePath}}"]], "properties": {"storagePath": {"type": "string"}}}`,
		props: `{"storagePath": null}`,
		argv:  []string{"srv"},
	},
	{
		name:  "set optional keeps flag and value",
		entry: `{"command": [["srv"], ["--storage-path", "{{storagePath}}"]], "properties": {"storagePath": {"type": "string"}}}`,
		props: `{"storagePath": "/p"}`,
		argv:  []string{"srv", "--storage-path", "/p"},
	},
	{
		name:  "placeholder with spaces",
		entry: `{"command": [["srv"], ["--p", "{{ p }}"]], "properties": {"p": {"type": "string"}}}`,
		props: `{"p": "v"}`,
		argv:  []string{"srv", "--p", "v"},
	},
	{
		name:  "only whole-argument placeholders are replaced",
		entry: `{"command": [["srv", "--p={{p}}", "{{p}}x"], ["{{p}}"]], "properties": {"p": {"type": "string"}}}`,
		props: `{"p": "v"}`,
		argv:  []string{"srv", "--p={{p}}", "{{p}}x", "v"},
		warns: []string{`command argument "--p={{p}}" holds {{p}} inside it and is passed as written: a placeholder is replaced only as a whole argument (a flag, then "{{p}}" as the next)`, `command argument "{{p}}x" holds {{p}} inside it and is passed as written: a placeholder is replaced only as a whole argument (a flag, then "{{p}}" as the next)`},
	},
	{
		name:  "number default keeps its JSON spelling",
		entry: `{"command": [["srv"], ["--depth", "{{depth}}"]], "properties": {"depth": {"type": "number", "default": 9007199254740993}}}`,
		props: `{}`,
		argv:  []string{"srv", "--depth", "9007199254740993"},
	},
	{
		name:  "number value keeps its JSON spelling",
		entry: `{"command": [["srv"], ["--depth", "{{depth}}"]], "properties": {"depth": {"type": "number", "default": 2}}}`,
		props: `{"depth": 12345678901234567890123}`,
		argv:  []string{"srv", "--depth", "12345678901234567890123"},
	},
	{
		name:  "number with fraction and exponent",
		entry: `{"command": [["srv"], ["--t", "{{t}}"]], "properties": {"t": {"type": "number"}}}`,
		props: `{"t": -1.5e3}`,
		argv:  []string{"srv", "--t", "-1.5e3"},
	},
	{
		name:  "null default is no default",
		entry: `{"command": [["srv"], ["--depth", "{{depth}}"]], "properties": {"depth": {"type": "number", "default": null}}}`,
		props: `{}`,
		argv:  []string{"srv"},
	},
	{
		name:  "boolean true",
		entry: `{"command": [["srv"], ["--verbose", "{{verbose}}"]], "properties": {"verbose": {"type": "boolean"}}}`,
		props: `{"verbose": true}`,
		argv:  []string{"srv", "--verbose", "true"},
	},
	{
		name:  "boolean false",
		entry: `{"command": [["srv"], ["--verbose", "{{verbose}}"]], "properties": {"verbose": {"type": "boolean"}}}`,
		props: `{"verbose": false}`,
		argv:  []string{"srv", "--verbose", "false"},
	},
	{
		name:  "boolean default",
		entry: `{"command": [["srv"], ["--verbose={{verbose}}"], ["{{verbose}}"]], "properties": {"verbose": {"type": "boolean", "default": false}}}`,
		props: `{}`,
		argv:  []string{"srv", "--verbose={{verbose}}", "false"},
		warns: []string{`command argument "--verbose={{verbose}}" holds {{verbose}} inside it and is passed as written: a placeholder is replaced only as a whole argument (a flag, then "{{verbose}}" as the next)`},
	},
	{
		name:    "boolean wrong type",
		entry:   `{"command": [["srv"], ["{{verbose}}"]], "properties": {"verbose": {"type": "boolean"}}}`,
		props:   `{"verbose": "yes"}`,
		wantErr: []string{`property "verbose": want boolean, got a string`},
	},
	{
		name:    "number wrong type",
		entry:   `{"command": [["srv"], ["{{depth}}"]], "properties": {"depth": {"type": "number"}}}`,
		props:   `{"depth": "3"}`,
		wantErr: []string{`property "depth": want number, got a string`},
	},
	{
		name:  "env placeholders",
		entry: `{"command": [["srv"]], "env": {"TOKEN": "{{token}}", "MODE": "literal", "ROOTS": "{{paths}}", "DEPTH": "{{depth}}", "UNSET": "{{unset}}", "PARTIAL": "Bearer {{token}}"}, "properties": {"token": {"type": "string"}, "paths": {"type": "array"}, "depth": {"type": "number", "default": 2}, "unset": {"type": "string"}}}`,
		props: `{"token": "t0k", "paths": ["/a", "/b"]}`,
		argv:  []string{"srv"},
		env:   map[string]string{"TOKEN": "t0k", "MODE": "literal", "ROOTS": "/a,/b", "DEPTH": "2", "PARTIAL": "Bearer {{token}}"},
		warns: []string{`env PARTIAL holds {{token}} inside its value and is passed as written: a placeholder is replaced only as the whole value`},
	},
	{
		name:  "unknown property warns and is ignored",
		entry: `{"command": [["srv"], ["{{p}}"]], "properties": {"p": {"type": "string"}, "q": {"type": "string"}}}`,
		props: `{"p": "v", "zz": 1, "P": "w"}`,
		argv:  []string{"srv", "v"},
		warns: []string{`unknown property "P" ignored (known: p, q)`, `unknown property "zz" ignored (known: p, q)`},
	},
	{
		name:  "unknown property on an entry without properties",
		entry: `{"command": [["srv"]]}`,
		props: `{"x": 1}`,
		argv:  []string{"srv"},
		warns: []string{`unknown property "x" ignored (known: none)`},
	},
	{
		name:    "required missing",
		entry:   `{"command": [["srv"], ["{{paths}}"]], "properties": {"paths": {"type": "array", "required": true}}}`,
		props:   `{}`,
		wantErr: []string{`property "paths" is required`},
	},
	{
		name:    "required array empty",
		entry:   `{"command": [["srv"], ["{{paths}}"]], "properties": {"paths": {"type": "array", "required": true}}}`,
		props:   `{"paths": []}`,
		wantErr: []string{`property "paths" is required and must not be empty`},
	},
	{
		name:    "required string empty",
		entry:   `{"command": [["srv"], ["{{key}}"]], "properties": {"key": {"type": "string", "required": true}}}`,
		props:   `{"key": ""}`,
		wantErr: []string{`property "key" is required and must not be empty`},
	},
	{
		name:  "required with default",
		entry: `{"command": [["srv"], ["{{paths}}"]], "properties": {"paths": {"type": "array", "required": true, "default": ["/d"]}}}`,
		props: `{}`,
		argv:  []string{"srv", "/d"},
	},
	{
		name:    "every bad property named",
		entry:   `{"command": [["srv"]], "properties": {"a": {"type": "string"}, "b": {"type": "array", "required": true}}}`,
		props:   `{"a": 1}`,
		wantErr: []string{`property "a": want string, got a number`, `property "b" is required`},
	},
	{
		name:    "program from an empty required string",
		entry:   `{"command": [["{{prog}}"]], "properties": {"prog": {"type": "array", "required": true}}}`,
		props:   `{"prog": [""]}`,
		wantErr: []string{"command has no program"},
	},
}

func TestResolve(t *testing.T) {
	for _, tc := range resolveCases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := catalog.Parse([]byte(`{"x": `+tc.entry+`}`), catalog.SourceTemplate)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			e, _ := c.Lookup("x")
			var props map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.props), &props); err != nil {
				t.Fatal(err)
			}
			r, warns, err := e.Resolve(props)
			if diff := cmp.Diff(tc.warns, warns, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("Resolve(%s) = %q, nil error", tc.props, r.Argv)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error = %q\nwant it to contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%s): %v", tc.props, err)
			}
			if diff := cmp.Diff(tc.argv, r.Argv); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.env, r.Env, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadOverrideResolve(t *testing.T) {
	c, err := catalog.Load(filepath.Join("testdata", "override.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := c.Lookup("weather")
	r, warns, err := w.Resolve(map[string]json.RawMessage{
		"apiKey":  json.RawMessage(`"k"`),
		"verbose": json.RawMessage(`true`),
		"regions": json.RawMessage(`["eu", "us"]`),
	})
	if err != nil || len(warns) != 0 {
		t.Fatalf("Resolve: %v, %q", err, warns)
	}
	if diff := cmp.Diff([]string{"weather-mcp", "--days", "3", "--verbose", "true", "--", "eu", "us"}, r.Argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"WEATHER_API_KEY": "k", "WEATHER_MODE": "batch"}, r.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	// The key's value is masked in the log; the mode, a plain word, is not.
	if diff := cmp.Diff([]string{"k"}, r.Secrets); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	if _, _, err := w.Resolve(nil); err == nil || !strings.Contains(err.Error(), `property "apiKey" is required`) {
		t.Errorf("Resolve(nil) error = %v, want apiKey required", err)
	}
}

func TestFixedArgv(t *testing.T) {
	c, err := catalog.Parse([]byte(`{
	  "fs": {"description": "d", "command": [["npx", "-y", "@scope/fs"], ["{{paths}}"], ["--flag"]], "properties": {"paths": {"type": "array", "required": true}}},
	  "ax": {"description": "d", "command": [["uvx", "ax"], ["--storage", "{{p}}"]], "properties": {"p": {"type": "string"}}},
	  "all": {"description": "d", "command": [["node"], ["x.js", "--fast"]]}
	}`), catalog.SourceTemplate)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{"fs": {"npx", "-y", "@scope/fs"}, "ax": {"uvx", "ax"}, "all": {"node", "x.js", "--fast"}} {
		e, _ := c.Lookup(name)
		if got := e.FixedArgv(); !slices.Equal(got, want) {
			t.Errorf("%s: FixedArgv = %q, want %q", name, got, want)
		}
	}
}
