package jsonrpc

import "bytes"

// LongStrings finds the long strings of a message as its bytes arrive,
// and checks their content as Valid would (no control character, every
// escape whole), so that validating the message once it is whole skips
// them (ValidEnvelopeScanned). A body is read in pieces as its client
// sends it, and a server's line as it writes it (Reader), and each piece
// is scanned while the next is on its way: the one pass over an 8 MiB
// argument or result that the floor proxy does not make overlaps the
// read instead of following it (issue 33: an argument's took 1.6 ms
// after the read, and 6 µs now, the read no longer).
//
// Outside a string every quote starts one, in any JSON, so the strings
// found are the strings the validator meets, as far as the message is
// valid; a string found invalid ends the scan, since the validator stops
// there too. Only strings of longStringBytes or more are kept, at most
// maxLongStrings of them. A message whose first probeBytes are mostly
// not long strings (8 MiB of small objects or numbers) ends the scan
// too: there, finding every short string's end as it arrives cost a
// third as much again as validating the message (19 ms against 27 for
// 8 MiB), and saved the validator nothing. The zero value is ready; Scan
// takes the message's bytes in order, in pieces of any size.
type LongStrings struct {
	n       int  // bytes scanned
	in      bool // inside a string, which started at start
	start   int
	escaped bool // after a backslash
	hex     int  // hex digits of a \u escape still to come
	stopped bool // an invalid string, too many long ones, or few: no more are kept
	long    []span
	inLong  int // bytes of the long strings kept
}

// span is a long string found valid: the message's bytes [start, end),
// from its opening quote to after its closing one.
type span struct{ start, end int }

// longStringBytes is the least a string kept by LongStrings holds:
// shorter ones cost the validator less than a lookup saves. Tests lower
// it.
var longStringBytes = 4 << 10

// ScanFrom is the least message whose long strings are worth finding as
// it arrives (a body, body.Reader; a server's line, Reader): below it, a
// string long enough to keep is rare, and the scan would cost what it
// saves.
const ScanFrom = 64 << 10

// maxLongStrings bounds what LongStrings keeps of one message.
const maxLongStrings = 64

// probeBytes is how much of a message LongStrings scans before it asks
// whether long strings hold at least half of it; past that, it goes on
// only while they do. Tests lower it.
var probeBytes = 256 << 10

// few reports whether so little of the message's first at bytes is long
// strings that the rest of the scan is not worth its cost. It is asked
// only between strings: a string still arriving is judged when it ends,
// so that 8 MiB of one, after 200 KiB of small objects, is not given up
// at its first 100 KiB (found by a hostile review: validating it after
// the read cost 1 ms more).
func (s *LongStrings) few(at int) bool {
	return at >= probeBytes && s.inLong < at/2
}

// Scan scans the next bytes of the message.
func (s *LongStrings) Scan(p []byte) {
	if !s.in && s.few(s.n) {
		s.stopped = true
	}
	base := s.n
	s.n += len(p)
	// The next quote, kept by plainRun as validString keeps it: a string
	// of escapes was searched to the piece's end at each one (a hostile
	// review: 4.9 s for 1 MiB of "\n", 80 s for 4 MiB).
	q := -1
	for i := 0; i < len(p) && !s.stopped; {
		if !s.in {
			k := bytes.IndexByte(p[i:], '"')
			if k < 0 {
				return
			}
			i += k + 1
			s.in, s.start, s.escaped, s.hex = true, base+i-1, false, 0
			continue
		}
		switch {
		case s.hex > 0:
			if !isHex(p[i]) {
				s.stopped = true
				return
			}
			s.hex--
			i++
		case s.escaped:
			switch p[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				s.hex = 4
			default:
				s.stopped = true
				return
			}
			s.escaped = false
			i++
		default:
			j := plainRun(p, i, &q)
			if j == len(p) {
				return // the string goes on in the next piece
			}
			switch p[j] {
			case '"':
				s.in = false
				if end := base + j + 1; end-s.start >= longStringBytes {
					if len(s.long) == maxLongStrings {
						s.stopped = true
						return
					}
					s.long = append(s.long, span{s.start, end})
					s.inLong += end - s.start
				} else if s.few(end) {
					s.stopped = true
					return
				}
			case '\\':
				s.escaped = true
			default: // a control character
				s.stopped = true
				return
			}
			i = j + 1
		}
	}
}

// Found is how many long strings s has found valid so far.
func (s *LongStrings) Found() int { return len(s.long) }

// scanned is what the validator knows of a message from LongStrings:
// the long strings found valid, from the next one it may meet; at is where
// the bytes it validates start in the message.
type scanned struct {
	long []span
	at   int
}

// end is the end of the string at b[i] when it is a long one found
// valid. The validator meets strings in order, so those before i are
// dropped.
func (k *scanned) end(i int) (int, bool) {
	i += k.at
	for len(k.long) > 0 && k.long[0].start < i {
		k.long = k.long[1:]
	}
	if len(k.long) > 0 && k.long[0].start == i {
		return k.long[0].end - k.at, true
	}
	return 0, false
}

// validStringKnown is validString, or the end of a long string k found
// valid (k may be nil).
func validStringKnown(b []byte, i int, k *scanned) (int, bool) {
	if k != nil {
		if end, ok := k.end(i); ok {
			return end, true
		}
	}
	return validString(b, i)
}
