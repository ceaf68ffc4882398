package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// HTTPClient is the load generator's MCP Streamable HTTP client: raw
// net/http with keep-alive, one request body built by hand per call, and a
// response read either as JSON or as an SSE stream (whichever the server
// chose). It was chosen over go-sdk's client because it costs the client
// less CPU per call; the benchmark measures both (figure cpu.client.*).
type HTTPClient struct {
	url   string
	token string
	hc    *http.Client
}

// NewHTTPClient returns a client for the /mcp endpoint url.
func NewHTTPClient(url, token string) *HTTPClient {
	tr := &http.Transport{
		MaxIdleConns:        512,
		MaxIdleConnsPerHost: 512,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
	return &HTTPClient{url: url, token: token, hc: &http.Client{Transport: tr}}
}

// CloseIdle closes the client's idle connections.
func (c *HTTPClient) CloseIdle() { c.hc.CloseIdleConnections() }

// Protocol versions of the two eras the client speaks.
const (
	// LegacyVersion is sent in initialize and then in the
	// MCP-Protocol-Version header of every request of the session.
	LegacyVersion = "2025-11-25"
	// ModernVersion (MCP 2026-07-28) has no initialize and no session:
	// every request names it in _meta and in MCP-Protocol-Version.
	ModernVersion = "2026-07-28"
)

// modernMeta is the _meta member every modern request carries: the
// protocol version and the client's capabilities (none: Modern).
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + ModernVersion + `","io.modelcontextprotocol/clientCapabilities":{}}`

// AskableCaps are the client capabilities of ModernAskable: every one a
// server's request can need, so that a legacy server may ask (SPEC §4.6).
const AskableCaps = `{"elicitation":{},"roots":{},"sampling":{}}`

// Session is one caller of the gateway: a legacy MCP session
// (NewSession: initialize, then Mcp-Session-Id on every request) or a
// modern one (Modern: no handshake, _meta and headers on every request).
// Its Call is safe for concurrent use (16 clients on one session).
type Session struct {
	c       *HTTPClient
	id      string
	version string
	modern  bool
	meta    string // a modern request's _meta member
	nextID  atomic.Int64
	closed  atomic.Bool
}

// Modern returns a caller in the modern era (MCP 2026-07-28): nothing is
// sent until the first Call, and each Call carries params._meta with the
// protocol version and client capabilities, and the MCP-Protocol-Version,
// Mcp-Method and (for tools/call) Mcp-Name headers the gateway checks
// against the body. Close is a no-op: there is no session to end.
func (c *HTTPClient) Modern() *Session {
	return &Session{c: c, version: ModernVersion, modern: true, meta: modernMeta}
}

// ModernAskable is Modern with AskableCaps declared: its calls to a
// legacy server are the ones that could park (MRTR, SPEC §4.6).
func (c *HTTPClient) ModernAskable() *Session {
	s := c.Modern()
	s.meta = strings.Replace(modernMeta, `:{}}`, `:`+AskableCaps+`}`, 1)
	return s
}

// NewSession initializes a legacy session (LegacyVersion).
func (c *HTTPClient) NewSession(ctx context.Context) (*Session, error) {
	s := &Session{c: c}
	body := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + LegacyVersion + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	msg, hdr, err := s.post(ctx, body, "0", "initialize", "")
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := resultOf(msg); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s.id = hdr.Get("Mcp-Session-Id")
	if s.id == "" {
		return nil, fmt.Errorf("initialize: no Mcp-Session-Id in the response")
	}
	s.version = LegacyVersion
	if _, _, err := s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "", "notifications/initialized", ""); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return s, nil
}

// Call sends one request and returns the raw result. params is a JSON
// object; a modern Call adds _meta to it (params must not hold one).
func (s *Session) Call(ctx context.Context, method string, params []byte) ([]byte, error) {
	body, id, name, err := s.body(method, params)
	if err != nil {
		return nil, err
	}
	msg, _, err := s.post(ctx, body, id, method, name)
	if err != nil {
		return nil, err
	}
	return resultOf(msg)
}

// body renders the next request: its JSON-RPC message, its id, and for a
// modern tools/call the tool's name (for Mcp-Name).
func (s *Session) body(method string, params []byte) (body []byte, id, name string, err error) {
	id = strconv.FormatInt(s.nextID.Add(1), 10)
	body = make([]byte, 0, len(params)+len(method)+len(s.meta)+64)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"method":"`...)
	body = append(body, method...)
	body = append(body, `","params":`...)
	if s.modern {
		rest, ok := openObject(params)
		if !ok {
			return nil, "", "", fmt.Errorf("modern %s: params must be a JSON object", method)
		}
		body = append(body, '{')
		body = append(body, s.meta...)
		if r := bytes.TrimLeft(rest, " \t\r\n"); len(r) > 0 && r[0] != '}' {
			body = append(body, ',')
		}
		body = append(body, rest...)
		if method == "tools/call" {
			raw, _ := jsonrpc.Member(params, "name")
			name, _ = jsonrpc.Text(raw)
		}
	} else {
		body = append(body, params...)
	}
	return append(body, '}'), id, name, nil
}

