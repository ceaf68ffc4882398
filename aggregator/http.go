package aggregator

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
)

// HTTPOptions configures the endpoint (SPEC §3).
type HTTPOptions struct {
	// Token is the bearer token; an empty token fails closed (every /mcp
	// request is 401), SPEC §3.2.
	Token string
	// AllowedOrigins are Origin values accepted besides localhost ones,
	// e.g. "https://app.example.com" (SPEC §3.4). "*" accepts any.
	AllowedOrigins []string
	// SessionTimeout is the idle expiry of a session (default 3600 s).
	SessionTimeout time.Duration
	// MaxSessions caps concurrent sessions (default 100); the next
	// initialize gets 503.
	MaxSessions int
	// MaxBodyBytes caps one request body (default 64 MiB; SPEC §3.9 needs
	// at least 8 MiB). Larger bodies get 413.
	MaxBodyBytes int64
	// BodyTimeout bounds reading one request body (default 60 s); past
	// it the client gets 408.
	BodyTimeout time.Duration
	// Budget is the memory budget request bodies are read from (SPEC
	// §3.9, internal/budget), shared with the servers' side; a body that
	// does not fit waits briefly, then gets 503. nil: no budget.
	Budget *budget.Budget
	// StateTTL is how long an MRTR requestState the gateway issues is good
	// for, and how long a parked call waits for its retry (default 10 min,
	// SPEC §4.6).
	StateTTL time.Duration
	// Tasks bounds the tasks the gateway keeps for callers (SPEC §4.7;
	// zero fields take their defaults, see TaskLimits).
	Tasks TaskLimits
	// Health produces the /health document (default: Gateway.Health).
	Health func() any
	// Telemetry is what the endpoint tells of its requests: the call
	// log, /metrics, traces (SPEC §11; package record). Zero: nothing.
	Telemetry Telemetry
}

// Telemetry is what the endpoint tells about its requests (SPEC §11):
// record.Telemetry, the package whose records tell it.
type Telemetry = record.Telemetry

// Defaults for HTTPOptions.
const (
	DefaultSessionTimeout = time.Hour
	DefaultMaxSessions    = 100
	DefaultMaxBodyBytes   = 64 << 20
	DefaultStateTTL       = 10 * time.Minute
)

// newHandler makes the gateway's /mcp handler with o's defaults filled in.
func newHandler(g *Gateway, o HTTPOptions) *handler {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = DefaultBodyTimeout
	}
	if o.StateTTL <= 0 {
		o.StateTTL = DefaultStateTTL
	}
	if o.Health == nil {
		o.Health = func() any { return g.Health() }
	}
	h := &handler{g: g, o: o, sessions: newSessions(o.MaxSessions, o.SessionTimeout), listeners: map[*listener]struct{}{},
		bridges: bridges{parked: map[string]*bridgeCall{}}, tasks: newTaskTable(o.Tasks), subs: registry.NewSubscriptions(), auth: newAuthLog(g.log)}
	h.baseCtx, h.cancelBase = context.WithCancelCause(context.Background())
	h.sessions.onEnd = h.sessionEnded
	return h
}

// Handler returns the HTTP handler: /mcp (Origin, auth, then the
// gateway's own Streamable HTTP relay, transport.go), /health (no auth),
// /metrics (auth; with HTTPOptions.Telemetry.Metrics), and 404 for
// anything else. Every handler it returns serves the one
// endpoint New made: the same sessions, calls and tasks.
func (g *Gateway) Handler() http.Handler {
	o := g.h.o
	mux := http.NewServeMux()
	mux.Handle("/mcp", checkOrigin(o.AllowedOrigins, requireBearer(o.Token, g.h.auth, g.h)))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			skipBody(w) // a GET has none to wait for
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(o.Health())
	})
	mux.Handle("GET /metrics", g.metricsHandler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		skipBody(w)
		http.NotFound(w, r)
	})
	return mux
}

// requireBearer enforces SPEC §3.2 in constant time; each 401 is noted in
// log (at a bounded rate, never with the token tried).
func requireBearer(token string, log *authLog, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		if len(want) == 0 || !ok || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			log.rejected(!ok, r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-gateway"`)
			skipBody(w)
			wire.WriteRPCError(w, http.StatusUnauthorized, nil, -32001, "unauthorized: send Authorization: Bearer <token>, the gateway's access token", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// skipBody is for an answer that does not read the request's body: the
// connection closes after it, and reading what is left of the body fails
// at once. net/http otherwise drains up to 256 KiB of an unread body
// first: a caller without the token that sends headers and never its body
// held its connection (and, with enough of them, every descriptor), even
// past a 401 marked Connection: close.
func skipBody(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

func bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// checkOrigin rejects cross-site browser requests (DNS rebinding, SPEC
// §3.4): an Origin header must be a localhost origin or allowed. Requests
// without Origin (non-browser clients) pass. Host is not checked.
func checkOrigin(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !originAllowed(origin, allowed) {
			skipBody(w)
			wire.WriteRPCError(w, http.StatusForbidden, nil, -32000, "forbidden: Origin "+origin+" is not allowed (see --allowed-origins)", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func originAllowed(origin string, allowed []string) bool {
	for _, a := range allowed {
		if a == "*" || strings.EqualFold(strings.TrimSuffix(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// tokenDigest names the caller's bearer token without revealing it.
func tokenDigest(token string) string {
	sum := sha256.Sum256([]byte("mcp-gateway requestState\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}
