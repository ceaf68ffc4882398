package toolsearch

import (
	"regexp"
	"slices"
)

// hints are the words a query implies by its form, not its words: a
// file's name (notes.txt, README.md, Dockerfile) implies "file", two of
// them "multiple"; an owner/name pair (facebook/react) a repository; a
// name in code (os.Exit) code; "when" a time; a #channel a channel;
// lat/long coordinates; "the last five …" a list; "what's in …" the
// content; "file a bug" creating; and a question (what, which, who, is
// …) reads rather than writes, so it implies list, read, search, show
// and the tools annotated readOnlyHint, at questionWeight. A hint is one
// group of alternatives (queryGroups), each at its weight, and adds
// nothing when the query says one of its words itself.
var hints = []struct {
	words  []string
	weight float64
	found  func(query string) bool
}{
	{[]string{"file"}, relatedWeight, matches(fileName, 1)},
	{[]string{"multiple"}, relatedWeight, matches(fileName, 2)},
	{[]string{"repository"}, relatedWeight, func(q string) bool { return len(slugs(q)) > 0 }},
	{[]string{"code"}, relatedWeight, matches(regexp.MustCompile(`\b[a-z]\w*\.[A-Z]\w*`), 1)},
	{[]string{"time"}, relatedWeight, matches(regexp.MustCompile(`(?i)\bwhen\b`), 1)},
	{[]string{"channel"}, relatedWeight, matches(regexp.MustCompile(`(?:^|\s)#[A-Za-z][\w-]*`), 1)},
	{[]string{"coordinates", "latitude", "longitude"}, relatedWeight, matches(latLong, 1)},
	{[]string{"list"}, relatedWeight, matches(regexp.MustCompile(`(?i)\b(?:last|latest|recent|newest|oldest|first|top)\s+(?:few|several|\d+|two|three|four|five|six|seven|eight|nine|ten|twenty|hundred)\b`), 1)},
	{[]string{"content"}, relatedWeight, matches(regexp.MustCompile(`(?i)\bwhat(?:'s|s| is| was) in\b`), 1)},
	{[]string{"create"}, relatedWeight, matches(regexp.MustCompile(`(?i)\bfile\s+(?:a|an)\b`), 1)},
	{[]string{"list", "read", "search", "show", readOnly}, questionWeight, matches(regexp.MustCompile(`(?i)^\s*(?:what|what's|which|who|who's|whom|whose|where|how|is|are|was|were|did|does|do|has)\b|\?\s*$`), 1)},
}

// questionWeight is the weight of a question's hint: lower than a
// related word's, since a question only leans towards reading.
const questionWeight = 0.3

// matches reports whether re matches a query at least n times.
func matches(re *regexp.Regexp, n int) func(string) bool {
	return func(q string) bool { return len(re.FindAllStringIndex(q, n)) == n }
}

// fileName matches a file's name: a word and a short extension in one
// case (notes.txt, README.md, a.PDF, not os.Exit), or a name that
// conventionally has none (README, Dockerfile).
var fileName = regexp.MustCompile(`\w\.(?:[a-z][a-z0-9]{0,4}|[A-Z][A-Z0-9]{0,4})\b|\b(?:README|LICENSE|CHANGELOG|CONTRIBUTING|Dockerfile|Makefile|Gemfile|Procfile|Jenkinsfile)\b`)

// slug matches an owner/name pair (facebook/react, octocat/hello-world),
// and lat/long too, which slugs leaves out.
var slug = regexp.MustCompile(`\b[A-Za-z0-9][\w.-]*[A-Za-z0-9]/[A-Za-z0-9][\w.-]*[A-Za-z0-9]\b`)

// latLong matches lat/long, lat/lng and lat/lon.
var latLong = regexp.MustCompile(`(?i)\blat\s*/\s*(?:long|lng|lon)\b`)

// slugs returns the owner/name pairs in a query.
func slugs(q string) []string {
	return slices.DeleteFunc(slug.FindAllString(q, -1), latLong.MatchString)
}

// names returns the words of the names in a query (owner/name pairs,
// files' names): they name things, so they bring no related words
// ("react" in facebook/react is not a reaction).
func names(q string) []string {
	var out []string
	for _, m := range append(slugs(q), fileName.FindAllString(q, -1)...) {
		out = words(out, m)
	}
	return out
}
