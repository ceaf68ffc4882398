package supervisor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf16"

	"github.com/mcp-gateway/mcp-gateway/internal/lines"
	"gopkg.in/natefinch/lumberjack.v2"
)

// Log file rotation (SPEC §7.4): the file is rotated when it passes
// LogMaxMB megabytes, and LogBackups old files are kept, so a chatty server
// can use at most (LogBackups+1)×LogMaxMB MB of disk.
const (
	LogMaxMB   = 10
	LogBackups = 2
	// maxLogLine is the longest log line in bytes; a longer server line is
	// split into several, each marked with a trailing "…".
	maxLogLine = 16 << 10
	// secretMask replaces a secret wherever it would be written.
	secretMask = "[REDACTED]"
	// minSecretLen: shorter envs values are not masked; masking a one- or
	// two-letter value would garble every line and protect nothing.
	minSecretLen = 4
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
	secrets []string // pairs for strings.NewReplacer: form, secretMask, …
	mask    atomic.Pointer[strings.Replacer]
	forms   atomic.Pointer[[]string] // the secret forms alone, longest first
}

// OpenLog opens (creating its directory) the log file at path, rotated by
// size. An empty path logs to stderr, for `serve` in a container.
func OpenLog(path string) (*Log, error) {
	if path == "" {
		return NewLog(os.Stderr), nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	lj := &lumberjack.Logger{Filename: path, MaxSize: LogMaxMB, MaxBackups: LogBackups}
	return &Log{out: lj, closer: lj}, nil
}

// NewLog logs to w.
func NewLog(w io.Writer) *Log { return &Log{out: w} }

// Close closes the file.
func (l *Log) Close() error {
	if l.closer != nil {
		return l.closer.Close()
	}
	return nil
}

// AddSecrets masks these values from now on. Values shorter than 4 bytes
// are ignored.
func (l *Log) AddSecrets(values ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, v := range values {
		for _, form := range secretForms(v) {
			if len(form) >= minSecretLen {
				l.secrets = append(l.secrets, form, secretMask)
			}
		}
	}
	if len(l.secrets) > 0 {
		l.mask.Store(strings.NewReplacer(l.secrets...))
		var forms []string
		for i := 0; i < len(l.secrets); i += 2 {
			forms = append(forms, l.secrets[i])
		}
		l.forms.Store(&forms)
	}
}

// safeCut returns where a piece of text may end, at or before cut, without
// cutting through a secret: a long line is logged in pieces, and each piece
// is masked on its own, so a secret split between two pieces would reach
// the log (and the stderr tail in errors and /health) in two unmasked
// halves. An occurrence that straddles cut moves the cut to its start.
func (l *Log) safeCut(text string, cut int) int {
	fp := l.forms.Load()
	if fp == nil {
		return cut
	}
	for moved := true; moved; {
		moved = false
		for _, f := range *fp {
			lo, hi := max(0, cut-len(f)+1), min(len(text), cut+len(f)-1)
			if lo >= hi {
				continue
			}
			if i := strings.Index(text[lo:hi], f); i >= 0 && lo+i < cut {
				cut, moved = lo+i, true
			}
		}
	}
	return cut
}

// HoldBack is how many bytes at the end of a piece may be the start of a
// secret that the next piece completes: the longest secret form, less one
// (lines.Splitter).
func (l *Log) HoldBack() int {
	fp := l.forms.Load()
	if fp == nil || len(*fp) == 0 {
		return 0
	}
	return len((*fp)[0]) - 1
}

// Cut returns where a piece of an over-long line may end: at most limit
// bytes in, never inside a secret, nor where the rest could start one
// (lines.Splitter). The rest is then at most about twice the longest
// secret form past the limit.
func (l *Log) Cut(window string, limit int) int {
	cut := l.safeCut(window, max(1, min(limit, len(window)-l.HoldBack())))
	if cut <= 0 {
		cut = min(limit, len(window)) // only a line that starts with a secret longer than limit
	}
	return cut
}

// Mask returns text with every registered secret masked.
func (l *Log) Mask(text string) string {
	if m := l.mask.Load(); m != nil {
		return m.Replace(text)
	}
	return text
}

// Line writes one line from source. Newlines in text are escaped.
func (l *Log) Line(source, text string) {
	text = strings.ReplaceAll(l.Mask(text), "\n", `\n`)
	var b strings.Builder
	b.Grow(len(text) + len(source) + 32)
	b.WriteString(time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	b.WriteString(" [")
	b.WriteString(source)
	b.WriteString("] ")
	b.WriteString(text)
	b.WriteByte('\n')
	l.mu.Lock()
	_, _ = io.WriteString(l.out, b.String())
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

// Writer returns a writer that logs each line written to it under source;
// a partial last line is kept until the next newline or Close. Over-long
// lines are split, never through a secret. Use it for install and clone
// output.
func (l *Log) Writer(source string) io.WriteCloser {
	return &lines.Writer{Line: func(text string) { l.Line(source, text) }, Limit: maxLogLine, Split: l}
}

// copyLines logs r line by line under source until EOF or an error, and
// calls tail for each line. Over-long lines are split, never dropped nor
// through a secret; the reader never blocks the writer beyond the time it
// takes to write a line.
func copyLines(l *Log, source string, r io.Reader, tail func(string)) {
	w := &lines.Writer{Limit: maxLogLine, Split: l, Line: func(text string) {
		l.Line(source, text)
		if tail != nil {
			tail(text)
		}
	}}
	_, _ = io.Copy(w, r)
	w.Close()
}

// secretForms returns the ways a value may appear in a log line: as is,
// escaped as in a JSON string (with and without \u escapes for non-ASCII)
// or a Go string (slog quotes values), and the same for each line of a
// multi-line value. Longer forms come first, so they are replaced whole.
func secretForms(v string) []string {
	var forms []string
	for _, part := range append([]string{v}, strings.Split(v, "\n")...) {
		forms = append(forms, part)
		if j, err := json.Marshal(part); err == nil {
			forms = append(forms, string(j[1:len(j)-1]))
		}
		if q := strconv.Quote(part); len(q) > 2 {
			forms = append(forms, q[1:len(q)-1])
		}
		if q := strconv.QuoteToASCII(part); len(q) > 2 {
			forms = append(forms, q[1:len(q)-1])
		}
		forms = append(forms, asciiJSON(part))
	}
	slices.SortFunc(forms, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(forms)
}

// asciiJSON escapes s as a JSON string body with \uXXXX for non-ASCII, as
// Python's json.dumps and many servers write it.
func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
			} else {
				fmt.Fprintf(&b, "\\u%04x", r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
