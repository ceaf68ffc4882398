package aggregator

import (
	"encoding/json"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/aggregator/auth"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// Handler returns the HTTP handler: /mcp (Origin, auth, then the
// gateway's own Streamable HTTP relay, transport.go), /health (no auth),
// /metrics (auth; with HTTPOptions.Telemetry.Metrics), and 404 for
// anything else. Every handler it returns serves the one
// endpoint New made: the same sessions, calls and tasks.
func (g *Gateway) Handler() http.Handler {
	o := g.h.o
	if o.Health == nil {
		o.Health = func() any { return g.Health() }
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", auth.CheckOrigin(o.AllowedOrigins, auth.RequireBearer(o.Token, g.h.auth, g.h)))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			wire.SkipBody(w) // a GET has none to wait for
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(o.Health())
	})
	mux.Handle("GET /metrics", g.metricsHandler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		wire.SkipBody(w)
		http.NotFound(w, r)
	})
	return mux
}

// metricsHandler serves /metrics: the registry, behind the bearer token
// (SPEC §11.2); 404 without one.
func (g *Gateway) metricsHandler() http.Handler {
	if g.tel.Metrics == nil {
		return http.NotFoundHandler()
	}
	return auth.RequireBearer(g.h.o.Token, g.h.auth, g.tel.Metrics.Handler())
}
