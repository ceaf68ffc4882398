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
// detached, a task's) ends at once.
type Later struct {
	mu    sync.Mutex
	done  bool
	spans []laterSpan
}

type laterSpan struct {
	span trace.Span
	at   time.Time
}

type laterKey struct{}

// WithLater returns ctx carrying a new Later, and that Later.
func WithLater(ctx context.Context) (context.Context, *Later) {
	l := &Later{}
	return context.WithValue(ctx, laterKey{}, l), l
}

// EndLater ends sp now, as of now, or when the Later of ctx flushes.
func EndLater(ctx context.Context, sp trace.Span) {
	if l, ok := ctx.Value(laterKey{}).(*Later); ok {
		l.mu.Lock()
		if !l.done {
			l.spans = append(l.spans, laterSpan{sp, time.Now()})
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
	spans := l.spans
	l.spans = nil
	l.mu.Unlock()
	for _, s := range spans {
		s.span.End(trace.WithTimestamp(s.at))
	}
}
