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
}

// StartInproc starts the upstream echo (its path) and the gateway around
// it. Close stops both.
func StartInproc(echo string) (*Inproc, error) {
	log := logfile.New(io.Discard)
	var gw *aggregator.Gateway
	sup := supervisor.New([]adapters.Server{{Name: "echo", Spec: adapters.LaunchSpec{Argv: []string{echo}}}},
		supervisor.Options{Log: log, OnListChanged: func(string) {
			if gw != nil {
				gw.Rebuild()
			}
		}})
	gw = aggregator.New(sup.Upstreams(), "bench", log.Logger(), aggregator.HTTPOptions{Token: inprocToken})
	if err := sup.StartAll(context.Background()); err != nil {
		shutdown(sup)
		return nil, err
	}
	gw.Rebuild()
	h := gw.Handler()
	srv := httptest.NewServer(h)
	return &Inproc{Handler: h, srv: srv, sup: sup, hc: NewHTTPClient(srv.URL+"/mcp", inprocToken)}, nil
}

// Close closes the client's connections and the server, and stops the
// upstream (within 10 s).
func (p *Inproc) Close() {
	p.hc.CloseIdle()
	p.srv.CloseClientConnections()
	p.srv.Close()
	shutdown(p.sup)
}

func shutdown(sup *supervisor.Supervisor) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sup.Shutdown(ctx)
}
