package registry

import (
	"context"
	"log/slog"
	"strings"
)

// onceHandler passes on each log record of a build once: not again in
// the same build, nor when the generation it replaces logged it. A merge
// runs whenever a server's list arrives or changes, and its lines (a
// tool renamed, dropped or exported prefixed, an entry's unmatched
// names, a URI two servers list, a template that is not RFC 6570) would
// otherwise be repeated at every one: three times at a start with three
// servers. The records it saw become the next build's prev.
type onceHandler struct {
	next slog.Handler
	prev map[string]bool // the lines the replaced generation logged
	now  map[string]bool // the lines of this build
}

// onceLogger is a logger over log's handler that logs each line once;
// seen gives the lines of this build when it is done.
func onceLogger(log *slog.Logger, prev map[string]bool) (once *slog.Logger, seen map[string]bool) {
	h := &onceHandler{next: log.Handler(), prev: prev, now: map[string]bool{}}
	return slog.New(h), h.now
}

func (h *onceHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *onceHandler) Handle(ctx context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String())
	b.WriteByte(' ')
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		b.WriteByte(' ')
		b.WriteString(a.String())
		return true
	})
	line := b.String()
	if h.now[line] {
		return nil
	}
	h.now[line] = true
	if h.prev[line] {
		return nil
	}
	return h.next.Handle(ctx, r)
}

func (h *onceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &onceHandler{next: h.next.WithAttrs(as), prev: h.prev, now: h.now}
}

func (h *onceHandler) WithGroup(name string) slog.Handler {
	return &onceHandler{next: h.next.WithGroup(name), prev: h.prev, now: h.now}
}
