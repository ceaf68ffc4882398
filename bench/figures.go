package bench

import "slices"

// A target is judged on the median over repetitions of one per-repetition
// value (on):
//
//	"diff", "ratio"            gateway − direct, gateway / direct
//	"gateway"                  the gateway's value
//	"floorDiff", "floorRatio"  gateway − floor, gateway / floor
//	"refRatio"                 gateway / the gateway value of figure ref
//	"refDiff"                  (gateway − direct) − (ref's gateway − ref's direct)
type target struct {
	on    string
	max   bool // true: ≤ limit; false: ≥ limit
	limit float64
	text  string
	ref   string
}

// figDef is one row of the table: the figure id a measurement records
// (runner.add), its name and unit there, the targets judged on it, and a
// note for the JSON.
type figDef struct {
	id, name, unit string
	ts             []target
	note           string
}

// figDefs are the table's rows, in its order: first what issues 12 and 13
// judge (the sequential p50s, then the gateway's CPU per call), then every
// figure's other rows in the order the figures run. Each figure's rows
// stand beside its measurement.
func (cfg Config) figDefs() []figDef {
	return slices.Concat(cfg.seqP50Defs(), cfg.handlerDefs(), cfg.handlerTelemetryDefs(), cfg.seqDefs(), cfg.sdkDefs(),
		cfg.throughputDefs(), cfg.readyDefs(), cfg.readyPulledDefs(), cfg.readyWarmDefs(), cfg.memoryDefs(), cfg.bigDefs(), cfg.httpDefs(), cfg.toolSearchDefs(), cfg.codeDefs())
}
