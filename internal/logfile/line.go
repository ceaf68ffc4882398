package logfile

// A line of the log: "<time> [<source>] <text>", masked (Line), and the
// daemon's own slog records as such lines (Logger).

import (
	"bytes"
	"log/slog"
	"strings"
	"time"
)

// Line writes one line from source. Newlines in text are escaped.
func (l *Log) Line(source, text string) {
	l.write(l.appendLine(make([]byte, 0, len(timeLayout)+len(source)+len(text)+8), time.Now(), source, text))
}

// timeLayout is a line's timestamp: RFC 3339, UTC, milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// appendLine appends the line of text from source at at to b, masked.
func (l *Log) appendLine(b []byte, at time.Time, source, text string) []byte {
	text = strings.ReplaceAll(l.Mask(text), "\n", `\n`)
	b = at.UTC().AppendFormat(b, timeLayout)
	b = append(append(append(b, " ["...), source...), "] "...)
	return append(append(b, text...), '\n')
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
