package aggregator

import (
	"crypto/subtle"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	// Health produces the /health document.
	Health func() any
}

// Defaults for HTTPOptions.
const (
	DefaultSessionTimeout = time.Hour
	DefaultMaxSessions    = 100
	DefaultMaxBodyBytes   = 64 << 20
)

// Handler returns the HTTP handler: /mcp (Origin, auth, the transport
// fixes, session cap, then go-sdk's Streamable HTTP), /health (no auth),
// and 404 for anything else.
func (g *Gateway) Handler(o HTTPOptions) http.Handler {
	if o.SessionTimeout <= 0 {
		o.SessionTimeout = DefaultSessionTimeout
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server }, &mcp.StreamableHTTPOptions{
		SessionTimeout: o.SessionTimeout,
		// The sandbox proxy forwards under its own Host, possibly over
		// loopback (SPEC §3.4): Host is not checked; Origin is, below.
		DisableLocalhostProtection: true,
		MaxRequestBodyBytes:        o.MaxBodyBytes,
		Logger:                     g.log,
	})
	capped := &sessionCap{g: g, max: o.MaxSessions, next: stream}
	// transport (transport.go) fixes where go-sdk differs from the
	// Streamable HTTP spec: sessions, bodies, Accept, versions, DELETE.
	front := &transport{next: capped, maxBody: o.MaxBodyBytes, calls: callsFor(g.server), idleTimeout: o.SessionTimeout}
	mux := http.NewServeMux()
	mux.Handle("/mcp", checkOrigin(o.AllowedOrigins, requireBearer(o.Token, front)))
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(o.Health())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close") // as for 401: do not wait for a body
		http.NotFound(w, r)
	})
	return mux
}

// requireBearer enforces SPEC §3.2 in constant time.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := bearer(r.Header.Get("Authorization"))
		if len(want) == 0 || !ok || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-gateway"`)
			// Closing, net/http does not wait to drain the unread body:
			// a caller without the token sending a body it never finishes
			// held its connection, and enough of them all descriptors.
			w.Header().Set("Connection", "close")
			writeRPCError(w, http.StatusUnauthorized, nil, -32001, "unauthorized: send Authorization: Bearer <token>, the gateway's access token", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
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
			writeRPCError(w, http.StatusForbidden, nil, -32000, "forbidden: Origin "+origin+" is not allowed (see --allowed-origins)", nil)
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

// sessionCap answers 503 to an initialize (a POST without Mcp-Session-Id)
// when MaxSessions sessions exist (SPEC §3.5). go-sdk has no such option.
//
// It counts the sessions it admitted (pruned to those go-sdk still has)
// plus the initializes in flight. A session moves from in flight to
// admitted, under one lock, when its response starts, so it is never
// counted twice; counting go-sdk's own list as well did, while go-sdk had
// registered a session whose response had not started yet.
type sessionCap struct {
	g        *Gateway
	max      int
	next     http.Handler
	mu       sync.Mutex
	inflight int
	admitted map[string]*admission // by session id
}

// admission is a session the cap let in.
type admission struct {
	at   time.Time
	seen bool // it has been in go-sdk's session list
}

// registerGrace is how long an admitted session may be missing from
// go-sdk's list before it is taken to have ended.
const registerGrace = 10 * time.Second

func (c *sessionCap) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
		c.next.ServeHTTP(w, r)
		return
	}
	c.mu.Lock()
	// The snapshot is taken under c.mu: a stale one could drop a session
	// another admission has just seen registered.
	live := map[string]bool{}
	for ss := range c.g.server.Sessions() {
		live[ss.ID()] = true
	}
	for id, a := range c.admitted {
		switch {
		case live[id]:
			a.seen = true
		case a.seen || time.Since(a.at) > registerGrace:
			// Ended; or never registered (go-sdk may set the id header
			// before the session is in its list, hence the grace).
			delete(c.admitted, id)
		}
	}
	if len(c.admitted)+c.inflight >= c.max {
		c.mu.Unlock()
		w.Header().Set("Retry-After", "5")
		writeRPCError(w, http.StatusServiceUnavailable, nil, -32000, "too many sessions: the gateway serves at most "+strconv.Itoa(c.max)+"; end one with DELETE /mcp or retry later", nil)
		return
	}
	c.inflight++
	c.mu.Unlock()
	// The reservation becomes an admitted session as soon as the response
	// carries its id (go-sdk may write or flush before setting it), or
	// ends with the handler.
	released := false
	release := func(final bool) {
		id := w.Header().Get("Mcp-Session-Id")
		c.mu.Lock()
		defer c.mu.Unlock()
		if released || (id == "" && !final) {
			return
		}
		released = true
		c.inflight--
		if id != "" {
			if c.admitted == nil {
				c.admitted = map[string]*admission{}
			}
			c.admitted[id] = &admission{at: time.Now()}
		}
	}
	defer c.settle(w)
	defer release(true)
	c.next.ServeHTTP(&releaseWriter{ResponseWriter: w, release: func() { release(false) }}, r)
}

// settle runs when an initialize's handler has returned: go-sdk has then
// registered the session, or closed it because initialize failed. A live
// session is marked seen, so that it is dropped as soon as it ends; a dead
// one is dropped now. Without this, a session was pruned only after the
// next initialize had seen it live: a failed initialize, or a session that
// expired before any other initialize came, held its slot for
// registerGrace (10 s), and 100 bad initializes locked everyone out.
func (c *sessionCap) settle(w http.ResponseWriter) {
	id := w.Header().Get("Mcp-Session-Id")
	if id == "" {
		return
	}
	live := false
	for ss := range c.g.server.Sessions() {
		if ss.ID() == id {
			live = true
			break
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.admitted[id]; a != nil {
		if live {
			a.seen = true
		} else {
			delete(c.admitted, id)
		}
	}
}

// releaseWriter calls release when the response starts.
type releaseWriter struct {
	http.ResponseWriter
	release func()
}

func (w *releaseWriter) WriteHeader(code int) {
	w.release()
	w.ResponseWriter.WriteHeader(code)
}

func (w *releaseWriter) Write(b []byte) (int, error) {
	w.release()
	return w.ResponseWriter.Write(b)
}

func (w *releaseWriter) Flush() {
	w.release()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *releaseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
