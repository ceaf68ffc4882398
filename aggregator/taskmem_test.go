package aggregator

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Memory stays flat over 10,000 short gateway-made tasks (issue 14): four
// sessions each create a task (ttl 1 s; with 300 ms, under -race on a
// loaded machine, a task's TTL passed before its tasks/result), wait for
// its result, and go on; once their TTLs have passed, the table is empty
// and the heap is back where it was after the first 1,000. The limits
// hold all 10,000: the four sessions are one caller, and on a quiet
// machine they made more than 1,000 tasks within one TTL, which the
// caller's limit refused.
func TestTaskMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 tasks")
	}
	srv, gw := startGatewayOpts(t, map[string]map[string]string{"s": nil},
		HTTPOptions{MaxSessions: 4, Tasks: TaskLimits{PerCaller: 10000, Total: 10000, MinTTL: 10 * time.Millisecond}})
	tasks := gw.h.tasks
	clients := make([]*rawClient, 4)
	for i := range clients {
		clients[i] = newClient(t, srv)
	}
	run := func(n int) {
		var wg sync.WaitGroup
		errs := make(chan string, len(clients))
		for _, c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range n / len(clients) {
					if msg := shortTask(c, i); msg != "" {
						errs <- msg
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Fatal(e)
		}
	}
	start := time.Now()
	run(1000)
	warm, goroutines := drainedHeap(t, tasks), runtime.NumGoroutine()
	run(9000)
	end := drainedHeap(t, tasks)
	t.Logf("10,000 tasks in %v; heap after 1,000: %d KiB, after 10,000: %d KiB; goroutines %d → %d",
		time.Since(start).Round(time.Millisecond), warm>>10, end>>10, goroutines, runtime.NumGoroutine())
	if end > warm+2<<20 {
		t.Errorf("heap grew by %d KiB over 9,000 tasks", (end-warm)>>10)
	}
	if g := runtime.NumGoroutine(); g > goroutines+10 {
		t.Errorf("goroutines grew from %d to %d", goroutines, g)
	}
}

// shortTask creates an echo task and reads its result; it returns what
// went wrong, or "".
func shortTask(c *rawClient, i int) string {
	text := fmt.Sprintf("t%d", i)
	created := postRaw(c, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+text+`"},"task":{"ttl":1000}}}`)
	_, rest, ok := strings.Cut(created, `"taskId":"`)
	id, _, _ := strings.Cut(rest, `"`)
	if !ok {
		return "create: " + created
	}
	res := postRaw(c, `{"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"`+id+`"}}`)
	if !strings.Contains(res, `"text":"`+text+`"`) {
		return "tasks/result: " + res
	}
	return ""
}

// drainedHeap waits (10 s at most) for the task table to be empty, and
// returns the heap in use after a collection.
func drainedHeap(t *testing.T, tasks *tasks.Table) uint64 {
	t.Helper()
	if !testwait.Until(10*time.Second, func() bool { n, b := tasks.Usage(); return n == 0 && b == 0 }) {
		n, b := tasks.Usage()
		t.Fatalf("%d tasks and %d bytes still kept 10 s after the last ttl", n, b)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
