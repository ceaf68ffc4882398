package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"

	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
)

// handlerTelemetry is what telling of a call costs the thread that serves
// it (issue 24, SPEC §11), measured as handlerCPU measures a call: the
// gateway in this process with the Go echo, each call from the bytes the
// load generator would send, the serving thread's CPU clock around the
// parse and ServeHTTP. Three gateways serve the same calls: one that
// tells nothing; one with the call log (discarded) and the metrics, the
// daemon's default; and one that traces too, exporting over OTLP/HTTP to
// a receiver in this process. Each era's calls go round the three in
// turn, the first rotating, and each figure is the median of the
// differences of calls of one round: the call log and metrics (log −
// none), and tracing (tracing − log).
//
// What it leaves out is what the sequential p50 pays besides: the
// goroutine that reads the upstream (a client span's end is recorded
// there), the export on its own goroutine, and the collector's and the
// garbage collector's share of a 2-CPU machine. It is the part of
// tracing's cost that is on the call's own path, and it moves less with
// the machine's load than a p50 does.
func (r *runner) handlerTelemetry(ctx context.Context) error {
	rc := startOTLPReceiver()
	defer rc.close()
	env := map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": rc.url()}
	traced := telemetry.NewMetrics()
	tracing, err := telemetry.FromEnv(func(k string) string { return env[k] }, "bench", traced, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	var sides [3]*Inproc // none, log, tracing
	for i, tel := range []struct {
		m *telemetry.Metrics
		t *telemetry.Tracing
	}{{nil, nil}, {telemetry.NewMetrics(), nil}, {traced, tracing}} {
		if sides[i], err = StartInprocTelemetry(r.cfg.Bin.Echo, tel.m, tel.t); err != nil {
			return err
		}
		defer sides[i].Close()
	}
	for _, e := range []struct {
		id  string
		era era
	}{{"cpu.telemetry", eraLegacy}, {"cpu.telemetry.modern", eraModern}} {
		var calls []servedCall
		for _, p := range sides {
			s, err := (&endpoint[*Inproc]{side: sideGateway, proc: p, hc: p.hc}).open(ctx, e.era)
			if err != nil {
				return err
			}
			wire, err := s.Wire("tools/call", echoParams)
			if err != nil {
				return err
			}
			calls = append(calls, servedCall{p.Handler, wire})
		}
		cpu, err := serveRounds(calls, r.cfg.Warmup, r.cfg.HandlerCalls)
		if err != nil {
			return err
		}
		r.add(e.id+".log", "gateway", percentile(pairDiffs(cpu[1], cpu[0]), 50))
		r.add(e.id+".tracing", "gateway", percentile(pairDiffs(cpu[2], cpu[1]), 50))
	}
	return nil
}

// servedCall is one request's bytes and the handler that serves them.
type servedCall struct {
	h    http.Handler
	wire []byte
}

// serveRounds serves each call once a round, warmup untimed rounds and
// then n, the first call of a round rotating, and returns each call's
// serving-thread CPU per round in µs. A response that is not 200 with the
// echoed text is an error.
func serveRounds(calls []servedCall, warmup, n int) ([][]float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu := make([][]float64, len(calls))
	var rd bytes.Reader
	br := bufio.NewReader(&rd)
	w := &memWriter{}
	for i := range warmup + n {
		for j := range calls {
			k := (i + j) % len(calls)
			rd.Reset(calls[k].wire)
			br.Reset(&rd)
			w.reset()
			c0 := threadCPU()
			req, err := http.ReadRequest(br)
			if err == nil {
				ctx, cancel := context.WithCancel(context.Background())
				req = req.WithContext(ctx)
				req.RemoteAddr = "127.0.0.1:1"
				calls[k].h.ServeHTTP(w, req)
				cancel()
			}
			c1 := threadCPU()
			if err != nil {
				return cpu, fmt.Errorf("read request: %w", err)
			}
			if w.status != http.StatusOK || !bytes.Contains(w.body.Bytes(), []byte("hello")) {
				return cpu, fmt.Errorf("tools/call: HTTP %d %s", w.status, truncate(w.body.Bytes(), 200))
			}
			if i >= warmup {
				cpu[k] = append(cpu[k], micros(c1-c0))
			}
		}
	}
	return cpu, nil
}

// handlerTelemetryDefs are the rows of the figure.
func (cfg Config) handlerTelemetryDefs() []figDef {
	call := fmt.Sprintf("%d calls on the serving thread, in-process: median of the differences of calls of one round", cfg.HandlerCalls)
	return []figDef{
		{"cpu.telemetry.log", "Gateway CPU per tools/call, legacy, of the call log and metrics: " + call, "µs", nil,
			"log + metrics − nothing told (handlertelemetry.go)"},
		{"cpu.telemetry.tracing", "Gateway CPU per tools/call, legacy, of tracing (exported): " + call, "µs", nil,
			"log + metrics + tracing − log + metrics; the export and the upstream reader's part are not on this thread"},
		{"cpu.telemetry.modern.log", fmt.Sprintf("Gateway CPU per tools/call, modern (%s), of the call log and metrics: %s", ModernVersion, call), "µs", nil, ""},
		{"cpu.telemetry.modern.tracing", fmt.Sprintf("Gateway CPU per tools/call, modern (%s), of tracing (exported): %s", ModernVersion, call), "µs", nil, ""},
	}
}
