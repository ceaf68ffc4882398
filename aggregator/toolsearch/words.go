package toolsearch

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// words splits s into the index's terms: runs of letters and digits,
// split again at camelCase (getFileInfo → get file info, HTTPServer →
// http server, but PRs and URLs are plurals, not P Rs), lowercased, stop words dropped, endings folded (stem).
// It appends to out and returns it.
func words(out []string, s string) []string { return foldWords(out, s, nil) }

// foldWords is words with a cache of term, from a word as it is found
// to its term ("" for a stop word): New folds the same few thousand
// words again and again, and the stemmer is most of what it costs. A
// nil cache is none.
func foldWords(out []string, s string, cache map[string]string) []string {
	start := -1
	var prev rune // the previous rune of the current run
	flush := func(end int) {
		if start >= 0 {
			raw := s[start:end]
			w, ok := cache[raw]
			if !ok {
				w = term(raw)
				if cache != nil {
					cache[raw] = w
				}
			}
			if w != "" {
				out = append(out, w)
			}
		}
		start = -1
	}
	for i, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = 0
			continue
		}
		if start >= 0 && upper(r) {
			rest := s[i+utf8.RuneLen(r):]
			next, n := utf8.DecodeRuneInString(rest)
			after, _ := utf8.DecodeRuneInString(rest[n:])
			plural := next == 's' && !unicode.IsLetter(after) && !unicode.IsDigit(after) // PRs, URLs: an acronym's plural, not P Rs
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (upper(prev) && unicode.IsLower(next) && !plural) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	flush(len(s))
	return out
}

// upper reports whether r is an upper-case letter that lowercases to
// another (ϒ is upper case with no lower case: a term keeps it, and it
// must not split the term again).
func upper(r rune) bool { return unicode.IsUpper(r) && unicode.ToLower(r) != r }

// term lowercases and folds one word; "" for a stop word.
func term(w string) string {
	w = strings.ToLower(w)
	if stop()[w] {
		return ""
	}
	if w = stem(w); stop()[w] {
		return "" // getting
	}
	return w
}

// stem folds a word's endings with the Snowball English stemmer
// (Porter2): plurals, -ing, -ed, -ation and the like (create, created,
// creating and creates all give creat). Both sides, the tools and the
// query, are folded alike.
func stem(w string) string {
	s := english.Stem(w, true)
	if to, ok := conflate[s]; ok {
		return to
	}
	return s
}

// conflate joins the stems that Porter2 leaves apart for a verb and its
// noun (creation/create, modification/modify, response/respond): a tool
// "returns the creation time" answers "when was it created". General
// English derivation, stem to stem.
var conflate = map[string]string{
	"creation":  "creat",    // creation → create
	"modif":     "modifi",   // modification → modify
	"notif":     "notifi",   // notification → notify
	"respons":   "respond",  // response → respond
	"descript":  "describ",  // description → describe
	"subscript": "subscrib", // subscription → subscribe
	"summari":   "summar",   // summary → summarize
}

// stop are the English words that carry no meaning in a search of tools,
// made on first use (see compiled).
var stop = sync.OnceValue(func() map[string]bool {
	stop := map[string]bool{}
	for w := range strings.FieldsSeq(`a an the and or but if of to in on at by for from with without into onto
		is are was were be been being am do does did done have has had can could should would will shall may might must
		i me my mine we us our you your it its this that these those there here what which who whom whose when where how why
		all any some each every no not only own same so than too very just also as about via per etc
		please want need like get let let's use using used`) {
		stop[w] = true
	}
	return stop
})
