package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// words splits s into the index's terms: runs of letters and digits,
// split again at camelCase (getFileInfo → get file info, HTTPServer →
// http server), lowercased, stop words dropped, endings folded (stem).
// It appends to out and returns it.
func words(out []string, s string) []string {
	start := -1
	var prev rune // the previous rune of the current run
	flush := func(end int) {
		if start >= 0 {
			if w := term(s[start:end]); w != "" {
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
		if start >= 0 && unicode.IsUpper(r) {
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && unicode.IsLower(next)) {
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

// term lowercases and folds one word; "" for a stop word.
func term(w string) string {
	w = strings.ToLower(w)
	if stop[w] {
		return ""
	}
	if w = stem(w); stop[w] {
		return "" // getting
	}
	return w
}

// stem folds the endings that most often separate a query's word from a
// description's: plurals, -ing, -ed and a final e (create, created,
// creating and creates all give creat). It is deliberately small: both
// sides are folded alike, so it need only be consistent, and it leaves
// words of three letters alone.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "ches"), strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		w = undouble(w[:len(w)-2])
	}
	if len(w) >= 4 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns "gett" (from getting) into "get"; a double l, s or z
// stays (filled, passed).
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// stop are the English words that carry no meaning in a search of tools.
var stop = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`a an the and or but if of to in on at by for from with without into onto
		is are was were be been being am do does did done have has had can could should would will shall may might must
		i me my mine we us our you your it its this that these those there here what which who whom whose when where how why
		all any some each every no not only own same so than too very just also as about via per etc
		please want need like get let let's use using used`) {
		stop[w] = true
	}
}
