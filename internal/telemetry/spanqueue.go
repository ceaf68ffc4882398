package telemetry

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
)

// spanQueue is the export half of tracing (Tracer): ended Spans wait in
// a bounded queue, and one goroutine, run, makes them OTLP's messages
// (otlpBatch) and has the OTLP exporter's client send them in batches
// (otlptrace.Client), so that a collector that is down or
// hangs costs the calls nothing (SPEC §11.3). A span that finds the queue
// full is dropped at once, and so is a batch the exporter fails or does
// not take within exportTimeout; both count in
// mcp_gateway_trace_spans_dropped_total.
//
// The queue is a slice of Span values under a mutex, and run is woken
// once a batch has queued (or by its tick), not once per span: a channel
// between add and run readied run for every span, a futex wake and a
// scheduler pass on the other CPU each, to append one span to a batch.
//
// It does what the SDK's BatchSpanProcessor and its OTLP exporter do,
// but for the count, the wake-ups and the messages: that one keeps its
// dropped spans to itself (an experimental self-metric aside), and an
// operator needs to see that traces are being lost; and the exporter
// makes every span's messages anew.
type spanQueue struct {
	client  otlptrace.Client
	batch   *otlpBatch // run's own (Shutdown's, should run never begin)
	metrics *Metrics
	log     *slog.Logger

	mu     sync.Mutex
	queued []Span // at most size, in the order they ended
	closed bool   // Shutdown has begun: spans ending now are dropped, uncounted
	size   int
	ready  chan struct{} // buffered 1: a batch has queued

	most    int           // spans per export, at most
	every   time.Duration // the longest a span waits for its batch
	timeout time.Duration // one export's bound

	flush    chan chan struct{}
	exports  context.Context // every export's parent; Shutdown cancels it past its time
	cancel   context.CancelFunc
	stopOnce sync.Once
	running  atomic.Bool // run has begun, or Shutdown came first and run never will
	stop     chan struct{}
	done     chan struct{} // closed when run has returned

	lastWarn time.Time // run's own: failed exports are logged once a minute
}

// Queue sizes and times: the SDK's defaults, but a shorter export
// timeout, so that a hanging collector holds one batch for 10 s, not 30.
// The standard OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
// OTEL_BSP_SCHEDULE_DELAY and OTEL_BSP_EXPORT_TIMEOUT (milliseconds)
// change them.
const (
	queueSize     = 2048
	batchSize     = 512
	batchDelay    = 5 * time.Second
	exportTimeout = 10 * time.Second
)

