package toolsearch

import (
	"regexp"
	"strings"
	"sync"
)

// hints are the words a query implies by its form, not its words: a
// file's name (notes.txt, README.md, .env) or a path (~/code, a/b/c)
// implies "file", two names "multiple"; an owner/name pair
// (facebook/react) a repository; a name in code (os.Exit,
// MaxBytesReader) code; "change the name" a move; "when" a time; a
// #channel a channel; lat/long coordinates; a street address
// (1600 Amphitheatre Parkway) an address to geocode; a path on this
// machine (~/notes, /etc/hosts) the file system, and one without an
// extension (~/Downloads) a directory; an image's name (bug.png) an
// image; "PR 3001", "issue 77" or "#5521" getting one; "pull up"
// opening; "4821 + 3377" a sum; an emoji's :code: a reaction; "from
// King's Cross to Heathrow" directions; "signed off" a review; "all the
// .proto files" a search; "keep track", "do you have" memory; "reports
// to" a relation; "the latest on" news; "the last five …" a list;
// "what's in …" the content; "file a bug" creating; and a question
// (what, which, who, is …) reads rather than writes, so it implies list,
// read, search, show and the tools annotated readOnlyHint, at
// questionWeight. A hint is one group of alternatives (queryGroups),
// each at its weight; it adds nothing when the query says one of its
// words itself, and a second hint of the same words adds nothing.
var hints = []struct {
	words  []string
	weight float64
	found  func(query string) bool
}{
	{[]string{"file"}, relatedWeight, matches(fileName, 1)},
	{[]string{"multiple"}, relatedWeight, matches(fileName, 2)},
	{[]string{"repository"}, relatedWeight, func(q string) bool { return len(slugs(q)) > 0 }},
	{[]string{"code"}, relatedWeight, matches(identifier, 1)},
	{[]string{"file"}, relatedWeight, matches(path, 1)},
	{[]string{"move", "rename"}, relatedWeight, matches(compiled(`(?i)\b(?:change|update|fix|edit)\s+(?:the\s+|its\s+)?(?:file\s*)?name\b`), 1)},
	{[]string{"time"}, relatedWeight, matches(compiled(`(?i)\bwhen\b`), 1)},
	{[]string{"channel"}, relatedWeight, matches(compiled(`(?:^|\s)#[A-Za-z][\w-]*`), 1)},
	{[]string{"coordinates", "latitude", "longitude"}, relatedWeight, matches(latLong, 1)},
	{[]string{"address", "geocode"}, relatedWeight, matches(streetAddress, 1)},
	{[]string{"system"}, relatedWeight, matches(localPath, 1)},
	{[]string{"get"}, relatedWeight, matches(compiled(`(?i)\b(?:PR|MR|issue|pull request|merge request)\s*#?\d+|(?:^|\s)#\d+\b`), 1)},
	{[]string{"image", "media"}, relatedWeight, matches(compiled(`(?i)\w\.(?:png|jpe?g|gif|webp|svg|bmp|heic|tiff?)\b`), 1)},
	{[]string{"directory"}, relatedWeight, matches(compiled(`(?:^|\s)(?:~|\.{1,2})?/(?:[\w-]+/)*[\w-]*/?(?:[\s?!,]|$)`), 1)},
	{[]string{"reaction"}, relatedWeight, matches(compiled(`(?:^|\s):[a-z0-9_+-]+:(?:\s|$)`), 1)},
	{[]string{"direction"}, relatedWeight, matches(compiled(`\bfrom\s+[A-Z][\w'.-]*.*\bto\s+[A-Z]`), 1)},
	{[]string{"open", "read", "display"}, relatedWeight, matches(compiled(`(?i)\bpull(?:s|ed|ing)?\s+up\b`), 1)},
	{[]string{"review", "approve"}, relatedWeight, matches(compiled(`(?i)\bsign(?:s|ed)?[\s-]+off\b`), 1)},
	{[]string{"search"}, relatedWeight, matches(compiled(`(?i)(?:\*|\ball\s+(?:the\s+|my\s+|of\s+the\s+)?)\.[a-z0-9]+\b(?:\s+files)?`), 1)},
	{[]string{"memory", "remember", "entity"}, relatedWeight, matches(compiled(`(?i)\bkeep(?:s|ing)?\s+track\b|\b(?:do|did)\s+you\s+(?:have|know|remember)\b`), 1)},
	{[]string{"relation"}, relatedWeight, matches(compiled(`(?i)\breports?\s+to\b|\bworks?\s+(?:for|with)\s+[A-Z]`), 1)},
	{[]string{"news", "web"}, relatedWeight, matches(compiled(`(?i)\b(?:latest|news)\s+(?:on|about)\b`), 1)},
	{[]string{"sum", "add"}, relatedWeight, matches(compiled(`\d\s*\+\s*\d`), 1)},
	{[]string{"list"}, relatedWeight, matches(compiled(`(?i)\b(?:last|latest|recent|newest|oldest|first|top)\s+(?:few|several|\d+|two|three|four|five|six|seven|eight|nine|ten|twenty|hundred)\b`), 1)},
	{[]string{"content"}, relatedWeight, matches(compiled(`(?i)\bwhat(?:'s|s| is| was) in\b`), 1)},
	{[]string{"create"}, relatedWeight, matches(compiled(`(?i)\bfile\s+(?:a|an)\b`), 1)},
	{[]string{"list", "read", "search", "show", readOnly}, questionWeight, matches(compiled(`(?i)^\s*(?:what|what's|which|who|who's|whom|whose|where|how|is|are|was|were|did|does|do|has)\b|\?\s*$`), 1)},
}

