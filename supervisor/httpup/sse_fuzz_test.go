package httpup

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzSSEReader: whatever a server sends, the reader neither panics nor
// keeps an event over the limit, and reads the same events whether the
// bytes come at once or one by one (the reads of a slow connection).
func FuzzSSEReader(f *testing.F) {
	for _, seed := range []string{
		"data: {\"a\":1}\n\n",
		"event: endpoint\ndata: /messages?s=1\n\n",
		": ping\n\nid: 7\nretry: 10\ndata:\n\n",
		"data: one\r\ndata: two\r\n\r\n",
		"data\n\ndata\ndata\n\n",
		"data: {\"jsonrpc\":",
		"\r\n\r\n\n:\ndata:x",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, stream string) {
		whole, _, werr := readEvents(strings.NewReader(stream))
		split, _, serr := readEvents(oneByte{strings.NewReader(stream)})
		if diff := cmp.Diff(whole, split, cmp.AllowUnexported(sseEvent{})); diff != "" {
			t.Errorf("events differ by read size (-whole +split):\n%s", diff)
		}
		if !errors.Is(werr, io.EOF) && !errors.Is(werr, io.ErrUnexpectedEOF) {
			t.Errorf("end: %v", werr)
		}
		if (werr == nil) != (serr == nil) || errors.Is(werr, io.EOF) != errors.Is(serr, io.EOF) {
			t.Errorf("ends differ: %v, %v", werr, serr)
		}
		for _, ev := range whole {
			if len(ev.data) == 0 || len(ev.data) > maxMessage {
				t.Errorf("an event of %d bytes", len(ev.data))
			}
		}
	})
}
