package toolsearch

import "slices"

// weighted is one term of a query and its weight.
type weighted struct {
	term   string
	weight float64
}

// queryGroups returns the query's terms in groups, one per word of the
// query (in sorted order, each word once), each group a list of
// alternatives, each alternative the terms that are summed: the word
// itself at 1, then its related words (related.go; a phrase such as
// "pull request" one alternative of two terms) at relatedWeight, or 1
// for a word that means the same, leaving out terms the query has
// itself; a word of a name (names: facebook/react, package.json) brings
// none. Then one group for each hint the query's form implies (hints.go:
// "file" for notes.txt, list/read/search for a question), at the hint's
// weight, unless the query says one of its words. Search counts a group
// once, by its best alternative in each tool, so that a word with many
// related words does not outweigh a word with none.
func queryGroups(text string) [][][]weighted {
	own := words(nil, text)
	slices.Sort(own)
	own = slices.Compact(own)
	isOwn := func(w string) bool { _, ok := slices.BinarySearch(own, w); return ok }
	named := names(text)
	groups := make([][][]weighted, 0, len(own)+1)
	for _, w := range own {
		g := [][]weighted{{{w, 1}}}
		if slices.Contains(named, w) {
			groups = append(groups, g)
			continue
		}
		for _, alt := range related()[w] {
			wt := relatedWeight
			if alt.same {
				wt = 1
			}
			var a []weighted
			for _, r := range alt.terms {
				if !isOwn(r) {
					a = append(a, weighted{r, wt})
				}
			}
			if len(a) > 0 {
				g = append(g, a)
			}
		}
		groups = append(groups, g)
	}
	var hinted [][]string // the words of each hint added: two hints of "file" count once
	for _, h := range hints {
		if slices.ContainsFunc(hinted, func(ws []string) bool { return slices.Equal(ws, h.words) }) || !h.found(text) {
			continue
		}
		var g [][]weighted
		for _, w := range h.words {
			t := w
			if w != readOnly {
				t = term(w)
			}
			if isOwn(t) {
				g = nil
				break
			}
			g = append(g, []weighted{{t, h.weight}})
		}
		if len(g) > 0 {
			groups = append(groups, g)
			hinted = append(hinted, h.words)
		}
	}
	return groups
}
