package choice

import (
	"regexp"
	"strings"
	"testing"
)

// FuzzGlob checks glob.match against the regular expression the glob
// means: each `*` is .*, every other byte itself, anchored at both ends.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"a*c", "abcbc"}, {"*", ""}, {"get_*_x*", "get_a_xx"}, {"**a", "ba"}, {"a*b*c", "aXcYb"}, {"é*", "éa"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 64 || len(name) > 256 {
			return
		}
		parts := strings.Split(pattern, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		re, err := regexp.Compile(`(?s)\A` + strings.Join(parts, ".*") + `\z`)
		if err != nil {
			t.Skip()
		}
		// Byte-wise: regexp's . matches a rune, so compare on valid UTF-8 only.
		if !validUTF8(pattern) || !validUTF8(name) {
			return
		}
		if got, want := glob(pattern).match(name), re.MatchString(name); got != want {
			t.Fatalf("glob %q match %q = %v, want %v", pattern, name, got, want)
		}
	})
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
