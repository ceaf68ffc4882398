package httpup

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readEvents reads every event of stream, and the error that ended it.
func readEvents(stream io.Reader) ([]sseEvent, *sseReader, error) {
	s := newSSEReader(newBodyReader(stream, time.Minute, func() {}))
	var out []sseEvent
	for {
		ev, err := s.next()
		if err != nil {
			return out, s, err
		}
		out = append(out, ev)
	}
}

func TestSSEEvents(t *testing.T) {
	stream := ": keep-alive\n\n" +
		"id: 1\ndata:\n\n" + // a priming event: an id, empty data
		"data: {\"a\":1}\n\n" +
		"event: message\r\ndata: one\r\ndata:two\r\n\r\n" +
		"event: endpoint\ndata: /messages?s=1\nid: 7\nretry: 1500\n\n" +
		"data\n\n" + // a field with no colon: data, empty: no event
		"data\ndata\n\n" + // two empty data lines: LF
		"foo: bar\n\n" // an unknown field, no data: no event
	got, s, err := readEvents(strings.NewReader(stream))
	if !errors.Is(err, io.EOF) {
		t.Fatalf("end: %v", err)
	}
	want := []sseEvent{
		{data: []byte(`{"a":1}`)},
		{name: "message", data: []byte("one\ntwo")},
		{name: "endpoint", data: []byte("/messages?s=1")},
		{data: []byte("\n")},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(sseEvent{})); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if s.lastID != "7" || s.retry != 1500*time.Millisecond {
		t.Errorf("last id %q, retry %v; want 7 and 1.5s", s.lastID, s.retry)
	}
}

// oneByte reads one byte at a time, so that every line and CRLF is split
// across reads.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }

func TestSSELongLinesAcrossReads(t *testing.T) {
	big := strings.Repeat("x", 3*sseBuffer+17)
	stream := "data: " + big + "\r\ndata: " + big[:100] + "\r\n\r\n" + ": " + big + "\n" + "data: after\n\n"
	for name, r := range map[string]io.Reader{"whole": strings.NewReader(stream), "byte by byte": oneByte{strings.NewReader(stream)}} {
		got, _, err := readEvents(r)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("%s: end: %v", name, err)
		}
		if len(got) != 2 || string(got[0].data) != big+"\n"+big[:100] || string(got[1].data) != "after" {
			t.Errorf("%s: %d events, first %d bytes", name, len(got), len(got[0].data))
		}
	}
}

func TestSSEEndMidEventIsUnexpected(t *testing.T) {
	for _, stream := range []string{"data: {\"a\"", "data: one\n", "data: " + strings.Repeat("y", 2*sseBuffer)} {
		got, _, err := readEvents(strings.NewReader(stream))
		if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) != 0 {
			t.Errorf("stream %.20q: %d events, %v; want none and io.ErrUnexpectedEOF", stream, len(got), err)
		}
	}
}

func TestSSEEventOverTheLimit(t *testing.T) {
	// A stream that would go on forever: the reader stops at the limit.
	endless := io.MultiReader(strings.NewReader("data: "), &repeatReader{b: 'z'})
	_, _, err := readEvents(endless)
	if !errors.Is(err, errTooLarge) {
		t.Errorf("end: %v, want errTooLarge", err)
	}
	// Many short data lines add up too.
	lines := io.MultiReader(&repeatReader{b: 'd', line: "data: 0123456789abcdef\n"})
	if _, _, err := readEvents(lines); !errors.Is(err, errTooLarge) {
		t.Errorf("many lines: %v, want errTooLarge", err)
	}
}

// repeatReader yields b forever, or line forever.
type repeatReader struct {
	b    byte
	line string
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.line != "" {
		n := 0
		for n+len(r.line) <= len(p) {
			n += copy(p[n:], r.line)
		}
		if n == 0 {
			n = copy(p, r.line)
		}
		return n, nil
	}
	for i := range p {
		p[i] = r.b
	}
	return len(p), nil
}

// TestSSEStallMidEventOnly: a stream quiet between events is fine; one
// that stops in the middle of an event ends within the stall time.
func TestSSEStallMidEventOnly(t *testing.T) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-ctx.Done(); pr.CloseWithError(ctx.Err()) }()
	s := newSSEReader(newBodyReader(pr, 100*time.Millisecond, cancel))
	events := make(chan error, 4)
	go func() {
		for {
			_, err := s.next()
			events <- err
			if err != nil {
				return
			}
		}
	}()
	pw.Write([]byte("data: 1\n\n"))
	if err := <-events; err != nil {
		t.Fatal(err)
	}
	// Quiet between events for longer than the stall time, with a
	// keep-alive comment on the way. The sleeps are not waits: they are the
	// server's silence, 3× the stall time each, during which the stream
	// must NOT end (a negative check: nothing is to happen to wait on).
	time.Sleep(300 * time.Millisecond)
	pw.Write([]byte(": ping\n"))
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-events:
		t.Fatalf("the stream ended while quiet between events: %v", err)
	default:
	}
	pw.Write([]byte("data: {\"jsonrpc\":"))
	select {
	case err := <-events:
		var stall *stallError
		if !errors.As(err, &stall) {
			t.Errorf("end: %v, want a *stallError", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stream stopped mid-event did not end")
	}
}

func TestReadAllBounded(t *testing.T) {
	b := newBodyReader(bytes.NewReader([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)), time.Minute, func() {})
	if got, err := b.readAll(-1); err != nil || string(got) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("readAll = %q, %v", got, err)
	}
	b = newBodyReader(&repeatReader{b: 'x'}, time.Minute, func() {})
	if _, err := b.readAll(-1); !errors.Is(err, errTooLarge) {
		t.Errorf("endless body: %v, want errTooLarge", err)
	}
}
