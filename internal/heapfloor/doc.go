// Package heapfloor keeps the Go collector from running on a heap smaller
// than a floor, a few MiB, while the live heap is small; once the live
// heap is large, the collector runs as GOGC=100 makes it.
//
// The daemon's live heap is about 3 MiB. The runtime's default goal
// (GOGC=100: a cycle once the heap has grown by as much as is live and
// scanned, with a 4 MiB minimum) is then 6–7 MiB, and under a steady
// load of calls the collector's cycles cost the daemon several µs of CPU
// a call (bench/README.md). A floor of 12 MiB halves the cycles, for the
// pages of the larger goal: the heap reaches it under load, and the
// runtime keeps most of those pages afterwards.
//
// After each cycle, a cleanup reads the live heap and the roots
// (runtime/metrics /gc/heap/live:bytes, /gc/scan/stack:bytes,
// /gc/scan/globals:bytes) and sets GOGC (debug.SetGCPercent) to what
// puts the next cycle's goal at the floor, never under 100. Lower puts
// GOGC back to 100 as a burst comes, for the next two tunings (the
// daemon's memory budget calls it as it grants a large message's
// buffers), so that a raised GOGC does not multiply that burst into the
// next goal. A burst the budget does not see (many connections at once,
// buffers under 4 KiB) may run one or two cycles at the raised GOGC, up
// to 4 × its live heap with a 12 MiB floor; the runtime's soft memory
// limit (debug.SetMemoryLimit) still bounds the goal.
package heapfloor
