package daemon

import (
	"log/slog"
	"os"
	"runtime/debug"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/bytesize"
	"github.com/mcp-gateway/mcp-gateway/internal/heapfloor"
)

// memoryHeadroom is what the runtime's soft memory limit allows above the
// memory budget: the daemon's own memory (sessions, goroutines, buffers
// too small to be counted) and the collector's slack.
const memoryHeadroom = 32 << 20

// heapFloor is the collector's least goal while the live heap is small
// (internal/heapfloor): a busy daemon collects about half as often, for
// about 8 MiB more resident memory under load. The floor is lowered
// (GOGC back to 100) once the memory budget holds heapFloor/4 bytes: a
// large message is coming.
const heapFloor = 12 << 20

// newBudget makes the daemon's memory budget (internal/budget, issue 25)
// and sets the runtime's soft memory limit above it, so that the
// collector works to keep the daemon within it and gives memory back to
// the system after a burst, and keeps the collector's goal at heapFloor
// or more until stop. A GOMEMLIMIT or GOGC in the environment is the
// operator's and wins.
func newBudget(size int64, logger *slog.Logger) (b *budget.Budget, stop func()) {
	b = budget.New(size)
	limit := "GOMEMLIMIT=" + os.Getenv("GOMEMLIMIT")
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(size + memoryHeadroom)
		limit = bytesize.Format(size + memoryHeadroom)
	}
	floor, stop := "GOGC="+os.Getenv("GOGC"), func() {}
	if os.Getenv("GOGC") == "" {
		stop = heapfloor.Keep(heapFloor)
		b.OnHeld(heapFloor/4, heapfloor.Lower)
		floor = bytesize.Format(heapFloor)
	}
	logger.Info("memory budget", "budget", bytesize.Format(size), "maxBody", bytesize.Format(b.MaxBody(1<<62)),
		"memoryLimit", limit, "heapFloor", floor)
	return b, stop
}
