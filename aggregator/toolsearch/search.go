package toolsearch

import (
	"cmp"
	"slices"
)

// Limits of search_tools' limit (SPEC §4.10), and of its query: a
// request of a few words, not a document. Scoring costs about 2 µs a
// character of the query (its forms are read by regexps), so a query of
// megabytes would hold a core for seconds, past its client's patience.
const (
	DefaultLimit = 8
	MaxLimit     = 50
	MaxQuery     = 1000 // characters
)

// Query is one search_tools call's arguments.
type Query struct {
	Text   string // "query": what the agent wants to do, in words
	Limit  int    // "limit": 0 means DefaultLimit; more than MaxLimit means MaxLimit
	Server string // "server": only this server's tools; "" for all
}

// Hit is one tool found, with its BM25 score (higher is better; an exact
// name gets +Inf's stand-in, the best score plus one).
type Hit struct {
	Tool  Tool
	Score float64
}

// Search returns the tools that best match q, best first, at most
// q.Limit; ties keep server order. Tools that share no word with the
// query are not returned. A query with no words (empty, or only stop
// words) returns the tools in server order, those of q.Server if given,
// so that an agent can list what a server offers. A Server that owns no
// tool gives no hits.
func (ix *Index) Search(q Query) []Hit {
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = DefaultLimit
	case limit > MaxLimit:
		limit = MaxLimit
	}
	if q.Server != "" {
		if _, ok := ix.firstOf[q.Server]; !ok {
			return nil
		}
	}
	groups := queryGroups(q.Text)
	if len(groups) == 0 {
		var hits []Hit
		for _, t := range ix.tools {
			if len(hits) == limit {
				break
			}
			if q.Server == "" || t.Server == q.Server {
				hits = append(hits, Hit{Tool: t})
			}
		}
		return hits
	}
	n := len(ix.tools)
	scores := make([]float64, n)
	scratch := make([]float64, 3*n)
	best, rest, alt := scratch[:n], scratch[n:2*n], scratch[2*n:] // in each tool: a group's best alternative, the others' sum; an alternative's sum
	matched := make([]int32, 0, 64)
	inGroup := make([]int32, 0, 64)
	inAlt := make([]int32, 0, 64)
	// Groups, alternatives and terms in a fixed order (queryGroups): the
	// sum of a tool's score is then the same float on every run.
	for _, g := range groups {
		inGroup = inGroup[:0]
		for _, a := range g {
			inAlt = inAlt[:0]
			for _, wt := range a {
				idf := wt.weight * ix.idf[wt.term]
				for _, p := range ix.terms[wt.term] {
					tf := float64(p.tf)
					if alt[p.tool] == 0 {
						inAlt = append(inAlt, p.tool)
					}
					alt[p.tool] += idf * tf * (k1 + 1) / (tf + k1)
				}
			}
			for _, i := range inAlt {
				if best[i] == 0 {
					inGroup = append(inGroup, i)
				}
				if alt[i] > best[i] {
					best[i], alt[i] = alt[i], best[i]
				}
				rest[i] += alt[i]
				alt[i] = 0
			}
		}
		for _, i := range inGroup {
			if scores[i] == 0 {
				matched = append(matched, i)
			}
			scores[i] += best[i] + restWeight*rest[i]
			best[i], rest[i] = 0, 0
		}
	}

	exact, hasExact := ix.byName[q.Text]
	if hasExact {
		if scores[exact] == 0 {
			matched = append(matched, int32(exact))
		}
		best := 0.0
		for _, i := range matched {
			best = max(best, scores[i])
		}
		scores[exact] = best + 1
	}
	hits := make([]Hit, 0, min(len(matched), limit))
	slices.SortFunc(matched, func(a, b int32) int {
		if c := cmp.Compare(scores[b], scores[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, i := range matched {
		if len(hits) == limit {
			break
		}
		if t := ix.tools[i]; q.Server == "" || t.Server == q.Server {
			hits = append(hits, Hit{Tool: t, Score: scores[i]})
		}
	}
	return hits
}

// restWeight is how much the other alternatives of a query word's group
// count beside its best one in a tool (queryGroups): a tool that says
// both "find" and "search" is a better match than one that says either,
// but a word with many related words does not count many times.
const restWeight = 0.5
