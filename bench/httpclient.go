package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/bench/internal/rawjson"
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

// Session is one MCP session on the gateway. Its Call is safe for
// concurrent use (16 clients on one session).
type Session struct {
	c       *HTTPClient
	id      string
	version string
	nextID  atomic.Int64
}

// NewSession initializes a session.
func (c *HTTPClient) NewSession(ctx context.Context) (*Session, error) {
	s := &Session{c: c}
	body := []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	msg, hdr, err := s.post(ctx, body, "0")
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
	s.version = "2025-06-18"
	if _, _, err := s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), ""); err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return s, nil
}

// Call sends one request and returns the raw result.
func (s *Session) Call(ctx context.Context, method string, params []byte) ([]byte, error) {
	id := strconv.FormatInt(s.nextID.Add(1), 10)
	body := make([]byte, 0, len(params)+len(method)+64)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"method":"`...)
	body = append(body, method...)
	body = append(body, `","params":`...)
	body = append(body, params...)
	body = append(body, '}')
	msg, _, err := s.post(ctx, body, id)
	if err != nil {
		return nil, err
	}
	return resultOf(msg)
}

// Close ends the session (DELETE /mcp).
func (s *Session) Close() {
	req, _ := http.NewRequest(http.MethodDelete, s.c.url, nil)
	s.headers(req)
	if resp, err := s.c.hc.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

func (s *Session) headers(req *http.Request) {
	h := req.Header
	h["Authorization"] = []string{"Bearer " + s.c.token}
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{"application/json, text/event-stream"}
	if s.id != "" {
		h["Mcp-Session-Id"] = []string{s.id}
		h["Mcp-Protocol-Version"] = []string{s.version}
	}
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
func (s *Session) post(ctx context.Context, body []byte, id string) ([]byte, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.c.url, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	s.headers(req)
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
	if _, ok := rawjson.Get(msg, "method"); ok {
		return false
	}
	got, ok := rawjson.Get(msg, "id")
	return ok && string(got) == id
}
