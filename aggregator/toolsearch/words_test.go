package toolsearch

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWords(t *testing.T) {
	for in, want := range map[string][]string{
		"get_file_contents":           {"file", "content"},
		"maps_reverse-geocode":        {"map", "revers", "geocod"},
		"fs.readFile":                 {"fs", "read", "file"},
		"getHTTPServerURL2":           {"http", "server", "url2"},
		"open PRs, URLs and IDs":      {"open", "prs", "url", "id"},
		"listPRs HTTPServer":          {"list", "prs", "http", "server"},
		"list_pull_requests":          {"list", "pull", "request"},
		"Creating the repositories!":  {"creat", "repositori"},
		"created, creates, creation":  {"creat", "creat", "creat"},
		"response, responding":        {"respond", "respond"},
		"getting filled passed":       {"fill", "pass"},
		"directories, directory":      {"directori", "directori"},
		"searches searching searched": {"search", "search", "search"},
		"a to the of":                 nil,
		"café_ÜBER größe":             {"café", "über", "größe"},
		"":                            nil,
		"__--..":                      nil,
	} {
		if diff := cmp.Diff(want, words(nil, in)); diff != "" {
			t.Errorf("words(%q) (-want +got):\n%s", in, diff)
		}
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"getHTTPServer", "a_b-c.d", "ÀÉ\u0301x", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range words(nil, s) {
			if w == "" {
				t.Fatalf("words(%q) has an empty word", s)
			}
			// A word's words are itself: folding is idempotent on the index's terms
			// only in that no term splits again.
			if again := words(nil, w); len(again) > 1 {
				t.Fatalf("words(%q) gave %q, which splits into %q", s, w, again)
			}
		}
	})
}
