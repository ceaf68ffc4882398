package httpup

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The waits of reaching an HTTP server (SPEC §7.9). There is no bound on
// waiting for an answer's headers: a server that answers a long tool
// call in JSON sends them when the call ends, and the call's own context
// bounds it.
const (
	// dialTimeout bounds a TCP connection to the server.
	dialTimeout = 10 * time.Second
	// tlsTimeout bounds a TLS handshake.
	tlsTimeout = 10 * time.Second
	// maxRedirects bounds a chain of same-origin redirects.
	maxRedirects = 10
)

// NewClient is the client of every HTTP server of one supervisor
// (SPEC §7.9): TLS verified against the system roots (Go's defaults,
// which SSL_CERT_FILE and SSL_CERT_DIR extend), the proxy from the
// environment (HTTPS_PROXY, NO_PROXY; never for loopback), bounded
// connection and TLS set-up, idle connections kept for as many
// concurrent calls as a busy client makes, and redirects followed only
// within the origin of the url that was asked (sameOrigin): the
// configured headers, secrets, never reach another host.
func NewClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = tlsTimeout
	tr.MaxIdleConns = 256
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr, CheckRedirect: sameOrigin}
}

// redirectError is a redirect the gateway refused to follow.
type redirectError struct{ to string }

func (e *redirectError) Error() string {
	return "the server redirected to " + e.to + ", another origin; the gateway follows redirects only within the url's scheme, host and port, so that its headers stay there"
}

// sameOrigin is the client's redirect policy: a redirect to the scheme,
// host and port of the first request is followed (up to maxRedirects),
// any other refused.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if from, to := origin(via[0].URL), origin(req.URL); from != to {
		return &redirectError{to: to}
	}
	return nil
}

// origin is a URL's scheme://host:port, the port made explicit.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// ShownURL is a URL as messages and the log show it: without its
// userinfo, query and fragment, where hosted servers keep their keys.
func ShownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the server's url"
	}
	clean := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	s := clean.String()
	if u.RawQuery != "" {
		s += "?…"
	}
	return s
}
