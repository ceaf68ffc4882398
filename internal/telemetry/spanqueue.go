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
// a bounded queue, and one goroutine, run, writes them in OTLP's
// protobuf (otlpBatch) and has the OTLP exporter's client send them in
// batches (otlptrace.Client), so that a collector that is down or hangs
// costs the calls nothing (SPEC §11.3). A span that finds the queue full
// is dropped at once, and so is a batch the client fails or does not
// send within exportTimeout; both count in
// mcp_gateway_trace_spans_dropped_total.
//
// The queue is a slice of Span values under a mutex, and run is woken
// once wakeEvery spans have queued (or by its tick), not once per span:
// a channel between add and run readied run for every span, a futex wake
// and a scheduler pass on the other CPU each, to append one span to a
// batch. Nor is it woken only once a batch has queued: a span written
// is 370 bytes without a pointer, and its data goes back to the free
// list at once (newData), where a batch of spans waiting was a quarter
// of a MiB for the collector to scan. The free list is under the
// queue's mutex, which a span's End takes anyway: a sync.Pool, filled
// on the export goroutine's CPU and emptied on the calls', cost Start a
// steal from the other CPU's pool each time: half of what Start cost,
// under perf.
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
	free   []*spanData // emptied, for Start (at most freeMost); the export gives them back once written
	queued []*spanData // at most size, in the order they ended
	room   int         // how many more spans the batch takes before it is sent
	closed bool        // Shutdown has begun: spans ending now are dropped, uncounted
	size   int
	ready  chan struct{} // buffered 1: spans have queued for run

	most      int           // spans per export, at most
	wakeEvery int           // spans queued between two wakes of run: min(64, most)
	every     time.Duration // the longest a span waits for its batch
	timeout   time.Duration // one export's bound

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
	wakeEvery     = 64
	freeMost      = 4 * wakeEvery
	queueSize     = 2048
	batchSize     = 512
	batchDelay    = 5 * time.Second
	exportTimeout = 10 * time.Second
)

// ScopeName is the instrumentation scope of the gateway's spans.
const ScopeName = "github.com/mcp-gateway/mcp-gateway"

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
	q.wakeEvery, q.room = min(wakeEvery, q.most), q.most
	q.batch = newOTLPBatch(res, instrumentation.Scope{Name: ScopeName, Version: version})
	return q
}

// newData is a recording span's data, one the export gave back if it
// can.
func (q *spanQueue) newData() *spanData {
	var d *spanData
	q.mu.Lock()
	if n := len(q.free); n > 0 {
		d, q.free[n-1] = q.free[n-1], nil
		q.free = q.free[:n-1]
	}
	q.mu.Unlock()
	if d == nil {
		d = &spanData{}
	}
	return d
}

// freeLocked gives back spans' data, emptied, keeping at most freeMost:
// more than the spans a busy gateway has started and not yet written.
// q.mu is held.
func (q *spanQueue) freeLocked(ds []*spanData) {
	ds = ds[:min(len(ds), freeMost-len(q.free))]
	q.free = append(q.free, ds...)
}

// add queues an ended span, or drops it if the queue is full; it never
// waits but for the queue's mutex, and wakes run once wakeEvery spans
// have queued, or enough to fill the batch.
func (q *spanQueue) add(d *spanData) {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return
	}
	if len(q.queued) >= q.size {
		*d = spanData{}
		q.freeLocked([]*spanData{d})
		q.mu.Unlock()
		q.metrics.SpansDropped(1)
		return
	}
	q.queued = append(q.queued, d)
	full := len(q.queued)%q.wakeEvery == 0 || len(q.queued) == q.room
	q.mu.Unlock()
	if full {
		select {
		case q.ready <- struct{}{}:
		default: // run is woken already
		}
	}
}

// run writes what has queued into the batch each time wakeEvery spans
// have, sending the batch when it is full, and sends what there is at
// each tick and at a ForceFlush, until Shutdown; then it sends what is
// queued, within the shutdown's time, and returns. Its owner is the
// daemon's trace actor.
func (q *spanQueue) run() {
	if !q.running.CompareAndSwap(false, true) {
		return // shut down already
	}
	defer close(q.done)
	var spare []*spanData
	tick := time.NewTicker(q.every)
	defer tick.Stop()
	for {
		select {
		case <-q.ready:
			spare = q.exportQueued(spare, false)
		case <-tick.C:
			spare = q.exportQueued(spare, true)
		case reply := <-q.flush:
			spare = q.exportQueued(spare, true)
			close(reply)
		case <-q.stop:
			q.exportQueued(spare, true)
			return
		}
	}
}

// exportQueued takes what is queued, giving the queue spare (emptied) in
// its place, and writes it into the batch, sending each full batch, and
// what remains when all is true; it returns the slice it took, emptied,
// for the next turn: two slices take turns. It takes again what queued
// meanwhile if that fills the batch.
func (q *spanQueue) exportQueued(spare []*spanData, all bool) []*spanData {
	for again := true; again; {
		q.mu.Lock()
		taken := q.queued
		q.queued = spare[:0]
		q.mu.Unlock()
		for _, d := range taken {
			n := q.batch.add(d)
			*d = spanData{} // written: it points to nothing now
			if n == q.most {
				q.export()
			}
		}
		q.mu.Lock()
		q.freeLocked(taken)
		clear(taken)
		spare = taken[:0]
		q.room = q.most - q.batch.len()
		again = len(q.queued) >= q.room
		q.mu.Unlock()
	}
	if all && q.batch.len() > 0 {
		q.export()
		q.mu.Lock()
		q.room = q.most
		q.mu.Unlock()
	}
	return spare
}

// export sends the batch within q.timeout, and empties it; spans the
// client failed to send count as dropped.
func (q *spanQueue) export() {
	n := q.batch.len()
	ctx, cancel := context.WithTimeout(q.exports, q.timeout)
	err := q.client.UploadTraces(ctx, q.batch.request())
	cancel()
	q.batch.reset() // the client has marshalled it: the buffer is the batch's again
	if err != nil {
		q.metrics.SpansDropped(n)
		if now := time.Now(); now.Sub(q.lastWarn) >= time.Minute {
			q.lastWarn = now
			q.log.Warn("trace export failed; its spans are dropped (counted in mcp_gateway_trace_spans_dropped_total)",
				"spans", n, "error", err)
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
		q.exportQueued(nil, true)
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
