// Package heapfloor keeps the Go collector from running on a heap smaller
// than a floor, a few MiB, while the live heap is small; once the live
// heap is large, the collector runs as GOGC=100 makes it.
//
// The daemon's live heap is about 3 MiB. The runtime's default goal
// (GOGC=100: a cycle when the heap has grown by as much as is live, with
// a 4 MiB minimum) then collects about ten times a second under a
// steady load of calls, and the collector's cycles cost the daemon
// several µs of CPU a call (bench/README.md, "the collector"). A floor
// of 16 MiB runs a cycle after about 13 MiB of garbage instead of 3, and
// costs at most those MiB of resident memory, only while calls come in.
//
// After each cycle, a cleanup reads the live heap (runtime/metrics
// /gc/heap/live:bytes) and sets GOGC (debug.SetGCPercent) to what puts
// the next cycle's goal at the floor, never under 100. The runtime's
// soft memory limit (debug.SetMemoryLimit) still bounds the goal.
package heapfloor
