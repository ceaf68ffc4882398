package choice

import "strings"

// glob is an exact name or a pattern whose only wildcard is `*`, which
// matches any run of characters, the empty one included.
type glob string

// literal reports whether g has no wildcard.
func (g glob) literal() bool { return !strings.Contains(string(g), "*") }

// match reports whether name matches g in full. It runs in O(len(g) ×
// len(name)) at worst: each `*` extends the previous one's match only
// when the rest fails, so there is no backtracking explosion.
func (g glob) match(name string) bool {
	p := string(g)
	var star, next = -1, 0 // the last `*` in p, and where in name its run ends
	i, j := 0, 0
	for j < len(name) {
		switch {
		case i < len(p) && p[i] == '*':
			star, next = i, j
			i++
		case i < len(p) && p[i] == name[j]:
			i++
			j++
		case star >= 0:
			next++
			i, j = star+1, next
		default:
			return false
		}
	}
	for i < len(p) && p[i] == '*' {
		i++
	}
	return i == len(p)
}

// globs is a list of globs; nil and empty differ only to the caller.
type globs []glob

func (gs globs) match(name string) bool {
	for _, g := range gs {
		if g.match(name) {
			return true
		}
	}
	return false
}
