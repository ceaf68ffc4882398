package jsonrpc

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestReaderOverLongLines(t *testing.T) {
	long := `{"id":7,"result":"` + strings.Repeat("a", 3000) + `"}`
	rd := NewReader(strings.NewReader("short\n" + long + "\nnext\n"))
	rd.Max = 1024
	want := func(what string, line []byte, err error, wantLine string) {
		t.Helper()
		if err != nil || string(line) != wantLine {
			t.Fatalf("%s: %q, %v; want %q", what, line, err, wantLine)
		}
	}
	line, err := rd.ReadLine()
	want("first", line, err, "short")
	// As it crosses the limit: the head, with the id.
	_, err = rd.ReadLine()
	var e *LineTooLongError
	if !errors.As(err, &e) || !e.Partial || !strings.HasPrefix(string(e.Head), `{"id":7,`) {
		t.Fatalf("crossing: %v %+v", err, e)
	}
	// As it ends: its size and tail.
	_, err = rd.ReadLine()
	if !errors.As(err, &e) || e.Partial || e.Size != int64(len(long)+1) || !strings.HasSuffix(string(e.Tail), `aaa"}`) {
		t.Fatalf("end: %v %+v", err, e)
	}
	line, err = rd.ReadLine()
	want("after", line, err, "next")
	if _, err = rd.ReadLine(); err != io.EOF {
		t.Fatalf("end of stream: %v", err)
	}
}