// questionWeight is the weight of a question's hint: lower than a
// related word's, since a question only leans towards reading.
const questionWeight = 0.3

// matches reports whether re matches a query at least n times.
func matches(re func() *regexp.Regexp, n int) func(string) bool {
	return func(q string) bool { return len(re().FindAllStringIndex(q, n)) == n }
}

// compiled returns expr compiled on its first use rather than at the
// program's start, which every process of the binary (the keeper, the
// launcher, status) would pay for: 0.4 MB and 2 ms with related.go's
// table, for a search most of them never make.
func compiled(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// fileName matches a file's name: a word and a short extension in one
// case (notes.txt, README.md, a.PDF, not os.Exit), or a name that
// conventionally has none (README, Dockerfile).
var fileName = compiled(`\w\.(?:[a-z][a-z0-9]{0,4}|[A-Z][A-Z0-9]{0,4})\b|(?:^|\s)\.[a-z][\w.-]*|\b(?:README|LICENSE|CHANGELOG|CONTRIBUTING|Dockerfile|Makefile|Gemfile|Procfile|Jenkinsfile)\b`)

// slug matches an owner/name pair (facebook/react, octocat/hello-world),
// and lat/long and parts of paths too, which slugs leaves out.
var slug = compiled(`\b[A-Za-z0-9][\w.-]*[A-Za-z0-9]/[A-Za-z0-9][\w.-]*[A-Za-z0-9]\b`)

// streetAddress matches a street address: a number, then capitalised
// words, then a kind of street (1600 Amphitheatre Parkway, 10 Downing St).
var streetAddress = compiled(`\b\d+[A-Za-z]?\s+(?:[A-Z][\w'.-]*\s+)+(?:Street|St|Avenue|Ave|Road|Rd|Parkway|Pkwy|Boulevard|Blvd|Lane|Ln|Drive|Dr|Way|Place|Pl|Square|Sq|Court|Ct|Highway|Hwy)\b`)

// latLong matches lat/long, lat/lng and lat/lon.
var latLong = compiled(`(?i)\blat\s*/\s*(?:long|lng|lon)\b`)

// path matches a file system path that is not an owner/name pair:
// ~/code, ./src, ../a, /etc/hosts, a/b/c (notes/a.md is a fileName).
var path = compiled(`(?:~|\.{1,2})/[\w./-]*|~(?:\s|$)|(?:^|\s)/[\w.-]+(?:/[\w.-]+)*|\b[\w.-]+(?:/[\w.-]+){2,}`)

// localPath matches a path on this machine (~/notes, ./src, /etc/hosts),
// which implies the file system rather than a repository's files.
var localPath = compiled(`(?:^|\s)(?:~|\.{1,2})?/[\w.-]`)

// identifier matches a name in code: os.Exit, MaxBytesReader, readFile
// (a lower-case word then a capital, or two humps of capitals).
var identifier = compiled(`\b[a-z]\w*\.[A-Z]\w*|\b[a-z]+[A-Z]\w*|\b[A-Z][a-z0-9]+[A-Z][a-z0-9]+\w*`)

// slugs returns the owner/name pairs in a query: slug's matches that are
// not lat/long, not within a longer path (~/Desktop/bug.png, a/b/c) and
// whose name is not a document's file name (notes/draft.md).
func slugs(q string) []string {
	var out []string
	for _, m := range slug().FindAllStringIndex(q, -1) {
		s := q[m[0]:m[1]]
		switch {
		case latLong().MatchString(s),
			m[0] > 0 && strings.ContainsRune("/~.", rune(q[m[0]-1])),
			m[1] < len(q) && q[m[1]] == '/',
			document().MatchString(s):
			continue
		}
		out = append(out, s)
	}
	return out
}

// document matches a name that ends in a document's or a file's usual
// extension (a path, not a repository: next.js and socket.io are names).
var document = compiled(`(?i)\.(?:md|txt|png|jpe?g|gif|pdf|json|ya?ml|toml|csv|log|html?|css|go|py|rs|java|c|h|cpp|sh|env|docx?|xlsx?)$`)

// names returns the words of the names in a query (owner/name pairs,
// files' names): they name things, so they bring no related words
// ("react" in facebook/react is not a reaction).
func names(q string) []string {
	var out []string
	for _, m := range slugs(q) {
		out = words(out, m)
	}
	for _, re := range []func() *regexp.Regexp{fileName, path, identifier} {
		for _, m := range re().FindAllString(q, -1) {
			out = words(out, m)
		}
	}
	return out
}
