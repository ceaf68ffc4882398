package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Later holds the spans that end within a request, the client spans of
// its calls to servers, until its answer is written: the SDK's End
// (a snapshot of the span, its attributes deduplicated, the queue) then
// costs the caller nothing. Each span keeps the time it ended. A span
// that ends after the request has (a call that outlives it: parked,
// detached, a task's) ends at once. The zero Later is ready; it is held
// by value in what it belongs to (a request's record), and the first
// span is held without an allocation.
type Later struct {
	mu    sync.Mutex
	done  bool
	first laterSpan // a request's usual one call
	more  []laterSpan
}

type laterSpan struct {
	span trace.Span
	at   time.Time
}

type laterKey struct{}

// Within returns ctx carrying l: spans ended in it wait for l's Flush.
func (l *Later) Within(ctx context.Context) context.Context {
	return context.WithValue(ctx, laterKey{}, l)
}

// EndLater ends sp now, as of now, or when the Later of ctx flushes.
func EndLater(ctx context.Context, sp trace.Span) {
	if l, ok := ctx.Value(laterKey{}).(*Later); ok {
		l.mu.Lock()
		if !l.done {
			if s := (laterSpan{sp, time.Now()}); l.first.span == nil {
				l.first = s
			} else {
				l.more = append(l.more, s)
			}
			l.mu.Unlock()
			return
		}
		l.mu.Unlock()
	}
	sp.End()
}

// Flush ends the spans held, each as of when it ended; spans ending
// after it end at once. A nil Later has none.
func (l *Later) Flush() {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.done = true
	first, more := l.first, l.more
	l.first, l.more = laterSpan{}, nil
	l.mu.Unlock()
	if first.span != nil {
		first.span.End(trace.WithTimestamp(first.at))
	}
	for _, s := range more {
		s.span.End(trace.WithTimestamp(s.at))
	}
}
