package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// RequireBearer enforces SPEC §3.2 in constant time: a request without
// "Authorization: Bearer <token>" (an empty token admits nobody) gets 401
// with -32001, unread (wire.SkipBody); each 401 is noted in log (at a
// bounded rate, never with the token tried; nil: not noted).
func RequireBearer(token string, log *Log, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := Bearer(r.Header.Get("Authorization"))
		if len(want) == 0 || !ok || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			log.rejected(!ok, r.RemoteAddr)
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-gateway"`)
			wire.SkipBody(w)
			wire.WriteRPCError(w, http.StatusUnauthorized, nil, -32001, "unauthorized: send Authorization: Bearer <token>, the gateway's access token", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Bearer reads the token of an Authorization header's Bearer scheme.
func Bearer(h string) (string, bool) {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(tok), true
}

// CheckOrigin rejects cross-site browser requests (DNS rebinding, SPEC
// §3.4): an Origin header must be a localhost origin or allowed. Requests
// without Origin (non-browser clients) pass. Host is not checked.
func CheckOrigin(allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !originAllowed(origin, allowed) {
			wire.SkipBody(w)
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

// TokenDigest names the caller's bearer token without revealing it: 16
// base64url characters of a SHA-256 (the owner of a modern caller's
// tasks, requestStates and call lines).
func TokenDigest(token string) string {
	sum := sha256.Sum256([]byte("mcp-gateway requestState\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:12])
}
