package logfile

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// lockedBuffer is a bytes.Buffer safe for the drop report's timer.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A source past its share loses lines, counted in one report per
// interval; a quiet source and the gateway lose none.
func TestShareDropsOnlyTheChattySource(t *testing.T) {
	buf := &lockedBuffer{}
	log := New(buf)
	log.SetShare(1 << 10) // 1 KiB/s: a burst of 32 KiB (two pieces of maxLine)
	log.shares.every = 100 * time.Millisecond
	line := strings.Repeat("f", 1000)
	for i := range 2000 {
		log.Output("flood", line)
		if i%100 == 0 {
			log.Output("quiet", fmt.Sprintf("quiet line %d", i/100))
			log.Line("gateway", fmt.Sprintf("gateway line %d", i/100))
		}
	}
	testwait.For(t, 0, "the drop report", func() bool { return strings.Contains(buf.String(), "lines from flood") })
	out := buf.String()
	for i := range 20 {
		for _, want := range []string{fmt.Sprintf("[quiet] quiet line %d\n", i), fmt.Sprintf("[gateway] gateway line %d\n", i)} {
			if !strings.Contains(out, want) {
				t.Errorf("lost %q", want)
			}
		}
	}
	kept := strings.Count(out, "[flood] ")
	if kept < 20 || kept > 40 {
		t.Errorf("%d flood lines kept, want about a 32 KiB burst (~31)", kept)
	}
	var dropped int
	if _, err := fmt.Sscanf(out[strings.Index(out, "msg=\"dropped "):], "msg=\"dropped %d lines", &dropped); err != nil || dropped != 2000-kept {
		t.Errorf("drop report: %d lines (%v), want %d\n%s", dropped, err, 2000-kept, out[strings.Index(out, "msg=\"dropped "):])
	}
	if n := strings.Count(out, "lines from flood"); n != 1 {
		t.Errorf("%d drop reports for one interval, want 1", n)
	}
	// Close reports a count still pending.
	log.Output("flood", line)
	log.Close()
	if n := strings.Count(buf.String(), "dropped 1 line from flood"); n != 1 {
		t.Errorf("pending drop at Close reported %d times, want once:\n%s", n, buf.String())
	}
}
