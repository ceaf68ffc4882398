package jsonrpc

import (
	"bytes"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// scanThenValidate scans msg in pieces cut at cuts (LongStrings), then
// validates it from its first byte past white space, as ParseBody does.
func scanThenValidate(msg []byte, cuts []byte) (Envelope, bool, *LongStrings) {
	var s LongStrings
	rest, off := msg, 0
	for _, c := range cuts {
		n := min(int(c), len(rest))
		s.Scan(rest[:n])
		rest, off = rest[n:], off+n
	}
	s.Scan(rest)
	left := bytes.TrimLeft(msg, " \t\r\n") // as wire.ParseBody trims
	e, ok := ValidEnvelopeScanned(bytes.TrimRight(left, " \t\r\n"), &s, len(msg)-len(left))
	return e, ok, &s
}

// Validating a message whose long strings LongStrings found valid as it
// arrived, in pieces of any size, gives ValidEnvelope's answer: the same
// verdict and the same envelope.
func FuzzStringsThenValidEnvelope(f *testing.F) {
	long := strings.Repeat("abcdefgh", 8)
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + long + `"}}}`,
		` {"a":"` + long + `\n\"\\\/\b\f\r\t\u00e9` + long + `","b":["` + long + `",{"` + long + `":1}]} `,
		`{"a":"` + long + "\x01" + long + `"}`,
		`{"a":"` + long + `\x` + long + `"}`,
		`{"a":"` + long + `\u12g4"}`,
		`{"a":"` + long,
		`{"a" "` + long + `"}`,
		`{"a":["` + long + `" "` + long + `"]}`,
		`"` + long + `"`,
		`{"a":[{"b":1},{"c":"d"},{"e":"f"},{"g":"h"}],"i":"` + long + long + `"}`,
	} {
		f.Add([]byte(seed), []byte{3, 17, 1, 64})
	}
	old, oldProbe := longStringBytes, probeBytes
	longStringBytes, probeBytes = 8, 24
	defer func() { longStringBytes, probeBytes = old, oldProbe }()
	f.Fuzz(func(t *testing.T, msg, cuts []byte) {
		want, wantOK := ValidEnvelope(bytes.Trim(msg, " \t\r\n"))
		got, ok, s := scanThenValidate(msg, cuts)
		if ok != wantOK || !cmp.Equal(got, want) {
			t.Fatalf("%q in pieces %v (long strings %v): ValidEnvelopeScanned = %v %q, ValidEnvelope = %v %q", msg, cuts, s.long, ok, got, wantOK, want)
		}
	})
}

// A message whose first probeBytes are mostly short strings and numbers
// is not scanned further (8 MiB of small objects: the scan cost a third
// of the validation again and saved it nothing), and is validated whole
// as it would be unscanned; one that is mostly long strings is scanned
// to its end.
func TestScanStopsWhereLongStringsAreFew(t *testing.T) {
	long := strings.Repeat("abcdefgh", longStringBytes/8+1)
	rowsOf := func(n int) string { // n bytes or a little more of small objects, each with a comma
		return strings.Repeat(`{"id":12345,"ok":true,"tags":["a","b"]},`, n/40+1)
	}
	for _, tc := range []struct {
		name  string
		msg   string
		found int
	}{
		{"small objects, then a long string", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"rows":[` + rowsOf(2*probeBytes) + `{}],"text":"` + long + `"}}`, 0},
		{"a long string, then small objects", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"text":"` + strings.Repeat(long, probeBytes/len(long)+1) + `","rows":[` + rowsOf(2*probeBytes) + `{}],"more":"` + long + `"}}`, 1},
		{"long strings throughout", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"` + strings.Repeat(long, probeBytes/len(long)) + `","b":1,"c":"` + strings.Repeat(long, probeBytes/len(long)) + `"}}`, 2},
		// Past probeBytes in pieces, the string is still arriving: it is
		// judged when it ends, and it is most of the message.
		{"small objects, then a string longer than all of them", `{"jsonrpc":"2.0","id":1,"method":"m","params":{"rows":[` + rowsOf(probeBytes*3/4) + `{}],"text":"` + strings.Repeat(long, 8*probeBytes/len(long)) + `"}}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, cuts := range [][]byte{nil, {200, 200, 200, 200}, bytes.Repeat([]byte{255}, len(tc.msg)/255)} { // whole, and in pieces
				_, ok, s := scanThenValidate([]byte(tc.msg), cuts)
				if !ok || s.Found() != tc.found {
					t.Errorf("%d pieces: valid %v, %d long strings found; want valid, %d", len(cuts)+1, ok, s.Found(), tc.found)
				}
			}
		})
	}
}

