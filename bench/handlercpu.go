package bench

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"time"

	"golang.org/x/sys/unix"
)

// handlerCPU is the figure the dual-era target is judged on (issue 13: a
// modern tools/call costs no more than a legacy one): the CPU one
// sequential tools/call costs the gateway's own code, legacy (in a
// session) and modern (MCP 2026-07-28), measured on the thread that
// serves it.
//
// The gateway runs in this process (StartInproc, with the Go echo). Each
// call starts from the bytes the load generator would put on the wire
// (Session.Wire): net/http parses them (http.ReadRequest, as the server's
// connection does), the gateway's handler serves the request (auth,
// era, validation, routing, the write to the upstream's stdin, the wait,
// the response), and the response is written to an in-memory writer. The
// goroutine is locked to its thread, and the thread's CPU clock
// (CLOCK_THREAD_CPUTIME_ID) is read around each call, in µs. What it
// leaves out is the same for both eras: the client, the kernel's
// loopback, the goroutine that reads the upstream's stdout, the upstream
// itself, and the Go scheduler's spinning, which is most of the daemon's
// CPU per sequential call and makes that figure too noisy to split 1 %.
//
// Modern calls are measured twice, each series against legacy calls of
// its own: from a client that declares no capabilities (its calls cannot
// park) and from one that declares elicitation, roots and sampling
// (AskableCaps: its calls to a legacy server could park, SPEC §4.6). Each
// request gets a context that can be cancelled, as net/http gives it, so
// that what the handler registers on it costs what it does on a
// connection.
//
// The calls alternate legacy, modern, modern, legacy, … so that every
// call has each era before it equally often (an era that always followed
// itself would find the caches warmer). The figures are the median of
// each era's calls, and the median of the differences of the pairs made
// back to back (modern − legacy), on which the target is judged: the
// load of the shared machine moves both medians by more than their
// difference from one run to the next, and a pair alike.
func (r *runner) handlerCPU(ctx context.Context) error {
	in, err := startInprocGateway(r.cfg.Bin.Echo)
	if err != nil {
		return err
	}
	defer in.close()
	s, err := in.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	legacy, err := s.Wire("tools/call", echoParams)
	if err != nil {
		return err
	}
	for _, m := range []struct {
		id  string
		era era
	}{{"cpu.handler.modern", eraModern}, {"cpu.handler.askable", eraAskable}} {
		sess, err := in.open(ctx, m.era)
		if err != nil {
			return err
		}
		modern, err := sess.Wire("tools/call", echoParams)
		if err != nil {
			return err
		}
		cpu, err := serveTimed(in.proc.Handler, [2][]byte{legacy, modern}, r.cfg.Warmup, r.cfg.HandlerCalls)
		if err != nil {
			return err
		}
		if m.id == "cpu.handler.modern" {
			r.add("cpu.handler", "gateway", percentile(cpu[0], 50))
		}
		r.add(m.id, "gateway", percentile(cpu[1], 50))
		r.add(m.id+".diff", "gateway", percentile(pairDiffs(cpu[1], cpu[0]), 50))
	}
	if err := r.handlerCPUFloor(ctx, in.proc.Handler, legacy); err != nil {
		return err
	}
	return in.close()
}

// handlerCPUFloor is the floor proxy's side of the handler figure: the
// same legacy request served alternately by the gateway and by the floor
// proxy's handler (FloorProxy, over an echo of its own), on this thread.
// The difference of the pairs is what the gateway's own work costs a
// call over the least a net/http-to-stdio proxy does: the CPU that
// throughput at 16 clients turns on (on 2 CPUs, 10 µs more per call in
// the floor's handler took its rate to 0.8×, 2026-12-06).
func (r *runner) handlerCPUFloor(ctx context.Context, gateway http.Handler, legacy []byte) error {
	up, err := startDirect(ctx, []string{r.cfg.Bin.Echo})
	if err != nil {
		return err
	}
	defer up.Close()
	cpu, err := serveTimed2(gateway, NewFloorProxy(up), legacy, r.cfg.Warmup, r.cfg.HandlerCalls)
	if err != nil {
		return fmt.Errorf("floor proxy: %w", err)
	}
	r.add("cpu.handler", "floor", percentile(cpu[1], 50))
	r.add("cpu.handler.overfloor", "gateway", percentile(pairDiffs(cpu[0], cpu[1]), 50))
	return nil
}

