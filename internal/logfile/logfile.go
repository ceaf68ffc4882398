// Package logfile owns the daemon's log, /var/log/mcp-gateway.log by
// default (SPEC §7.4, §7.5, §10): one line per event, each prefixed with a
// timestamp and its source (a server's name, "gateway", "adapter:<file>");
// bounded in size by rotation (lumberjack), so a chatty server cannot fill
// the disk; and masking every registered secret (the token, each envs
// value) in every form it may take in a line (mask.go), so that no secret
// is written by the gateway or passed through from a server's stderr.
//
// Writes never block on a reader: the file is written synchronously, under
// one mutex, a line at a time; or, for LineLater's lines (the gateway's
// call lines), by a goroutine of the Log's, as many at a time as have
// queued (later.go). Each source other than the gateway writes
// within its share of the log (share.go): past it, its lines are dropped
// and counted, so one chatty server cannot rotate the others' lines out. A stream (a server's stderr, install and
// clone output) becomes lines through Writer or CopyLines, which split an
// over-long line into pieces without cutting through a secret.
package logfile

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/lines"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Log file rotation (SPEC §7.4): the file is rotated when it passes MaxMB
// megabytes, and Backups old files are kept, so a chatty server can use at
// most (Backups+1)×MaxMB MB of disk.
const (
	MaxMB   = 10
	Backups = 2
	// maxLine is the longest log line in bytes; a longer server line is
	// split into several, each marked with a trailing "…".
	maxLine = 16 << 10
)

// Log is the daemon's log (/var/log/mcp-gateway.log by default). Every line
// is "<RFC3339 time with ms> [<source>] <text>", where source is a server
// name, "gateway" for the daemon's own slog records, or "adapter:<file>".
// Secrets registered with AddSecrets are masked in every line (SPEC §7.5).
// Writes never block on a reader: the file is written synchronously.
type Log struct {
	mu      sync.Mutex
	out     io.Writer
	closer  io.Closer
	secrets []string                // each secret form and secretMask, in pairs (AddSecrets)
	masking atomic.Pointer[masking] // nil until a secret is added (mask.go)
	shares  shares                  // each source's share (share.go)
	later   later                   // lines written by a goroutine of the Log's (later.go)
}

// Open opens (creating its directory, mode 0755, and the file, mode 0600)
// the log file at path, rotated by size (MaxMB, Backups). An empty path
// logs to stderr, for `serve` in a container. Its errors are the
// *fs.PathError of the directory or the file.
func Open(path string) (*Log, error) {
	if path == "" {
		return New(os.Stderr), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	lj := &lumberjack.Logger{Filename: path, MaxSize: MaxMB, MaxBackups: Backups}
	return &Log{out: lj, closer: lj}, nil
}

// New logs to w, unbounded (tests, a caller that bounds w itself).
func New(w io.Writer) *Log { return &Log{out: w} }

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

// Line writes one line from source. Newlines in text are escaped.
func (l *Log) Line(source, text string) {
	l.write(l.appendLine(make([]byte, 0, len(timeLayout)+len(source)+len(text)+8), time.Now(), source, text))
}

// LineLater is Line, written by the Log's writer goroutine (started by
// the first call) shortly after, stamped with the time of the call; lines
// keep their order among themselves (later.go). Close writes the lines
// still queued and ends the writer.
func (l *Log) LineLater(source, text string) { l.later.add(l, source, text) }

// timeLayout is a line's timestamp: RFC 3339, UTC, milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// appendLine appends the line of text from source at at to b, masked.
func (l *Log) appendLine(b []byte, at time.Time, source, text string) []byte {
	text = strings.ReplaceAll(l.Mask(text), "\n", `\n`)
	b = at.UTC().AppendFormat(b, timeLayout)
	b = append(append(append(b, " ["...), source...), "] "...)
	return append(append(b, text...), '\n')
}

// write writes formatted lines in one write.
func (l *Log) write(lines []byte) {
	l.mu.Lock()
	_, _ = l.out.Write(lines)
	l.mu.Unlock()
}

// Logger returns a slog.Logger whose records become "[gateway]" lines:
// "<time> [gateway] level=INFO msg=… key=value …".
func (l *Log) Logger() *slog.Logger {
	h := slog.NewTextHandler(&recordWriter{l: l, source: "gateway"}, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})
	return slog.New(h)
}

type recordWriter struct {
	l      *Log
	source string
}

func (w *recordWriter) Write(p []byte) (int, error) {
	w.l.Line(w.source, string(bytes.TrimRight(p, "\n")))
	return len(p), nil
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
