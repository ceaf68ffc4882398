package httpup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
)

// The waits of reaching an HTTP server (SPEC §7.9). There is no bound on
// waiting for an answer's headers: a server that answers a long tool
// call in JSON sends them when the call ends, and the call's own context
// bounds it.
const (
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
	tr.MaxResponseHeaderBytes = maxAnswerHead
	return &http.Client{Transport: tr, CheckRedirect: sameOrigin}
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

// remote is one server's url as requests reach it: the HTTP client of
// every server, or the wire client where the url allows it; the
// configured headers (their values are secrets); every body read under
// the memory budget with a bound on a stall; and lost, told when a
// request cannot reach the server. It is set once, by New.
type remote struct {
	client  *http.Client
	wire    *wireClient // for a plain-http url without a proxy; else nil
	url     string      // the MCP endpoint, as configured
	u       *url.URL    // url, parsed
	headers http.Header // configured; their values are secrets
	stall   time.Duration
	budget  *budget.Budget // what is read of the server is counted here; nil: nothing
	lost    func(error)    // the run's: the server cannot be reached
}

// Config is what a Transport is made with: the server's name and log,
// the HTTP client of every server (NewClient), its url and configured
// headers (values are secrets), the longest pause in the middle of a
// message (Options.EventStall), the memory budget (nil: none), and lost,
// called (from any goroutine, maybe more than once) when the server
// cannot be reached any more.
type Config struct {
	Name    string
	Log     *logfile.Log
	Client  *http.Client
	URL     string
	Headers map[string]string
	Stall   time.Duration
	Budget  *budget.Budget
	Lost    func(error)
}

func newRemote(cfg Config) *remote {
	r := &remote{client: cfg.Client, url: cfg.URL, headers: http.Header{}, stall: cfg.Stall, budget: cfg.Budget, lost: cfg.Lost}
	r.u, _ = url.Parse(cfg.URL) // checked by the adapter; an error shows on the first request
	if r.u == nil {
		r.u = &url.URL{}
	}
	r.wire = newWireClient(r.u)
	for k, v := range cfg.Headers {
		r.headers.Set(k, v)
	}
	return r
}

// close ends the wire client's connection, if any.
func (t *remote) close() {
	if t.wire != nil {
		t.wire.close()
	}
}

// dropIdle closes the wire client's idle connections (wireClient.dropIdle).
func (t *remote) dropIdle() {
	if t.wire != nil {
		t.wire.dropIdle()
	}
}

// roundTrip sends req over the wire client when the url allows it (see
// wireClient), else with the Transport; a redirect the wire client got is
// sent again with the Transport, whose policy follows it within the
// url's origin only (sameOrigin).
func (t *remote) roundTrip(req *http.Request) (*http.Response, error) {
	if t.wire != nil {
		resp, err := t.wire.do(req)
		if err != nil || !isRedirect(resp) {
			return resp, err
		}
		drain(resp)
		if req.GetBody != nil {
			if req.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
	}
	return t.client.Do(req)
}

// isRedirect tells a redirect that names where to go.
func isRedirect(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return resp.Header.Get("Location") != ""
	}
	return false
}

// contentType is resp's media type, lower case, without parameters.
func contentType(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt
}

// drain reads a little of an answer nobody needs and closes it, so that
// its connection can be used again.
func drain(resp *http.Response) {
	buf := make([]byte, 4096)
	_, _ = resp.Body.Read(buf)
	resp.Body.Close()
}

// newRequest is an HTTP request to url with the configured headers and
// body (none if nil). url was parsed once, by newRemote.
func (t *remote) newRequest(ctx context.Context, method string, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, "", rd)
	if err != nil {
		return nil, err
	}
	u := *t.u
	req.URL, req.Host = &u, u.Host
	req.Header = make(http.Header, len(t.headers)+6)
	t.baseHeaders(req.Header)
	return req, nil
}

// reader is the bodyReader of resp, an answer to a request on ctx that
// cancel ends: under the memory budget.
func (t *remote) reader(ctx context.Context, resp *http.Response, cancel context.CancelFunc) *bodyReader {
	return &bodyReader{body: resp.Body, budget: t.budget, ctx: ctx, max: t.budget.MaxLine(maxMessage), stall: t.stall, cancel: cancel}
}

// baseHeaders sets the configured headers.
func (t *remote) baseHeaders(h http.Header) {
	for k, v := range t.headers {
		h[k] = v
	}
}

// failed turns a request's error into what the caller gets: a reachError
// also loses the server (lost).
func (t *remote) failed(err error) error {
	var reach *reachError
	if errors.As(err, &reach) {
		t.lost(err)
	}
	return err
}