// serveTimed2 is serveTimed for one request served by two handlers.
func serveTimed2(a, b http.Handler, wire []byte, warmup, n int) ([2][]float64, error) {
	cpu, err := serveRounds([]servedCall{{a, wire}, {b, wire}}, warmup, n)
	return [2][]float64{cpu[0], cpu[1]}, err
}

// pairDiffs is a[i] − b[i] for each i: the difference of two calls made
// back to back, which the machine's load (it moves both medians by more
// than their difference) hits alike.
func pairDiffs(a, b []float64) []float64 {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return d
}

// serveTimed serves each of the two requests n times (after warmup
// untimed times), alternating as handlerCPU says (serveRounds: for two,
// 0 1, 1 0, 0 1, …), and returns each one's thread CPU per call in µs. A
// response that is not 200 with the echoed text is an error.
func serveTimed(h http.Handler, wire [2][]byte, warmup, n int) ([2][]float64, error) {
	cpu, err := serveRounds([]servedCall{{h, wire[0]}, {h, wire[1]}}, warmup, n)
	return [2][]float64{cpu[0], cpu[1]}, err
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return time.Duration(ts.Nano())
}

// memWriter is an http.ResponseWriter into memory that supports what the
// gateway asks of a connection's writer (Flush, write and read
// deadlines), so that the handler takes the path it takes on a real
// connection.
type memWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *memWriter) reset() {
	w.header, w.status = http.Header{}, 0
	w.body.Reset()
}

func (w *memWriter) Header() http.Header { return w.header }

func (w *memWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *memWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

func (w *memWriter) Flush()                           {}
func (w *memWriter) SetWriteDeadline(time.Time) error { return nil }
func (w *memWriter) SetReadDeadline(time.Time) error  { return nil }
func (w *memWriter) FlushError() error                { return nil }

// handlerDefs are the rows of the handler-CPU figure.
func (cfg Config) handlerDefs() []figDef {
	return []figDef{
		{"cpu.handler", fmt.Sprintf("Gateway CPU per tools/call, legacy: %d calls on the serving thread, in-process", cfg.HandlerCalls), "µs", nil,
			"from the client's request bytes (parsed by net/http) to the written response, Go echo upstream; CLOCK_THREAD_CPUTIME_ID; median (handlercpu.go)"},
		{"cpu.handler.overfloor", "Gateway CPU per tools/call, legacy, over the floor proxy's: median of the differences of calls made back to back", "µs", nil,
			"the gateway's and the floor proxy's handler (FloorProxy) serving the same request in turn on this thread; the floor's own median is the legacy figure's floor column"},
		{"cpu.handler.modern", fmt.Sprintf("Gateway CPU per tools/call, modern (%s): %d calls on the serving thread, in-process", ModernVersion, cfg.HandlerCalls), "µs", nil,
			"alternating with the legacy calls: legacy, modern, modern, legacy, …"},
		{"cpu.handler.modern.diff", "Gateway CPU per tools/call, modern − legacy: median of the differences of calls made back to back", "µs",
			[]target{{on: "gateway", max: true, limit: 0, text: "a modern call costs the gateway no more than a legacy one (≤ 0)"}},
			"the pairs of the two figures above"},
		{"cpu.handler.askable", fmt.Sprintf("Gateway CPU per tools/call, modern, client declaring %s: %d calls on the serving thread, in-process", AskableCaps, cfg.HandlerCalls), "µs", nil,
			"its calls to a legacy server could park (MRTR); alternating with legacy calls of its own"},
		{"cpu.handler.askable.diff", "Gateway CPU per tools/call, modern declaring capabilities − legacy: median of the differences of calls made back to back", "µs", nil,
			"the pairs of the figure above and its legacy calls; its request repeats the capabilities (+40 bytes of _meta) that a legacy client sends once, at initialize"},
	}
}