// newSpanQueue makes the queue in front of client, sized from getenv's
// OTEL_BSP_* (a value that is not a positive integer is ignored); the
// spans it exports have resource res (nil: the SDK's default) and the
// gateway's scope at version.
func newSpanQueue(client otlptrace.Client, res *resource.Resource, version string, m *Metrics, log *slog.Logger, getenv func(string) string) *spanQueue {
	size := envInt(getenv, "OTEL_BSP_MAX_QUEUE_SIZE", queueSize)
	q := &spanQueue{client: client, metrics: m, log: log, size: size, ready: make(chan struct{}, 1),
		most:    min(envInt(getenv, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", batchSize), size),
		every:   envMillis(getenv, "OTEL_BSP_SCHEDULE_DELAY", batchDelay),
		timeout: envMillis(getenv, "OTEL_BSP_EXPORT_TIMEOUT", exportTimeout),
		flush:   make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	q.exports, q.cancel = context.WithCancel(context.Background())
	if res == nil {
		res = resource.Default()
	}
	q.batch = newOTLPBatch(res, instrumentation.Scope{Name: ScopeName, Version: version})
	return q
}

// add queues an ended span (a copy of s), or drops it if the queue is
// full; it never waits but for the queue's mutex, and wakes run when a
// batch has queued.
func (q *spanQueue) add(s *Span) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	if len(q.queued) >= q.size {
		q.mu.Unlock()
		q.metrics.SpansDropped(1)
		return
	}
	q.queued = append(q.queued, *s)
	full := len(q.queued)%q.most == 0
	q.mu.Unlock()
	if full {
		select {
		case q.ready <- struct{}{}:
		default: // run is woken already
		}
	}
}

// run exports batches until Shutdown: what has queued when a batch is
// ready, at each tick, and at a ForceFlush; then it exports what is
// queued, within the shutdown's time, and returns. Its owner is the
// daemon's trace actor.
func (q *spanQueue) run() {
	if !q.running.CompareAndSwap(false, true) {
		return // shut down already
	}
	defer close(q.done)
	var spare []Span
	tick := time.NewTicker(q.every)
	defer tick.Stop()
	for {
		select {
		case <-q.ready:
		case <-tick.C:
		case reply := <-q.flush:
			spare = q.exportQueued(spare)
			close(reply)
			continue
		case <-q.stop:
			q.exportQueued(spare)
			return
		}
		spare = q.exportQueued(spare)
	}
}

// exportQueued takes what is queued, giving the queue spare (emptied) in
// its place, exports it in batches, and returns it emptied for the next
// turn: two slices take turns.
func (q *spanQueue) exportQueued(spare []Span) []Span {
	q.mu.Lock()
	taken := q.queued
	q.queued = spare[:0]
	q.mu.Unlock()
	for rest := taken; len(rest) > 0; {
		n := min(len(rest), q.most)
		q.export(rest[:n])
		rest = rest[n:]
	}
	clear(taken)
	return taken[:0]
}

// export sends spans within q.timeout; spans the client failed to send
// count as dropped.
func (q *spanQueue) export(spans []Span) {
	ctx, cancel := context.WithTimeout(q.exports, q.timeout)
	err := q.client.UploadTraces(ctx, q.batch.fill(spans))
	cancel()
	q.batch.release() // the client has marshalled them: the messages are the batch's again
	if err != nil {
		q.metrics.SpansDropped(len(spans))
		if now := time.Now(); now.Sub(q.lastWarn) >= time.Minute {
			q.lastWarn = now
			q.log.Warn("trace export failed; its spans are dropped (counted in mcp_gateway_trace_spans_dropped_total)",
				"spans", len(spans), "error", err)
		}
	}
}

// ForceFlush exports what is queued and waits for it, or for ctx.
func (q *spanQueue) ForceFlush(ctx context.Context) error {
	reply := make(chan struct{})
	select {
	case q.flush <- reply:
	case <-q.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-reply:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown stops run after it has exported what is queued (or exports it
// itself, should run not have begun), waiting for it up to ctx (then the
// export in progress is cancelled, and run returns at once), and stops
// the client. Spans ending after it are dropped
// uncounted: the daemon is stopping.
func (q *spanQueue) Shutdown(ctx context.Context) error {
	q.stopOnce.Do(func() {
		q.mu.Lock()
		q.closed = true
		q.mu.Unlock()
		close(q.stop)
	})
	if q.running.CompareAndSwap(false, true) { // run never began, and now never will: what is queued goes here
		q.exportQueued(nil)
		close(q.done)
	}
	var err error
	select {
	case <-q.done:
	case <-ctx.Done():
		err = ctx.Err()
		q.cancel()
		<-q.done
	}
	q.cancel()
	return errors.Join(err, q.client.Stop(ctx))
}

// envMillis is a duration in milliseconds, at most a day; past it (a
// value whose nanoseconds overflow, which made the ticker panic) or not
// a positive integer, def.
func envMillis(getenv func(string) string, name string, def time.Duration) time.Duration {
	if ms := envInt(getenv, name, 0); ms > 0 && ms <= int(24*time.Hour/time.Millisecond) {
		return time.Duration(ms) * time.Millisecond
	}
	return def
}

func envInt(getenv func(string) string, name string, def int) int {
	n, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
	if err != nil || n <= 0 {
		return def
	}
	return n
}
