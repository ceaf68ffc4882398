package logfile

// A line of the log: "<time> [<source>] <text>", masked (Line), written
// in one write; the daemon's own slog records as such lines (Logger); and
// the masking of every registered secret in it (SPEC §7.5).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Line writes one line from source. Newlines and the other control
// characters in text are escaped (escapeControls).
func (l *Log) Line(source, text string) {
	l.write(l.appendLine(make([]byte, 0, len(timeLayout)+len(source)+len(text)+8), time.Now(), source, text))
}

// timeLayout is a line's timestamp: RFC 3339, UTC, milliseconds.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// appendStamp appends at as timeLayout renders it (UTC, so the zone is
// always Z), digit by digit: AppendFormat's general layout walk was half
// the cost of a call line (issue 33). Years past 9999 have no four-digit
// form, and take AppendFormat's.
func appendStamp(b []byte, at time.Time) []byte {
	at = at.UTC()
	year, month, day := at.Date()
	if year < 0 || year > 9999 {
		return at.AppendFormat(b, timeLayout)
	}
	hour, minute, sec := at.Clock()
	ms := at.Nanosecond() / 1e6
	b = appendDigits(b, year, 4)
	b = appendDigits(append(b, '-'), int(month), 2)
	b = appendDigits(append(b, '-'), day, 2)
	b = appendDigits(append(b, 'T'), hour, 2)
	b = appendDigits(append(b, ':'), minute, 2)
	b = appendDigits(append(b, ':'), sec, 2)
	b = appendDigits(append(b, '.'), ms, 3)
	return append(b, 'Z')
}

// appendDigits appends n, 0 ≤ n < 10^width, in width digits.
func appendDigits(b []byte, n, width int) []byte {
	var d [4]byte
	for i := width - 1; i >= 0; i-- {
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, d[:width]...)
}

// appendLine appends the line of text from source at at to b, masked,
// its control characters escaped (escapeControls).
func (l *Log) appendLine(b []byte, at time.Time, source, text string) []byte {
	text = l.Mask(text)
	b = appendStamp(b, at)
	b = append(append(append(b, " ["...), source...), "] "...)
	return append(escapeControls(b, text), '\n')
}

// escapeControls appends text to b with its control characters but tab
// escaped: a newline as \n, the others as \r or \xNN. What a server
// prints then stays on its own line, behind its own "[server]" prefix: a
// carriage return or a cursor-moving escape sequence, written raw, let it
// overwrite that prefix where the log is read on a terminal (cat, tail
// -f, less -R) and pass for a line of the gateway's.
func escapeControls(b []byte, text string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(text); i++ { // bytes: no byte of a UTF-8 sequence is below 0x80
		c := text[i]
		if (c >= 0x20 || c == '\t') && c != 0x7f {
			continue
		}
		b = append(b, text[start:i]...)
		switch c {
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		default:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	return append(b, text[start:]...)
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

// write writes formatted lines in one write.
func (l *Log) write(lines []byte) {
	l.mu.Lock()
	_, _ = l.out.Write(lines)
	l.mu.Unlock()
}

// Masking (SPEC §7.5): a secret registered with AddSecrets is replaced by
// secretMask in every line, in each of the forms secretForms lists, and a
// long line is never split through one (Cut, HoldBack).
const (
	// secretMask replaces a secret wherever it would be written.
	secretMask = "[REDACTED]"
	// minSecretLen: shorter envs values are not masked; masking a one- or
	// two-letter value would garble every line and protect nothing.
	minSecretLen = 4
)

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
		m := &masking{}
		for i := 0; i < len(l.secrets); i += 2 {
			m.forms = append(m.forms, l.secrets[i])
		}
		// Longest first, for HoldBack, and so that the replacer, which
		// tries its strings in order, masks a secret whole, not a shorter
		// one inside it.
		slices.SortStableFunc(m.forms, func(a, b string) int { return len(b) - len(a) })
		pairs := make([]string, 0, 2*len(m.forms))
		for _, f := range m.forms {
			pairs = append(pairs, f, secretMask)
		}
		m.replacer = strings.NewReplacer(pairs...)
		l.masking.Store(m)
	}
}

// forms returns the forms of the registered secrets, longest first; nil
// when none.
func (l *Log) forms() []string {
	if m := l.masking.Load(); m != nil {
		return m.forms
	}
	return nil
}

// safeCut returns where a piece of text may end, at or before cut, without
// cutting through a secret: a long line is logged in pieces, and each piece
// is masked on its own, so a secret split between two pieces would reach
// the log (and the stderr tail in errors and /health) in two unmasked
// halves. An occurrence that straddles cut moves the cut to its start.
func (l *Log) safeCut(text string, cut int) int {
	forms := l.forms()
	if forms == nil {
		return cut
	}
	for moved := true; moved; {
		moved = false
		for _, f := range forms {
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
	forms := l.forms()
	if len(forms) == 0 {
		return 0
	}
	return len(forms[0]) - 1
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

// Mask returns text with every registered secret masked. A line that
// holds none is returned as it is: with a few forms registered (the
// token, a server's envs) looking for each is cheaper than the Replacer,
// which copies every line twice (a call line: 279 vs 637 ns, and no
// allocation instead of three).
func (l *Log) Mask(text string) string {
	m := l.masking.Load()
	if m == nil || len(m.forms) <= maxLookedFor && !containsAny(text, m.forms) {
		return text
	}
	return m.replacer.Replace(text)
}

// maxLookedFor is the most secret forms Mask looks for one by one before
// it replaces.
const maxLookedFor = 16

func containsAny(text string, forms []string) bool {
	for _, f := range forms {
		if strings.Contains(text, f) {
			return true
		}
	}
	return false
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

// Clip returns text masked (Mask) and, past n bytes, cut to at most n at
// a UTF-8 boundary and followed by "… (N bytes)", N the masked text's
// length: a piece of what a server sent, quoted in one log line. Masked
// before it is cut, a secret can never be cut in two and escape the mask.
func (l *Log) Clip(text string, n int) string {
	text = l.Mask(text)
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + "… (" + strconv.Itoa(len(text)) + " bytes)"
}
