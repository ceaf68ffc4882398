package proc

import (
	"strings"
	"sync"
)

// tail keeps the last n lines of a child's stderr for error messages.
type tail struct {
	mu    sync.Mutex
	n     int
	lines []string
}

func newTail(n int) *tail { return &tail{n: n} }

func (t *tail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	t.lines = append(t.lines, s)
	if len(t.lines) > t.n {
		t.lines = t.lines[len(t.lines)-t.n:]
	}
}

// String returns up to the last 10 lines, joined with " | ".
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if len(lines) > 10 {
		lines = lines[len(lines)-10:]
	}
	return strings.Join(lines, " | ")
}