// A long string found valid is not read again: the validator takes its
// end from LongStrings (here, one LongStrings holds for a string that is not
// valid, which only a LongStrings that had scanned other bytes could say).
func TestValidEnvelopeScannedSkipsLongStrings(t *testing.T) {
	long := strings.Repeat("a", longStringBytes)
	msg := []byte(`{"params":{"text":"` + long + `"}}`)
	var s LongStrings
	s.Scan(msg)
	if len(s.long) != 1 || s.long[0] != (span{18, 18 + len(long) + 2}) {
		t.Fatalf("long strings %v, want one at 18", s.long)
	}
	bad := bytes.Clone(msg)
	bad[100] = 0x01 // a control character in the string LongStrings found valid
	if _, ok := ValidEnvelope(bad); ok {
		t.Fatal("ValidEnvelope took a control character")
	}
	if e, ok := ValidEnvelopeScanned(bad, &s, 0); !ok || len(e.Params) != len(long)+11 {
		t.Errorf("ValidEnvelopeScanned read the string again: %v %d", ok, len(e.Params))
	}
}

// A line of ScanFrom bytes or more has its long strings found as Reader
// reads it, in the buffer it keeps and in the pieces past it alike, and
// DecodeOwnedScanned reads it as DecodeOwned does; a shorter line is not
// scanned.
func TestReaderScansLongLines(t *testing.T) {
	for _, size := range []int{ScanFrom / 2, 2 * ScanFrom, 3 * keepBuffer} {
		s := strings.Repeat("abcdefg ", size/16)
		line := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + s + `"},{"type":"text","text":"` + s + `\n\"x\""}]}}`
		rd := NewReader(iotest.HalfReader(strings.NewReader(line + "\n" + `{"jsonrpc":"2.0","id":8,"result":{}}` + "\n")))
		got, err := rd.ReadOwned()
		if err != nil || string(got) != line {
			t.Fatalf("%d: ReadOwned = %d bytes, %v", size, len(got), err)
		}
		scanned := rd.Scanned()
		switch {
		case len(line) < ScanFrom && scanned != nil:
			t.Errorf("%d: a line of %d bytes was scanned", size, len(line))
		case len(line) >= ScanFrom && (scanned == nil || scanned.Found() != 2):
			t.Errorf("%d: a line of %d bytes: %v long strings found, want 2", size, len(line), scanned)
		}
		msg, err := DecodeOwnedScanned(got, scanned)
		want, werr := DecodeOwned(bytes.Clone(got))
		if err != nil || werr != nil || !bytes.Equal(msg.ID, want.ID) || !bytes.Equal(msg.Result, want.Result) || msg.Method != want.Method || msg.Error != nil {
			t.Errorf("%d: DecodeOwnedScanned = %v, %v; DecodeOwned = %v", size, err, msg != nil, werr)
		}
		if next, err := rd.ReadOwned(); err != nil || rd.Scanned() != nil || !bytes.Contains(next, []byte(`"id":8`)) {
			t.Errorf("%d: the next line: %q, %v, scanned %v", size, next, err, rd.Scanned() != nil)
		}
	}
}

// A string of escapes is scanned in time linear in its length, as
// validString reads it: each escape used to search for the next quote to
// the end of the piece (a hostile review: 4.9 s for 1 MiB of "\n", about
// 80 s for a 4 MiB piece, which a chunked body's client chooses). The
// bound only proves nothing hangs: linear, 4 MiB takes milliseconds.
func TestScanOfEscapesIsLinear(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":"` +
		strings.Repeat(`\n`, 2<<20) + `"}}}`)
	start := time.Now()
	var s LongStrings
	s.Scan(msg)
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a 4 MiB string of escapes took %v to scan", took)
	}
	if s.Found() != 1 {
		t.Fatalf("%d long strings found, want 1", s.Found())
	}
	if _, ok := ValidEnvelopeScanned(msg, &s, 0); !ok {
		t.Error("not valid")
	}
}
