// Package bench measures what the gateway adds to a direct stdio call to
// the same server (issue 8): per-call latency, throughput, ready time,
// memory and large messages. Every figure is measured in the same run
// directly over stdio (StdioClient) and through the real gateway binary
// over HTTP (HTTPClient), repeated, and reported as medians with min–max,
// with the gateway/direct ratio and the gateway−direct difference.
//
// `make bench` runs it at full size (bench/cmd/bench); `go test ./bench/`
// runs it at a small size so that it keeps working.
//
// Each figure has a file of its own (latency.go, throughput.go, …) with
// its measurement and its rows, and sets up its sides with sides.go; Run
// lists the phases, figDefs (figures.go) the rows' order.
package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// Config sizes a run.
type Config struct {
	Reps   int // repetitions of every measurement
	Calls  int // timed sequential calls
	Warmup int // untimed calls before them

	Concurrency        int           // concurrent clients for throughput
	ThroughputDuration time.Duration // timed window per throughput measurement

	ReadyServers []int         // server counts for ready time
	StartDelay   time.Duration // each fake server's start delay

	MemServers, MemSessions, MemCalls int

	BigBytes, BigCalls int // size of the large result/argument; timed calls each

	SDKCalls int // sequential calls with go-sdk's client (client-cost comparison); 0 skips

	HandlerCalls int // timed calls of each era for the handler-CPU figure (handlercpu.go)

	SearchCalls int // timed search_tools queries over 1,000 tools (toolsearch.go)

	// Everything is the argv of server-everything; nil skips its figures.
	Everything []string
	// Pulled runs the figures of the npm servers after `mcp-gateway
	// pull` and `mcp-gateway warm` (readypulled.go, readywarm.go); the
	// pull needs npm, node and the registry.
	Pulled bool

	// Only, if set, runs only these phases: seq, handler, telemetry, everything,
	// tput, ready, pulled, warm, mem, big, http, search, code.
	Only []string
	// GatewayEnv is added to the gateway's environment (experiments such
	// as GOGC=200; the daemon and its servers inherit it).
	GatewayEnv []string

	// Baseline, if set, is another mcp-gateway binary (an older build),
	// measured beside the tree's build in every figure that runs the
	// gateway binary, with BaselineEnv added to its environment; Variants
	// are more sides of the tree's build (ab.go). Each figure gets a twin
	// row per side, and Results.Verdicts compares them (verdicts.go).
	Baseline    string
	BaselineEnv []string
	Variants    []Variant

	Bin      Binaries
	TempDir  string
	Progress io.Writer
}

// FullConfig is the size the issue asks for.
func FullConfig() Config {
	return Config{
		Reps: 3, Calls: 2000, Warmup: 300,
		Concurrency: 16, ThroughputDuration: 3 * time.Second,
		ReadyServers: []int{1, 7}, StartDelay: 300 * time.Millisecond,
		MemServers: 3, MemSessions: 100, MemCalls: 10,
		BigBytes: 8 << 20, BigCalls: 5,
		SDKCalls: 1000, HandlerCalls: 10000,
		SearchCalls: 10000,
	}
}

// ShortConfig is the size `go test` runs: every code path, small counts.
func ShortConfig() Config {
	return Config{
		Reps: 1, Calls: 50, Warmup: 10,
		Concurrency: 4, ThroughputDuration: 200 * time.Millisecond,
		ReadyServers: []int{1, 3}, StartDelay: 50 * time.Millisecond,
		MemServers: 3, MemSessions: 5, MemCalls: 2,
		BigBytes: 256 << 10, BigCalls: 1,
		SDKCalls: 20, HandlerCalls: 200,
		SearchCalls: 200,
	}
}

// runner collects per-repetition values: id → side → one value a rep.
type runner struct {
	cfg  Config
	rep  int                      // the repetition running, from 0
	otlp map[string]*otlpReceiver // gateway side → the receiver it exports to (ab.go)

	baselineVersion string  // what Config.Baseline's `version` printed
	loadStart       float64 // the load average when the run started

	mu      sync.Mutex
	vals    map[string]map[string][]float64
	samples map[string]map[string][]float64 // id → side → what the A/B verdicts pair up (verdicts.go)
	npm     npmServers                      // the pulled servers, set up once (pulled.go)
}

