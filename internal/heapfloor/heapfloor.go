package heapfloor

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// maxPercent bounds GOGC when the live heap is tiny, so that a goal is
// never set from a figure near zero.
const maxPercent = 1000

// runtimeMinimum is the runtime's least goal at GOGC=100, which it
// scales with GOGC (the GC guide, go.dev/doc/gc-guide#GOGC: "a minimum
// total heap size of 4 MiB"): a GOGC over 100 × floor / runtimeMinimum
// would put the goal past the floor on a small heap.
const runtimeMinimum = 4 << 20

// goalMetrics are the terms of the collector's goal (the GC guide,
// go.dev/doc/gc-guide#GOGC): live + (live + stacks + globals) × GOGC/100,
// with the live heap as the last cycle left it; in bytes.
var goalMetrics = []string{"/gc/heap/live:bytes", "/gc/scan/stack:bytes", "/gc/scan/globals:bytes"}

// k is the process's keeper: GOGC is the process's, so there is one.
var k keeper

// keeper is Keep's state, read by the cleanup that runs after each cycle.
type keeper struct {
	mu      sync.Mutex
	on      bool
	gen     uint64 // Keep's count: a cleanup of an earlier Keep's does nothing
	floor   uint64
	was     int // GOGC at Keep, put back by stop
	percent int // GOGC as last set

	// tunes counts the tunings run, about one a cycle (a missed cycle
	// makes it lag, never lead). Lower sets holdUntil to tunes + 2: the
	// tuning of a cycle that ended before the burst may still be queued
	// (it would read a small heap), and the next reads the burst's.
	tunes, holdUntil uint64
}

// Keep keeps the collector's goal at floor bytes or more while the live
// heap is small: after each cycle, GOGC becomes PercentFor(live, roots,
// floor). stop ends it and puts back the GOGC that was in force at Keep,
// unless another has set one since. The daemon calls it once, unless the
// environment sets GOGC (the operator's, which wins).
//
// Keep does nothing, and its stop nothing, while a Keep runs already, or
// while the collector is off (GOGC=off).
func Keep(floor uint64) (stop func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	was := Percent()
	if k.on || was < 0 {
		return func() {}
	}
	k.on, k.floor, k.was, k.percent = true, floor, was, was
	k.tunes, k.holdUntil = 0, 0
	k.gen++
	k.arm()
	gen := k.gen
	return func() { k.stop(gen) }
}

// Lower puts GOGC back to 100 at once, if Keep raised it, and keeps it
// there for the next two tunings: a burst is about to be allocated (the
// memory budget's grants, internal/budget), and a raised GOGC would
// multiply it into the next goal. A later tuning raises it again once a
// cycle leaves the live heap small. It costs a lock, for it runs at
// each grant while a burst is held.
//
// Without Lower, a tuning can miss the cycle after a burst (its
// cleanup's next sentinel, allocated while that cycle marks, is found
// live by it), and a burst makes two cycles in a row; and a tuning
// queued by a cycle that ended just before the burst reads the small
// heap before it (both found by hostile reviews).
func Lower() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.on {
		return
	}
	k.holdUntil = k.tunes + 2
	if k.percent != 100 && Percent() == k.percent {
		debug.SetGCPercent(100)
		k.percent = 100
	}
}

// Percent is the GOGC in force (runtime/metrics /gc/gogc:percent); -1
// when the collector is off.
func Percent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 100
	}
	return int(int64(s[0].Value.Uint64()))
}

// PercentFor is the GOGC that puts the goal of the cycle after one that
// left live bytes live at floor bytes, with roots the bytes of stacks
// and globals the collector scans: 100 × (floor − live) / (live +
// roots), within 100 and the least of maxPercent and 100 × floor /
// runtimeMinimum.
func PercentFor(live, roots, floor uint64) int {
	if live == 0 || live >= floor || floor-live <= live+roots {
		return 100
	}
	p := (floor - live) * 100 / (live + roots)
	return int(max(100, min(p, maxPercent, floor*100/runtimeMinimum)))
}

// sentinel is allocated for each cycle: its cleanup runs once a cycle has
// found it unreachable. Not tiny (the runtime batches tiny objects, whose
// cleanups may never run), and not zero-sized.
type sentinel struct {
	_ [64]byte
	_ *byte
}

// arm allocates the next sentinel, whose cleanup tunes after the cycle
// that collects it. Call with k.mu held.
func (k *keeper) arm() {
	runtime.AddCleanup(new(sentinel), tune, k.gen)
}

// tune is the cleanup of Keep number gen's sentinels.
func tune(gen uint64) { k.tune(gen) }

// tune sets GOGC for the next cycle from the live heap the last one
// left, and arms the next sentinel. GOGC set by another since the last
// tuning ends the tuning: theirs stands.
func (k *keeper) tune(gen uint64) {
	s := make([]metrics.Sample, len(goalMetrics))
	for i, name := range goalMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.on || gen != k.gen {
		return
	}
	if Percent() != k.percent {
		k.on = false
		return
	}
	var v [3]uint64
	for i := range s {
		if s[i].Value.Kind() != metrics.KindUint64 {
			k.arm() // not measured (a runtime without it): left as it is
			return
		}
		v[i] = s[i].Value.Uint64()
	}
	k.tunes++
	p := PercentFor(v[0], v[1]+v[2], k.floor)
	if k.tunes <= k.holdUntil {
		p = 100 // a burst came after this cycle, or during it (Lower)
	}
	if p != k.percent {
		debug.SetGCPercent(p)
		k.percent = p
	}
	k.arm()
}

// stop ends the tuning of Keep number gen, if it still runs, and puts
// back the GOGC in force at Keep, unless another has set one since (a
// GOGC another sets equal to the tuning's last goes unnoticed).
func (k *keeper) stop(gen uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.on || gen != k.gen {
		return
	}
	if Percent() == k.percent {
		debug.SetGCPercent(k.was)
	}
	k.on = false
}
