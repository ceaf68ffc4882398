package logfile

import (
	"time"
)

// Lines written later (issue 24): a busy gateway writes one call line per
// call, and a write(2) of one line cost the calling goroutine ~5 µs of a
// ~45 µs call on the development machine, on the path of the next
// request of a keep-alive connection. LineLater queues the line for a
// goroutine of the Log's, which wakes once for what queues within
// laterDelay, and masks and writes it in one write: a call costs a
// channel send, and the writer a wake-up per batch, not per line. A line
// is never dropped: when the queue is full the caller waits for room;
// after Close it is written at once, as Line does.

// laterQueue is how many lines may wait for the writer.
const laterQueue = 4096

// laterBatch bounds the bytes of one write of queued lines.
const laterBatch = 64 << 10

// laterDelay is how long the writer lets lines gather after the first.
const laterDelay = 10 * time.Millisecond

// LineLater is Line, written by the Log's writer goroutine (started by
// the first call) shortly after, stamped with the time of the call; lines
// keep their order among themselves (later.go). Close writes the lines
// still queued and ends the writer.
func (l *Log) LineLater(source, text string) { l.later.add(l, source, text) }

// Close writes the lines queued by LineLater, reports the lines dropped
// but not yet reported, and closes the file; a Log made by New has nothing
// to close.
func (l *Log) Close() error {
	l.later.end()
	l.flushDrops()
	if l.closer != nil {
		return l.closer.Close()
	}
	return nil
}

// add queues a line of l for the writer (Log.LineLater), starting the
// writer at the first.
func (lt *later) add(l *Log, source, text string) {
	lt.once.Do(func() {
		lt.queue, lt.wake, lt.done = make(chan laterLine, laterQueue), make(chan struct{}, 1), make(chan struct{})
		go lt.run(l) // waited for by end, through done
	})
	at := time.Now()
	lt.mu.RLock()
	if lt.closed {
		lt.mu.RUnlock()
		if lt.done != nil {
			<-lt.done // the lines queued before Close first: they keep their order
		}
		l.Line(source, text)
		return
	}
	lt.queue <- laterLine{at: at, source: source, text: text}
	if !lt.pending.Swap(true) {
		lt.signal()
	}
	lt.mu.RUnlock()
}

func (lt *later) signal() {
	select {
	case lt.wake <- struct{}{}:
	default:
	}
}

// run writes l's queued lines, woken by the first of a batch, until the
// queue ends: what has queued after laterDelay, in writes of up to
// laterBatch bytes.
func (lt *later) run(l *Log) {
	defer close(lt.done)
	delay := time.NewTimer(laterDelay)
	for range lt.wake {
		delay.Reset(laterDelay)
		<-delay.C
		// Cleared before the queue is read: a line queued from here on
		// wakes the writer again (LineLater swaps pending after it queues).
		lt.pending.Store(false)
		if !lt.drain(l) {
			return
		}
	}
}

// drain writes what is queued now to l; false once the queue has ended.
// Lines are formatted into the writer's own buffer, kept from one drain
// to the next (at most laterBatch and a line).
func (lt *later) drain(l *Log) bool {
	b := lt.buf[:0]
	defer func() { lt.buf = b[:0] }()
	for {
		select {
		case next, ok := <-lt.queue:
			if !ok {
				l.write(b)
				return false
			}
			b = l.appendLine(b, next.at, next.source, next.text)
			if len(b) >= laterBatch {
				l.write(b)
				b = b[:0]
			}
		default:
			if len(b) > 0 {
				l.write(b)
			}
			return true
		}
	}
}

// end ends the queue and waits for the writer to write it.
func (lt *later) end() {
	lt.once.Do(func() {}) // a LineLater after this starts no writer, and writes at once
	lt.mu.Lock()
	started := lt.queue != nil && !lt.closed
	lt.closed = true
	if started {
		close(lt.queue)
		lt.signal()
	}
	lt.mu.Unlock()
	if started {
		<-lt.done
	}
}