func (r *runner) add(id, side string, v float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.vals[id] == nil {
		r.vals[id] = map[string][]float64{}
	}
	r.vals[id][side] = append(r.vals[id][side], v)
}

// sample records samples of figure id on side, which the A/B verdicts
// pair with the other sides' samples in the order they were recorded
// (verdicts.go); a figure records them in every repetition alike.
func (r *runner) sample(id, side string, v ...float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.samples == nil {
		r.samples = map[string]map[string][]float64{}
	}
	if r.samples[id] == nil {
		r.samples[id] = map[string][]float64{}
	}
	r.samples[id][side] = append(r.samples[id][side], v...)
}

func (r *runner) logf(format string, args ...any) {
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, "bench: "+format+"\n", args...)
	}
}

// Run measures every figure cfg.Reps times. Repetitions are the outer
// loop, so that each figure's repetitions are spread over the run and a
// burst of noise on the shared machine hits one of them, not all.
func Run(ctx context.Context, cfg Config) (*Results, error) {
	r := &runner{cfg: cfg, vals: map[string]map[string][]float64{}, otlp: map[string]*otlpReceiver{}, loadStart: loadAverage()}
	start := time.Now()
	if err := r.prepareSides(ctx); err != nil {
		return nil, err
	}
	defer r.closeReceivers()
	phases := []struct {
		key, name string
		fn        func(context.Context) error
	}{
		{"seq", "sequential calls, Go echo", func(ctx context.Context) error {
			return r.sequential(ctx, "echo", []string{cfg.Bin.Echo}, true)
		}},
		{"handler", "gateway CPU per call, in-process", r.handlerCPU},
		{"telemetry", "what telling of a call costs, in-process", r.handlerTelemetry},
		{"everything", "sequential calls, server-everything", func(ctx context.Context) error {
			if cfg.Everything == nil {
				return nil
			}
			return r.sequential(ctx, "everything", cfg.Everything, false)
		}},
		{"tput", "throughput", r.throughput},
		{"ready", "ready time", r.ready},
		{"pulled", "ready time, pulled npm servers", func(ctx context.Context) error {
			if !cfg.Pulled {
				return nil
			}
			return r.readyPulled(ctx)
		}},
		{"warm", "ready time after warm", func(ctx context.Context) error {
			if !cfg.Pulled {
				return nil
			}
			return r.readyWarm(ctx)
		}},
		{"mem", "memory", r.memory},
		{"big", "large messages", r.big},
		{"http", "an HTTP upstream", r.httpUpstream},
		{"search", "tool search, in-process", r.toolSearch},
		{"code", "the code API: a Python call, regenerating the tree", r.code},
	}
	for rep := range cfg.Reps {
		r.rep = rep
		for _, ph := range phases {
			if len(cfg.Only) > 0 && !slices.Contains(cfg.Only, ph.key) {
				continue
			}
			r.logf("repetition %d/%d: %s", rep+1, cfg.Reps, ph.name)
			if err := ph.fn(ctx); err != nil {
				return nil, fmt.Errorf("%s (repetition %d): %w", ph.name, rep+1, err)
			}
		}
	}
	return r.results(time.Since(start)), nil
}

// echoParams are the params of the echo call most figures make.
var echoParams = []byte(`{"name":"echo","arguments":{"message":"hello"}}`)

// echoed returns err, or an error if res, a call's result, does not hold
// the echoed "hello".
func echoed(res []byte, err error) error {
	if err == nil && !bytes.Contains(res, []byte("hello")) {
		err = fmt.Errorf("unexpected result %s", truncate(res, 200))
	}
	return err
}

type callFunc func(ctx context.Context, method string, params []byte) ([]byte, error)

func procCPUs(pids []int) []time.Duration {
	out := make([]time.Duration, len(pids))
	for i, p := range pids {
		out[i] = ProcCPU(p)
	}
	return out
}
