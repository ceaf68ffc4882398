package logfile

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// LineLater's lines are all written, masked, in their order among
// themselves; Close writes those still queued; after Close a line is
// written at once.
func TestLineLaterWritesEveryLineInOrder(t *testing.T) {
	l, written := newLockedLog()
	l.AddSecrets("sekrit-value")
	const n = 3 * laterQueue // more than the queue holds: callers wait, nothing is dropped
	var wg sync.WaitGroup
	for g := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range n {
				l.LineLater("gateway", fmt.Sprintf("g%d line %d sekrit-value", g, i))
			}
		}()
	}
	wg.Wait()
	l.Close()
	l.LineLater("gateway", "after close")
	out := written()
	if strings.Contains(out, "sekrit-value") {
		t.Fatal("a secret reached the log")
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2*n+1 || !strings.HasSuffix(lines[len(lines)-1], "[gateway] after close") {
		t.Fatalf("%d lines, want %d, the last one written after Close", len(lines), 2*n+1)
	}
	next := [2]int{}
	for _, line := range lines[:2*n] {
		var g, i int
		if _, err := fmt.Sscanf(line[strings.Index(line, "] ")+2:], "g%d line %d", &g, &i); err != nil || i != next[g] {
			t.Fatalf("line %q out of order (want g%d line %d)", line, g, next[g])
		}
		next[g]++
	}
}

// newLockedLog is a Log into memory that many goroutines may write, and
// what it has written so far.
func newLockedLog() (*Log, func() string) {
	var mu sync.Mutex
	var buf bytes.Buffer
	l := New(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}))
	return l, func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A line a caller writes while Close is draining the queue comes after
// that caller's lines still queued. Before, it was written at once, ahead
// of them (found by an adversarial review: 16 callers, Close among them).
func TestLineLaterKeepsOrderAcrossClose(t *testing.T) {
	for round := range 20 {
		l, written := newLockedLog()
		const callers, n = 16, 400
		var wg sync.WaitGroup
		for g := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n {
					pad := "" // every 97th line a batch long: the drain takes a while
					if i%97 == 0 {
						pad = strings.Repeat("x", laterBatch)
					}
					l.LineLater("gateway", fmt.Sprintf("g%d line %d %s", g, i, pad))
				}
			}()
		}
		l.Close() // while the callers write
		wg.Wait()
		next := make([]int, callers)
		for _, line := range strings.Split(strings.TrimSuffix(written(), "\n"), "\n") {
			var g, i int
			if _, err := fmt.Sscanf(line[strings.Index(line, "] ")+2:], "g%d line %d", &g, &i); err != nil || i != next[g] {
				t.Fatalf("round %d: line %.80q… out of order (want g%d line %d)", round, line, g, next[g])
			}
			next[g]++
		}
	}
}
