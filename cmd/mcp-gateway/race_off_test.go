//go:build !race

package main

// raceEnabled: the race detector slows every goroutine several times over.
const raceEnabled = false
