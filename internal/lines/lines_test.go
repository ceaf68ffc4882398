package lines

import (
	"strings"
	"testing"
)

// cutBefore is a Splitter that never cuts inside word.
type cutBefore struct{ word string }

func (c cutBefore) HoldBack() int { return len(c.word) - 1 }

func (c cutBefore) Cut(window string, limit int) int {
	lo := max(0, limit-len(c.word)+1)
	if i := strings.Index(window[lo:], c.word); i >= 0 && lo+i < limit {
		return lo + i
	}
	return limit
}

func TestWriter(t *testing.T) {
	var got []string
	w := &Writer{Line: func(s string) { got = append(got, s) }, Limit: 10}
	_, _ = w.Write([]byte("one\r\ntw"))
	_, _ = w.Write([]byte("o\n" + strings.Repeat("x", 25)))
	w.Close()
	want := []string{"one", "two", "xxxxxxxxxx…", "xxxxxxxxxx…", "xxxxx"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q, want %q", got, want)
	}

	// With a Splitter, no piece cuts through the word, at any offset.
	for off := 0; off < 12; off++ {
		got = nil
		w := &Writer{Line: func(s string) { got = append(got, s) }, Limit: 10, Split: cutBefore{"SECRET"}}
		_, _ = w.Write([]byte(strings.Repeat("a", off) + "SECRET" + strings.Repeat("b", 20) + "\n"))
		joined := strings.Join(got, "|")
		if !strings.Contains(joined, "SECRET") || strings.ReplaceAll(strings.ReplaceAll(joined, "…|", ""), "SECRET", "") != strings.Repeat("a", off)+strings.Repeat("b", 20) {
			t.Errorf("offset %d: pieces %q cut through the word or lost bytes", off, got)
		}
	}
}
