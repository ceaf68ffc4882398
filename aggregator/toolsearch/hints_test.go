package toolsearch

import (
	"slices"
	"testing"
)

// TestHints checks which hints a query's form sets off, and that the
// words of names bring no related words.
func TestHints(t *testing.T) {
	hinted := func(q string) []string {
		var out []string
		for _, h := range hints {
			if h.found(q) {
				out = append(out, h.words[0])
			}
		}
		return out
	}
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"save this into notes.txt", []string{"file"}},
		{"show a.txt and b.txt", []string{"file", "multiple"}},
		{"grep for os.Exit", []string{"code"}},
		{"the lat/long of Paris", []string{"coordinates"}},
		{"fork facebook/react", []string{"repository"}},
		{"post in #general", []string{"channel"}},
		{"the last five commits", []string{"list"}},
		{"file a bug", []string{"create"}},
		{"which folders can I touch", []string{"list"}},
		{"have the server ask the model", nil},
		{"look at ~/Desktop/bug.png", []string{"file", "file", "system", "image"}},
		{"what's in ~/Downloads?", []string{"file", "system", "directory", "content", "list"}},
		{"the lat/long of 1600 Amphitheatre Parkway", []string{"coordinates", "address"}},
		{"who opened PR 3001", []string{"get", "list"}},
		{"pull up microsoft/vscode #5521", []string{"repository", "get", "open"}},
		{"what's 4821 + 3377?", []string{"sum", "list"}},
		{"stick a :tada: on it", []string{"reaction"}},
		{"get from King's Cross to Heathrow", []string{"direction"}},
		{"has Dana signed off on it", []string{"review", "list"}},
		{"where are all the .proto files", []string{"file", "search", "list"}},
		{"Jordan reports to Mei", []string{"relation"}},
		{"the latest on the EU AI Act", []string{"news"}},
		{"do you have anything on my dentist", []string{"memory", "list"}},
		{"rename notes/draft.md to notes/final.md", []string{"file", "multiple"}},
		{"change the name of it", []string{"move"}},
		{"where do they call MaxBytesReader", []string{"code", "list"}},
	} {
		if got := hinted(c.query); !slices.Equal(got, c.want) {
			t.Errorf("hints of %q: %v, want %v", c.query, got, c.want)
		}
	}
	if got := names("what's in the package.json of facebook/react"); !slices.Contains(got, "react") || !slices.Contains(got, "json") {
		t.Errorf("names: %v, want react and json among them", got)
	}
	for _, g := range queryGroups("fork facebook/react") {
		if g[0][0].term == "react" && len(g) != 1 {
			t.Errorf("react of facebook/react brings related words: %v", g)
		}
	}
	for _, q := range []string{"the lat/long of the Eiffel Tower", "look at ~/Desktop/bug.png", "rename notes/draft.md", "in a/b/c"} {
		if s := slugs(q); len(s) != 0 {
			t.Errorf("slugs of %q: %v, want none", q, s)
		}
	}
	if s := slugs("fork vercel/next.js and golang/go"); !slices.Equal(s, []string{"vercel/next.js", "golang/go"}) {
		t.Errorf("slugs: %v, want vercel/next.js and golang/go", s)
	}
	var files int
	for _, g := range queryGroups("look at ~/Desktop/bug.png") {
		if g[0][0].term == "file" {
			files++
		}
	}
	if files != 1 {
		t.Errorf("%d groups of file for a path and a file's name, want 1", files)
	}
}

// TestReadOnlyHint checks that a question leans towards a tool
// annotated readOnlyHint, and a command does not.
func TestReadOnlyHint(t *testing.T) {
	tools := []Tool{
		{Server: "s", Name: "note_a", Definition: []byte(`{"name":"note_a","description":"notes","annotations":{"readOnlyHint":false}}`)},
		{Server: "s", Name: "note_b", Definition: []byte(`{"name":"note_b","description":"notes","annotations":{"readOnlyHint":true}}`)},
	}
	ix := New(tools)
	if hits := ix.Search(Query{Text: "what notes"}); len(hits) != 2 || hits[0].Tool.Name != "note_b" {
		t.Errorf("a question: %v, want note_b first", hits)
	}
	if hits := ix.Search(Query{Text: "notes"}); len(hits) != 2 || hits[0].Tool.Name != "note_a" {
		t.Errorf("no question: %v, want server order, note_a first", hits)
	}
}