// Wire returns the bytes of the HTTP/1.1 request Call would send next
// (request line, headers, body), for a server to parse as if it came off
// the connection (the handler-CPU figure).
func (s *Session) Wire(method string, params []byte) ([]byte, error) {
	body, _, name, err := s.body(method, params)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, s.c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	s.headers(req, method, name)
	var b bytes.Buffer
	if err := req.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// openObject returns what follows the '{' that opens the object raw.
func openObject(raw []byte) ([]byte, bool) {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	return t[1:], true
}

// Close ends a legacy session (DELETE /mcp); a modern caller has none.
// Later calls do nothing.
func (s *Session) Close() {
	if s.modern || s.closed.Swap(true) {
		return
	}
	req, _ := http.NewRequest(http.MethodDelete, s.c.url, nil)
	s.headers(req, "", "")
	if resp, err := s.c.hc.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// headers sets a request's headers; method and name (the tool of a
// tools/call) are mirrored into Mcp-Method and Mcp-Name on a modern one.
func (s *Session) headers(req *http.Request, method, name string) {
	h := req.Header
	h["Authorization"] = []string{"Bearer " + s.c.token}
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"application/json, text/event-stream"}
	if s.modern {
		h["Mcp-Protocol-Version"] = []string{s.version}
		h["Mcp-Method"] = []string{method}
		if name != "" {
			h["Mcp-Name"] = []string{headerValue(name)}
		}
		return
	}
	if s.id != "" {
		h["Mcp-Session-Id"] = []string{s.id}
		h["Mcp-Protocol-Version"] = []string{s.version}
	}
}

// headerValue is v as an HTTP field value: as it is when it is visible
// ASCII, otherwise the Base64 sentinel form MCP 2026-07-28 defines.
func headerValue(v string) string {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
		}
	}
	return v
}

// sseReader is a reusable reader for SSE responses, with a line buffer
// that keeps its capacity (growing a fresh buffer to 8 MiB per call costs
// more than the one copy out).
type sseReader struct {
	r    *bufio.Reader
	line []byte
	data []byte
}

var sseReaders = sync.Pool{New: func() any { return &sseReader{r: bufio.NewReaderSize(nil, 32<<10)} }}

// post sends body and returns the JSON-RPC response whose id is id (nil
// for a notification, answered 202). The body is read to its end so that
// the connection is reused.
func (s *Session) post(ctx context.Context, body []byte, id, method, name string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	s.headers(req, method, name)
	resp, err := s.c.hc.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if id == "" {
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
			return nil, nil, fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return nil, resp.Header, nil
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, b)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msg, err := readSSE(resp.Body, id)
		_, _ = io.Copy(io.Discard, resp.Body)
		return msg, resp.Header, err
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(resp.ContentLength))
	}
	_, err = buf.ReadFrom(resp.Body)
	return buf.Bytes(), resp.Header, err
}

// readSSE reads events until the JSON-RPC response with id; notifications
// and requests before it are skipped.
func readSSE(body io.Reader, id string) ([]byte, error) {
	sr := sseReaders.Get().(*sseReader)
	sr.r.Reset(body)
	defer func() { sr.r.Reset(nil); sseReaders.Put(sr) }()
	sr.data = sr.data[:0]
	for {
		var err error
		sr.line, err = readLine(sr.r, sr.line[:0])
		line := sr.line
		if err != nil && len(line) == 0 {
			return nil, fmt.Errorf("SSE stream ended before the response: %w", err)
		}
		switch {
		case len(line) == 0:
			if len(sr.data) > 0 && isResponse(sr.data, id) {
				return bytes.Clone(sr.data), nil
			}
			sr.data = sr.data[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(sr.data) > 0 {
				sr.data = append(sr.data, '\n')
			}
			sr.data = append(sr.data, bytes.TrimPrefix(line[5:], []byte(" "))...)
		}
		if err != nil {
			if len(sr.data) > 0 && isResponse(sr.data, id) {
				return bytes.Clone(sr.data), nil
			}
			return nil, fmt.Errorf("SSE stream ended before the response: %w", err)
		}
	}
}

func isResponse(msg []byte, id string) bool {
	if _, ok := jsonrpc.Member(msg, "method"); ok {
		return false
	}
	got, ok := jsonrpc.Member(msg, "id")
	return ok && string(got) == id
}
