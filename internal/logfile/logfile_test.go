package logfile

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestLogIsRotated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gateway.log")
	log, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	line := strings.Repeat("z", 1000)
	for range (MaxMB + 2) << 10 { // a bit over MaxMB megabytes
		log.Line("chatty", line)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > MaxMB<<20 {
		t.Errorf("log is %d bytes, want at most %d", st.Size(), MaxMB<<20)
	}
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "gateway-*.log"))
	if len(old) == 0 {
		t.Error("no rotated file")
	}
}

func TestSecretsMaskedInEscapedForms(t *testing.T) {
	buf := &bytes.Buffer{}
	log := New(buf)
	secret := "pässwörd\"quote\nline2-secret"
	log.AddSecrets(secret)
	log.Logger().Info("tool dropped", "tool", "t-"+secret)
	log.Line("srv", `{"notif":"p\u00e4ssw\u00f6rd\"quote"}`)
	log.Line("srv", "second line: line2-secret")
	for _, form := range []string{"pässwörd", `p\u00e4ssw`, "line2-secret"} {
		if strings.Contains(buf.String(), form) {
			t.Errorf("log holds %q:\n%s", form, buf.String())
		}
	}
	_ = slog.Default
}

// A secret that starts with a shorter one is masked whole, whichever was
// added first, and a line's split holds back enough for the longest.
// Before, the forms were tried in the order they were added: "abcd-1234"
// then "abcd-1234-efgh" logged "[REDACTED]-efgh", and HoldBack was the
// first's length.
func TestLongerSecretMaskedWhole(t *testing.T) {
	buf := &bytes.Buffer{}
	log := New(buf)
	log.AddSecrets("abcd-1234")
	log.AddSecrets("abcd-1234-efgh")
	log.Line("srv", "key abcd-1234-efgh and abcd-1234.")
	if got, want := buf.String(), "[srv] key [REDACTED] and [REDACTED].\n"; !strings.HasSuffix(got, want) {
		t.Errorf("logged %q, want it to end %q", got, want)
	}
	if got, want := log.HoldBack(), len("abcd-1234-efgh")-1; got != want {
		t.Errorf("HoldBack = %d, want %d", got, want)
	}
	buf.Reset()
	log.Line("srv", "no secret here")
	if !strings.HasSuffix(buf.String(), "[srv] no secret here\n") {
		t.Errorf("a line without a secret became %q", buf.String())
	}
}

// A secret that a long line's split would cut in two is never logged in
// halves, whichever byte the split falls on, for server stderr (CopyLines)
// and for install output (Writer). Before, a 16 KiB split put both halves
// in the log, and one into the stderr tail that /health shows.
func TestSecretsSurviveLongLineSplits(t *testing.T) {
	const secret = "envsecretvalue_ABCDEFGHIJ"
	for off := maxLine - len(secret) - 2; off <= maxLine+2; off++ {
		line := strings.Repeat("a", off) + secret + strings.Repeat("b", 100) + "\n"
		for name, write := range map[string]func(l *Log){
			"stderr": func(l *Log) {
				var tails []string
				l.CopyLines("srv", strings.NewReader(line+line), func(s string) { tails = append(tails, l.Mask(s)) })
				if joined := strings.Join(tails, "|"); strings.Contains(joined, "envsec") || strings.Contains(joined, "ABCDEF") {
					t.Errorf("offset %d: the stderr tail holds part of the secret", off)
				}
			},
			"writer": func(l *Log) {
				w := l.Writer("srv")
				_, _ = w.Write([]byte(line[:off+3])) // split inside the secret, too
				_, _ = w.Write([]byte(line[off+3:]))
				w.Close()
			},
		} {
			buf := &bytes.Buffer{}
			l := New(buf)
			l.AddSecrets(secret)
			write(l)
			out := buf.String()
			if strings.Contains(out, "envsec") || strings.Contains(out, "ABCDEF") || !strings.Contains(out, secretMask) {
				t.Fatalf("%s, offset %d: the log holds part of the secret or no mask", name, off)
			}
			if got := strings.Count(out, "a") + strings.Count(out, "b"); got < (off+100)*strings.Count(line+line, "\n")/2 {
				t.Fatalf("%s, offset %d: %d of the line's bytes logged, some were lost", name, off, got)
			}
		}
	}
}

// TestClipMasksBeforeItCuts: a secret that straddles the cut is masked
// whole, not cut in two with its first half in the line (a plain cut
// followed by Mask would leak "sk-live-12"), and a cut never splits a
// UTF-8 character.
func TestClipMasksBeforeItCuts(t *testing.T) {
	l := New(io.Discard)
	l.AddSecrets("sk-live-1234567890")
	got := l.Clip("uri=https://x/?key=sk-live-1234567890&more", 30)
	if strings.Contains(got, "sk-live") || !strings.HasPrefix(got, "uri=https://x/?key=[REDACTED]") {
		t.Errorf("Clip = %q: want the secret masked before the cut", got)
	}
	if got, want := l.Clip("short", 30), "short"; got != want {
		t.Errorf("Clip(short) = %q, want %q", got, want)
	}
	got = l.Clip("ééééé", 3) // 10 bytes; byte 3 is inside the second é
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "é… (10 bytes)") {
		t.Errorf("Clip(ééééé, 3) = %q: want one whole é, then the length", got)
	}
}

// A server's line cannot forge another in the log: a carriage return or
// an escape sequence in it (shown by cat, tail -f and less -R as moving
// the cursor to overwrite the line's "[server]" prefix) is written
// escaped, as a newline already was. Tabs stay.
func TestControlCharactersAreEscaped(t *testing.T) {
	buf := &bytes.Buffer{}
	log := New(buf)
	log.AddSecrets("sec\rret-value")
	log.Line("srv", "ok\tcol\r2026-12-06T00:00:00.000Z [gateway] level=ERROR msg=forged\x1b[1A\x1b[2K\x00\x7f end sec\rret-value")
	out := buf.String()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("not one line: %q", out)
	}
	for _, c := range []byte{'\r', 0x1b, 0x00, 0x7f} {
		if strings.IndexByte(out, c) >= 0 {
			t.Errorf("the line holds byte %#x raw: %q", c, out)
		}
	}
	for _, want := range []string{"ok\tcol", `\r2026-12-06`, `\x1b[1A`, `\x00\x7f`, "[REDACTED]"} {
		if !strings.Contains(out, want) {
			t.Errorf("the line lacks %q: %q", want, out)
		}
	}
}

// A line's timestamp reads as time.AppendFormat with timeLayout writes
// it, whatever the instant's zone: UTC, to the millisecond.
func TestAppendStampIsTimeLayout(t *testing.T) {
	at := time.Date(2026, 12, 6, 9, 57, 54, 682_999_999, time.FixedZone("x", -7*3600))
	for _, tm := range []time.Time{at, at.Add(-time.Hour * 24 * 400), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), time.Date(12000, 1, 1, 0, 0, 0, 1e6, time.UTC), time.Now()} {
		if got, want := string(appendStamp(nil, tm)), tm.UTC().Format(timeLayout); got != want {
			t.Errorf("appendStamp(%v) = %s, want %s", tm, got, want)
		}
	}
}
