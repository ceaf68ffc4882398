package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// TCPSession is an MCP session over one keep-alive HTTP/1.1 connection
// that the caller's goroutine writes and reads itself: no net/http
// Transport, whose two goroutines per connection cost about 60–100 µs of
// latency per request on the benchmark machine (a trivial net/http POST
// round trip had p50 125–170 µs with net/http's client, 62–67 µs with
// this one). The benchmark uses it for one figure only, to show how much
// of the added latency is the client's; HTTPClient stays the load
// generator. Not safe for concurrent use.
type TCPSession struct {
	conn    net.Conn
	br      *bufio.Reader
	host    string
	path    string
	token   string
	id      string
	nextID  int64
	headers []byte
}

// DialSession connects to the /mcp endpoint u and initializes a session.
func DialSession(ctx context.Context, u, token string) (*TCPSession, error) {
	pu, err := url.Parse(u)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", pu.Host)
	if err != nil {
		return nil, err
	}
	s := &TCPSession{conn: conn, br: bufio.NewReaderSize(conn, 32<<10), host: pu.Host, path: pu.Path, token: token}
	s.buildHeaders()
	msg, hdr, err := s.post([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`), "0")
	if err == nil {
		_, err = resultOf(msg)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s.id = hdr.Get("Mcp-Session-Id")
	s.buildHeaders()
	if _, _, err := s.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), ""); err != nil {
		conn.Close()
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	return s, nil
}

// Call sends one request and returns the raw result.
func (s *TCPSession) Call(_ context.Context, method string, params []byte) ([]byte, error) {
	s.nextID++
	id := strconv.FormatInt(s.nextID, 10)
	body := make([]byte, 0, len(params)+len(method)+64)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"method":"`...)
	body = append(body, method...)
	body = append(body, `","params":`...)
	body = append(body, params...)
	body = append(body, '}')
	msg, _, err := s.post(body, id)
	if err != nil {
		return nil, err
	}
	return resultOf(msg)
}

// Close closes the connection (the session is left to expire).
func (s *TCPSession) Close() { s.conn.Close() }

// buildHeaders renders the request head every POST shares.
func (s *TCPSession) buildHeaders() {
	var h strings.Builder
	fmt.Fprintf(&h, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", s.path, s.host, s.token)
	if s.id != "" {
		fmt.Fprintf(&h, "Mcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-06-18\r\n", s.id)
	}
	s.headers = []byte(h.String())
}

func (s *TCPSession) post(body []byte, id string) ([]byte, http.Header, error) {
	req := make([]byte, 0, len(s.headers)+len(body)+40)
	req = append(req, s.headers...)
	req = append(req, "Content-Length: "...)
	req = strconv.AppendInt(req, int64(len(body)), 10)
	req = append(req, "\r\n\r\n"...)
	req = append(req, body...)
	if _, err := s.conn.Write(req); err != nil {
		return nil, nil, err
	}
	resp, err := http.ReadResponse(s.br, nil)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _, _ = io.Copy(io.Discard, resp.Body); resp.Body.Close() }()
	if id == "" {
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
		return msg, resp.Header, err
	}
	b, err := io.ReadAll(resp.Body)
	return b, resp.Header, err
}
