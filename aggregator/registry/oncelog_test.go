package registry

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestOnceLogger: a line is logged once in a build, not again in the
// next build while the generation it replaces had it, and again once a
// generation went without it.
func TestOnceLogger(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	build := func(prev map[string]bool, lines ...string) map[string]bool {
		once, seen := onceLogger(log, prev)
		for _, l := range lines {
			once.Info("tool renamed", "tool", l)
		}
		return seen
	}
	count := func(tool string) int { return strings.Count(out.String(), "tool="+tool+"\n") }
	first := build(nil, "a", "a", "b")
	second := build(first, "a", "b", "c")
	third := build(second, "c")
	build(third, "a", "c")
	for tool, want := range map[string]int{"a": 2, "b": 1, "c": 1} {
		if got := count(tool); got != want {
			t.Errorf("tool=%s logged %d times, want %d:\n%s", tool, got, want, out.String())
		}
	}
}
