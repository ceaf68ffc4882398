package daemon

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/heapfloor"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// TestMemoryLineNamesTheHeapFloor: the "memory budget" line says whether
// the collector's goal is kept at heapFloor, or GOGC is the operator's
// (which it then leaves alone); a large message puts GOGC back to 100.
func TestMemoryLineNamesTheHeapFloor(t *testing.T) {
	if heapfloor.Percent() != 100 {
		t.Skip("the test process runs with a GOGC of its own")
	}
	t.Setenv("GOMEMLIMIT", "1GiB") // the test process's limit stays as it is
	for _, c := range []struct{ gogc, want string }{
		{"150", `heapFloor="GOGC=150"`},
		{"", "heapFloor=12MiB"},
	} {
		t.Setenv("GOGC", c.gogc)
		before := heapfloor.Percent()
		var log bytes.Buffer
		mem, stop := newBudget(64<<20, slog.New(slog.NewTextHandler(&log, nil)))
		if !strings.Contains(log.String(), c.want) {
			t.Errorf("GOGC=%q: the line is %q, want %s in it", c.gogc, log.String(), c.want)
		}
		if c.gogc == "" { // the tuning runs after a cycle
			testwait.For(t, 0, "GOGC raised by the heap floor", func() bool {
				runtime.GC()
				return heapfloor.Percent() > 100
			})
			// A large message: GOGC is 100 before its buffer is allocated.
			buf, err := mem.Alloc(context.Background(), budget.Clients, heapFloor/4, 0)
			if err != nil {
				t.Fatal(err)
			}
			if p := heapfloor.Percent(); p != 100 {
				t.Errorf("GOGC %d with %d bytes held, want 100", p, len(buf))
			}
		} else if runtime.GC(); heapfloor.Percent() != before {
			t.Errorf("GOGC=%s: GOGC changed from %d to %d", c.gogc, before, heapfloor.Percent())
		}
		stop()
	}
}
