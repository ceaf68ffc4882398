package logfile

import (
	"fmt"
	"io"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/lines"
	"golang.org/x/time/rate"
)

// The fair log (SPEC §7.4, issue 25): what a server writes (its stderr,
// its install and clone output, the stdout lines and log messages the
// gateway relays for it) is written at most at its share, so that one
// chatty server cannot rotate everyone else's lines out of the log: a
// 50 MiB/s stderr flood rotated the 10 MB file every 0.2 s. Past its
// share a source's lines are dropped and counted, and one gateway line a
// DropReportEvery says how many; the gateway's own lines (Line) are never
// dropped.

const (
	// DefaultShare is each source's share of the log, in bytes per second:
	// 64 KiB/s, with a burst of shareBurst seconds' worth, so that a
	// server's start-up banner or an install's output passes whole.
	DefaultShare = 64 << 10
	// shareBurst is how many seconds of its share a quiet source may
	// write at once.
	shareBurst = 16
	// DropReportEvery is the interval of the "dropped N lines" report.
	DropReportEvery = 10 * time.Second
)

// SetShare sets every source's share of the log to bytesPerSecond (0: no
// limit), from now on. Call it before the log is used (the daemon, as it
// opens the log).
func (l *Log) SetShare(bytesPerSecond int64) {
	l.shares.mu.Lock()
	defer l.shares.mu.Unlock()
	l.shares.rate = rate.Limit(bytesPerSecond)
	l.shares.burst = int(max(bytesPerSecond*shareBurst, 2*maxLine))
	l.shares.every = DropReportEvery
	l.shares.all = map[string]*share{}
}

// Output writes one line that source wrote (its stderr, or stdout the
// gateway relays), within source's share: past it, the line is dropped
// and counted (see SetShare).
func (l *Log) Output(source, text string) {
	if l.allow(source, len(text)) {
		l.Line(source, text)
	}
}

// allow takes n bytes from source's share, or counts a dropped line.
func (l *Log) allow(source string, n int) bool {
	s := &l.shares
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rate == 0 {
		return true
	}
	sh := s.all[source]
	if sh == nil {
		sh = &share{lim: rate.NewLimiter(s.rate, s.burst)}
		s.all[source] = sh
	}
	if sh.lim.AllowN(time.Now(), n+32) { // with the line's time and prefix
		return true
	}
	if sh.timer == nil {
		sh.timer = time.AfterFunc(s.every, func() { l.reportDrops(source) })
	}
	sh.lines++
	sh.bytes += int64(n)
	return false
}

// reportDrops writes source's dropped count for the interval just ended,
// and runs the next interval if it dropped any.
func (l *Log) reportDrops(source string) {
	s := &l.shares
	s.mu.Lock()
	sh := s.all[source]
	lines, bytes := sh.lines, sh.bytes
	sh.lines, sh.bytes = 0, 0
	if lines == 0 {
		sh.timer = nil
	} else {
		sh.timer.Reset(s.every)
	}
	perSecond := int64(s.rate)
	s.mu.Unlock()
	if lines > 0 {
		l.Line("gateway", dropLine(source, lines, bytes, perSecond))
	}
}

func dropLine(source string, lines, bytes, perSecond int64) string {
	noun := "lines"
	if lines == 1 {
		noun = "line"
	}
	return fmt.Sprintf("level=WARN msg=\"dropped %d %s from %s\" server=%q bytes=%d interval=%s "+
		"reason=\"past its share of the log, %d bytes/s (--log-share)\"", lines, noun, source, source, bytes, DropReportEvery, perSecond)
}

// flushDrops reports every pending drop count at once, and stops the
// timers (Close).
func (l *Log) flushDrops() {
	s := &l.shares
	s.mu.Lock()
	var pending []string
	for source, sh := range s.all {
		if sh.timer != nil {
			sh.timer.Stop()
			sh.timer = nil
			if sh.lines > 0 {
				pending = append(pending, dropLine(source, sh.lines, sh.bytes, int64(s.rate)))
			}
		}
	}
	s.mu.Unlock()
	for _, line := range pending {
		l.Line("gateway", line)
	}
}

// Writer returns a writer that logs each line written to it under source,
// within source's share (Output); a partial last line is kept until the
// next newline or Close. Over-long lines are split, never through a
// secret. Use it for install and clone output.
func (l *Log) Writer(source string) io.WriteCloser {
	return &lines.Writer{Line: func(text string) { l.Output(source, text) }, Limit: maxLine, Split: l}
}

// CopyLines logs r line by line under source, within source's share
// (Output), until EOF or an error, and calls tail (if not nil) with each
// line as read, before masking, dropped or not. Over-long
// lines are split, never dropped nor through a secret; the reader never
// blocks the writer beyond the time it takes to write a line. It returns
// when r does; a read error ends the copy like EOF.
func (l *Log) CopyLines(source string, r io.Reader, tail func(line string)) {
	w := &lines.Writer{Limit: maxLine, Split: l, Line: func(text string) {
		l.Output(source, text)
		if tail != nil {
			tail(text)
		}
	}}
	_, _ = io.Copy(w, r)
	w.Close()
}
