// Package lines turns a byte stream (a server's stderr, an install's or an
// adapter's output) into log lines, so that the supervisor and the adapter
// loader split and cut them the same way.
package lines

import (
	"bytes"
	"sync"
)

// Splitter chooses where an over-long line is split into pieces. The
// supervisor's log implements it so that a split never cuts through a
// secret it masks: each piece is masked on its own.
type Splitter interface {
	// HoldBack is how many bytes past a split must have been seen before
	// the split is made: the longest secret form, less one.
	HoldBack() int
	// Cut returns where a piece of window may end, at most limit bytes in
	// and above 0; window extends at least HoldBack bytes past limit.
	Cut(window string, limit int) int
}

// Writer calls Line for each line written to it, without its "\n" and a
// trailing "\r". A line longer than Limit bytes is passed in pieces of
// about Limit bytes, each but the last ending in "…"; Split, if set,
// chooses the cuts. A partial last line is kept until the next newline or
// Close. It is safe for concurrent use.
type Writer struct {
	Line  func(text string)
	Limit int
	Split Splitter // nil: cut at Limit

	mu  sync.Mutex
	buf []byte
}

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.Line(string(bytes.TrimRight(w.buf[:i], "\r")))
		w.buf = w.buf[i+1:]
	}
	h := 0
	if w.Split != nil {
		h = w.Split.HoldBack()
	}
	for len(w.buf) > w.Limit+h {
		cut := w.Limit
		if w.Split != nil {
			// Only a window past the cut matters: a 100 MB write is not
			// copied once per piece.
			cut = w.Split.Cut(string(w.buf[:min(len(w.buf), w.Limit+2*h+2)]), w.Limit)
		}
		w.Line(string(w.buf[:cut]) + "…")
		w.buf = w.buf[cut:]
	}
	w.buf = bytes.Clone(w.buf) // do not keep a huge write's array for a short rest
	return len(p), nil
}

// Close passes a partial last line on. It never fails.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.Line(string(w.buf))
		w.buf = nil
	}
	return nil
}
