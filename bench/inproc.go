package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// inprocToken is the bearer token of an in-process gateway.
const inprocToken = "bench-inproc-token"

// Inproc is the gateway's pieces built in this process, as the daemon
// builds them (supervisor.New + aggregator.New + its HTTP handler), with
// the Go echo as the one upstream, behind an httptest server on loopback.
// The handler-CPU figure calls Handler directly; the in-process
// benchmarks (inproc_test.go) go through srv.
type Inproc struct {
	Handler http.Handler
	srv     *httptest.Server
	sup     *supervisor.Supervisor
	hc      *HTTPClient
	tracing *telemetry.Tracing
}

// StartInproc starts the upstream echo (its path) and the gateway around
// it, telling nothing of its calls. Close stops both.
func StartInproc(echo string) (*Inproc, error) { return StartInprocTelemetry(echo, nil, nil) }

// StartInprocTelemetry is StartInproc with what the daemon tells of its
// calls (SPEC §11): with metrics, the call log (discarded) and the
// metrics; with tracing too, the server and client spans, exported by
// tracing's goroutine (started here, stopped by Close).
func StartInprocTelemetry(echo string, metrics *telemetry.Metrics, tracing *telemetry.Tracing) (*Inproc, error) {
	log := logfile.New(io.Discard)
	tel := aggregator.Telemetry{Metrics: metrics, Tracer: tracing.Tracer()}
	if metrics != nil {
		tel.CallLog = log
	}
	var gw *aggregator.Gateway
	sup := supervisor.New([]adapters.Server{{Name: "echo", Spec: adapters.LaunchSpec{Argv: []string{echo}}}},
		supervisor.Options{Log: log, Metrics: metrics, Tracer: tel.Tracer, OnListChanged: func(string) {
			if gw != nil {
				gw.Rebuild()
			}
		}})
	gw = aggregator.New(sup.Upstreams(), "bench", log.Logger(), aggregator.HTTPOptions{Token: inprocToken, Telemetry: tel})
	if err := sup.StartAll(context.Background()); err != nil {
		shutdown(sup)
		return nil, err
	}
	gw.Rebuild()
	go tracing.Run()
	h := gw.Handler()
	srv := httptest.NewServer(h)
	return &Inproc{Handler: h, srv: srv, sup: sup, hc: NewHTTPClient(srv.URL+"/mcp", inprocToken), tracing: tracing}, nil
}

// Close closes the client's connections and the server, and stops the
// upstream (within 10 s).
func (p *Inproc) Close() {
	p.hc.CloseIdle()
	p.srv.CloseClientConnections()
	p.srv.Close()
	shutdown(p.sup)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = p.tracing.Shutdown(ctx)
}

func shutdown(sup *supervisor.Supervisor) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sup.Shutdown(ctx)
}