// A line that never ends is given up after MaxSkip bytes, instead of being
// read (and the call it answers waited for) forever.
func TestReaderUnterminatedLine(t *testing.T) {
	rd := NewReader(io.MultiReader(strings.NewReader(strings.Repeat("x", 1<<20)), endless{}))
	rd.Max, rd.MaxSkip = 1024, 64<<10
	var e *LineTooLongError
	for i := 0; ; i++ {
		_, err := rd.ReadLine()
		if errors.As(err, &e) && e.Unterminated {
			break
		}
		if i > 10 || (err != nil && !errors.As(err, &e)) {
			t.Fatalf("read %d: %v", i, err)
		}
	}
	if e.Size < 64<<10 || e.Size > 1<<20 {
		t.Errorf("gave up after %d bytes, want just past 64 KiB", e.Size)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// Long lines come whole and exact from Alloc; an owned short line is a
// buffer of its own; a line Alloc refuses is dropped like an over-long
// one, with its cause, and the stream goes on.
func TestReaderAllocOwnedAndRefused(t *testing.T) {
	long := `{"id":3,"result":"` + strings.Repeat("b", 3<<20) + `"}`
	refuse := `{"id":4,"result":"` + strings.Repeat("c", 2<<20) + `"}`
	rd := NewReader(strings.NewReader("short\r\n" + long + "\n" + refuse + "\nlast"))
	var allocs []int
	errNoRoom := errors.New("no room")
	rd.Alloc = func(n int) ([]byte, error) {
		allocs = append(allocs, n)
		if len(allocs) > 5 && n > 1<<20 {
			return nil, errNoRoom
		}
		return make([]byte, n), nil
	}
	line, err := rd.ReadOwned()
	if err != nil || string(line) != "short" || cap(line) != len("short") {
		t.Fatalf("owned short line: %q (cap %d), %v", line, cap(line), err)
	}
	line, err = rd.ReadOwned()
	if err != nil || string(line) != long || cap(line) != len(long) {
		t.Fatalf("long line: %d bytes (cap %d), %v; want %d exact", len(line), cap(line), err, len(long))
	}
	held := 0
	for _, n := range allocs[1:] {
		held += n
	}
	if held > 2*len(long)+maxPiece {
		t.Errorf("a %d-byte line took %d bytes from Alloc (%v), want about twice", len(long), held, allocs)
	}
	var e *LineTooLongError
	if _, err = rd.ReadOwned(); !errors.As(err, &e) || !errors.Is(e.Cause, errNoRoom) || !strings.HasPrefix(string(e.Head), `{"id":4,`) {
		t.Fatalf("refused line: %v %+v", err, e)
	}
	if _, err = rd.ReadOwned(); !errors.As(err, &e) || e.Partial || !errors.Is(e.Cause, errNoRoom) || !strings.HasSuffix(string(e.Tail), `cc"}`) {
		t.Fatalf("refused line's end: %v %+v", err, e)
	}
	rd.Alloc = nil
	if line, err = rd.ReadLine(); err != nil || string(line) != "last" {
		t.Fatalf("after: %q, %v", line, err)
	}
}

// A long line's buffer comes from Fill, holding the line without its
// end (here \r\n) in the parts given; a short owned line does not use it.
func TestReaderFillsLongLines(t *testing.T) {
	long := `{"id":3,"result":"` + strings.Repeat("b", 3<<20) + `"}`
	rd := NewReader(strings.NewReader("short\n" + long + "\r\n"))
	rd.Alloc = func(n int) ([]byte, error) { return make([]byte, n), nil }
	var fills [][]int
	rd.Fill = func(parts [][]byte) ([]byte, error) {
		var sizes []int
		for _, p := range parts {
			sizes = append(sizes, len(p))
		}
		fills = append(fills, sizes)
		return bytes.Join(parts, nil), nil
	}
	if line, err := rd.ReadOwned(); err != nil || string(line) != "short" || fills != nil {
		t.Fatalf("short line: %q, %v; fills %v", line, err, fills)
	}
	line, err := rd.ReadOwned()
	if err != nil || string(line) != long || cap(line) != len(long) {
		t.Fatalf("long line: %d bytes (cap %d), %v; want %d exact", len(line), cap(line), err, len(long))
	}
	if len(fills) != 1 || len(fills[0]) < 2 {
		t.Fatalf("Fill calls: %v, want one of the buffer and its pieces", fills)
	}
}

// A long line after one about as long is read whole into a buffer of
// Reserve's, which becomes the line with no pieces and no join (issue
// 33); one that outgrows it goes on in pieces and is joined, and with no
// room in Reserve the line is read in pieces as before.
func TestReaderReadsALongLineWholeAfterALongOne(t *testing.T) {
	long := func(c string, n int) string { return `{"id":3,"result":"` + strings.Repeat(c, n) + `"}` }
	a, b, c, d := long("a", 3<<20), long("b", 3<<20-1000), long("c", 4<<20), long("d", 3<<20)
	rd := NewReader(strings.NewReader(a + "\n" + b + "\r\n" + c + "\n" + "short\n" + d + "\n"))
	rd.Alloc = func(n int) ([]byte, error) { return make([]byte, n), nil }
	fills := 0
	rd.Fill = func(parts [][]byte) ([]byte, error) { fills++; return bytes.Join(parts, nil), nil }
	var reserved [][]byte
	room := true
	rd.Reserve = func(n int) []byte {
		if !room {
			return nil
		}
		buf := make([]byte, n)
		reserved = append(reserved, buf)
		return buf
	}
	read := func(what, want string, wantFills, wantReserved int) []byte {
		t.Helper()
		line, err := rd.ReadOwned()
		if err != nil || string(line) != want {
			t.Fatalf("%s: %d bytes, %v; want %d", what, len(line), err, len(want))
		}
		if fills != wantFills || len(reserved) != wantReserved {
			t.Fatalf("%s: %d joins and %d buffers reserved, want %d and %d", what, fills, len(reserved), wantFills, wantReserved)
		}
		return line
	}
	read("the first long line", a, 1, 0)
	line := read("a line a little shorter", b, 1, 1)
	if &line[0] != &reserved[0][0] || cap(line) != len(b) {
		t.Fatalf("the line is not the reserved buffer (cap %d)", cap(line))
	}
	if want := len(a) + 1 + (len(a)+1)/8; len(reserved[0]) != want {
		t.Fatalf("reserved %d bytes, want an eighth more than the last line's %d", len(reserved[0]), len(a)+1)
	}
	read("a longer line", c, 2, 2)
	read("a short line", "short", 2, 2)
	room = false
	read("a long line with no room", d, 3, 2)
}

// A long line much shorter than the buffer reserved for it becomes a copy
// of its size from Reserve, or, with no room there, that buffer: never a
// wait on Alloc, which could wait for the reserved buffer's own bytes
// (a hostile review). The buffer reserved is at most Max.
func TestReaderReservesNoMoreThanMaxAndNeverWaitsHoldingIt(t *testing.T) {
	a, b, c := strings.Repeat("a", 4<<20-1), strings.Repeat("b", 3<<20), strings.Repeat("c", 3<<19)
	rd := NewReader(strings.NewReader(a + "\n" + b + "\n" + c + "\n"))
	rd.Max = 4 << 20
	whole := false // Alloc is for a's pieces and its join only
	rd.Alloc = func(n int) ([]byte, error) {
		if whole && n > keepBuffer {
			t.Errorf("Alloc(%d) while a line was read whole", n)
		}
		return make([]byte, n), nil
	}
	var reserved []int
	room := true
	rd.Reserve = func(n int) []byte {
		reserved = append(reserved, n)
		if !room && n < 2<<20 {
			return nil
		}
		return make([]byte, n)
	}
	for i, want := range []string{a, b, c} {
		whole, room = i > 0, i != 2
		line, err := rd.ReadOwned()
		if err != nil || string(line) != want {
			t.Fatalf("line %d: %d bytes, %v; want %d", i+1, len(line), err, len(want))
		}
	}
	// b: Max, not 4.5 MiB, then a copy of its size; c: 3.375 MiB, and a
	// copy refused.
	if want := []int{4 << 20, 3 << 20, (3<<20 + 1) * 9 / 8, 3 << 19}; !slices.Equal(reserved, want) {
		t.Errorf("Reserve asked for %v, want %v", reserved, want)
	}
}

// A line that outgrows its reserved buffer by a few bytes and is dropped
// because Fill fails (no room in the budget): its Tail is the line's last
// bytes, where the id of a server that writes it last is, not bytes from
// 1 MiB into it, where another id may be (a hostile review: the buffer
// was let go before the error was made, and the wrong call failed).
func TestReaderTailOfALineThatOutgrewItsBuffer(t *testing.T) {
	first := strings.Repeat("a", 2<<20)
	reserved := (len(first) + 1) + (len(first)+1)/8
	end := `"},"id":7}`
	body := `{"jsonrpc":"2.0","result":{"x":"`
	fill := reserved + 20 - len(body) - len(end)
	// bytes near 1 MiB carry another id, as a result's content may
	mid := strings.Repeat("y", keepBuffer-133) + `"id":99` + strings.Repeat("z", fill-(keepBuffer-133)-7)
	second := body + mid + end
	rd := NewReader(strings.NewReader(first + "\n" + second + "\n"))
	rd.Alloc = func(n int) ([]byte, error) { return make([]byte, n), nil }
	fail := false
	rd.Fill = func(parts [][]byte) ([]byte, error) {
		if fail {
			return nil, errors.New("no room")
		}
		return bytes.Join(parts, nil), nil
	}
	rd.Reserve = func(n int) []byte { return make([]byte, n) }
	if _, err := rd.ReadOwned(); err != nil {
		t.Fatal(err)
	}
	fail = true
	_, err := rd.ReadOwned()
	var e *LineTooLongError
	if !errors.As(err, &e) {
		t.Fatalf("want a LineTooLongError, got %v", err)
	}
	want := second[len(second)-255:] + "\n"
	if !bytes.HasPrefix([]byte(second), e.Head) || string(e.Tail) != want {
		t.Errorf("Tail %q\nwant %q", e.Tail, want)
	}
}
