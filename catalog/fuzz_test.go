package catalog_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/catalog"
)

// FuzzParseCatalog checks that no catalog file makes Parse panic, nor any
// config properties make Resolve panic on an entry Parse accepted. An error
// has a message; a parsed entry is from the template, merges over the
// built-in catalog, and resolves either to an error or to an argv with a
// program, the same way twice.
//
// CI: go test -run '^$' -fuzz '^FuzzParseCatalog$' -fuzztime 30s ./catalog/
func FuzzParseCatalog(f *testing.F) {
	for _, tc := range parseRejectCases {
		f.Add([]byte(tc.doc), []byte(`{}`))
	}
	for _, tc := range resolveCases {
		f.Add([]byte(`{"x": `+tc.entry+`}`), []byte(tc.props))
	}
	if doc, err := os.ReadFile(filepath.Join("testdata", "override.json")); err == nil {
		f.Add(doc, []byte(`{"apiKey": "k", "days": 1e2, "regions": ["a"], "timezone": null}`))
	}
	f.Fuzz(func(t *testing.T, doc, propsDoc []byte) {
		c, err := catalog.Parse(doc, catalog.SourceTemplate)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("Parse(%q): error with an empty message", doc)
			}
			if c != nil {
				t.Fatalf("Parse(%q): a catalog along with the error", doc)
			}
			return
		}
		var props map[string]json.RawMessage
		_ = json.Unmarshal(propsDoc, &props) // nil props are fine too
		merged := catalog.Builtin().Merge(c)
		for _, name := range c.Names() {
			e, ok := merged.Lookup(name)
			if !ok || e.Source != catalog.SourceTemplate {
				t.Fatalf("Parse(%q): entry %q missing from the merge or not from the template", doc, name)
			}
			if len(e.Command) == 0 || len(e.Command[0]) == 0 || e.Command[0][0] == "" {
				t.Fatalf("Parse(%q): entry %q accepted with no program: %q", doc, name, e.Command)
			}
			r, _, err := e.Resolve(props)
			r2, _, err2 := e.Resolve(props)
			if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || !slices.Equal(r.Argv, r2.Argv) {
				t.Fatalf("entry %q: Resolve(%s) differs between two runs", name, propsDoc)
			}
			if err != nil {
				if err.Error() == "" {
					t.Fatalf("entry %q: Resolve(%s): error with an empty message", name, propsDoc)
				}
				continue
			}
			if len(r.Argv) == 0 || r.Argv[0] == "" {
				t.Fatalf("entry %q: Resolve(%s) = %q: no program", name, propsDoc, r.Argv)
			}
		}
	})
}
