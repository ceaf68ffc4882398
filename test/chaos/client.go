package chaos

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// This file is a small MCP client over net/http, cheap on CPU (the
// TypeScript SDK costs 1-2 ms of CPU a call): a legacy session
// (initialize, Mcp-Session-Id, server-to-client requests answered on the
// session, its GET stream) and modern 2026-07-28 requests (no session;
// the version, capabilities and client info in _meta and the
// MCP-Protocol-Version, Mcp-Method and Mcp-Name headers; SPEC §3.1, §3.10).

const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// answer is what one request got: the HTTP status and the JSON-RPC
// response with the request's id (Result or Error), or neither for a 202.
type answer struct {
	Status int
	Result json.RawMessage
	Error  *rpcError
	// Notes counts the notifications that came on the request's stream.
	Notes int
}

// client talks to one gateway endpoint with one token.
type client struct {
	url, token string
	http       *http.Client
	ids        atomic.Int64
}

func newClient(url, token string) *client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:        64,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     30 * time.Second,
	}
	return &client{url: url, token: token, http: &http.Client{Transport: tr}}
}

// close drops the client's idle connections.
func (c *client) close() { c.http.Transport.(*http.Transport).CloseIdleConnections() }

// message is one JSON-RPC message as it comes on a stream.
type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// serverRequest answers a request the server sent on a stream: its result,
// or an error.
type serverRequest func(method string, params json.RawMessage) (any, *rpcError)

// post sends one JSON-RPC request (or a response, or a notification: body
// is the whole message) and reads the answer to id. On an SSE answer each
// server-to-client request goes to onRequest, whose reply is posted with
// reply (the legacy session's way); onEvent sees every message, and may
// return true to end the read (a listen's acknowledgement).
func (c *client) post(ctx context.Context, hdr http.Header, body []byte, id int64, onRequest serverRequest,
	reply func(context.Context, []byte) error, onEvent func(message) bool) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return answer{}, fmt.Errorf("make request: %w", err)
	}
	req.Header = hdr.Clone()
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("post: %w", err)
	}
	defer resp.Body.Close()
	a := answer{Status: resp.StatusCode}
	if resp.StatusCode == http.StatusAccepted {
		return a, nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return a, fmt.Errorf("read answer: %w", err)
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			return a, fmt.Errorf("HTTP %d, not a JSON-RPC message: %.200q", resp.StatusCode, b)
		}
		a.Result, a.Error = m.Result, m.Error
		return a, nil
	}
	want := strconv.FormatInt(id, 10)
	err = readSSE(resp.Body, func(data []byte) bool {
		var m message
		if json.Unmarshal(data, &m) != nil {
			return false
		}
		if onEvent != nil && onEvent(m) {
			return true
		}
		switch {
		case m.Method != "" && m.ID != nil: // a server-to-client request
			res, rerr := onRequest(m.Method, m.Params)
			out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			if rerr != nil {
				out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": rerr})
			}
			if reply != nil {
				go func() { _ = reply(ctx, out) }() // the stream must keep being read meanwhile
			}
		case m.Method != "":
			a.Notes++
		case string(m.ID) == want:
			a.Result, a.Error = m.Result, m.Error
			return true
		}
		return false
	})
	if a.Result == nil && a.Error == nil && err == nil && (onEvent == nil) {
		err = errors.New("the stream ended without an answer")
	}
	return a, err
}

// readSSE calls data with each event's data until it returns true or the
// stream ends; it returns the read error, if any.
func readSSE(r io.Reader, data func([]byte) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var buf []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(buf) > 0 && data(buf) {
				return nil
			}
			buf = buf[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(buf) > 0 {
				buf = append(buf, '\n')
			}
			buf = append(buf, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read stream: %w", err)
	}
	return nil
}

// request marshals one JSON-RPC request.
func request(id int64, method string, params any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return b
}

// clientCaps is what every client here declares: elicitation (answered),
// sampling and roots, and the tasks extension for modern ones.
var clientCaps = map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}

// answerServer answers what a server asks during a call: an elicitation
// is accepted with a name, a sampling request gets a fixed text, roots
// none.
func answerServer(method string, _ json.RawMessage) (any, *rpcError) {
	switch method {
	case "elicitation/create":
		return map[string]any{"action": "accept", "content": map[string]any{"name": "chaos"}}, nil
	case "sampling/createMessage":
		return map[string]any{"role": "assistant", "model": "chaos", "content": map[string]any{"type": "text", "text": "sampled by chaos"}}, nil
	case "roots/list":
		return map[string]any{"roots": []any{}}, nil
	case "ping":
		return map[string]any{}, nil
	}
	return nil, &rpcError{Code: -32601, Message: "chaos client: " + method + " not supported"}
}

// session is one legacy session: its id, and the GET stream it keeps open
// for list changes (closed and waited for by end).
type session struct {
	c       *client
	id      string
	stopGet context.CancelFunc
	getDone chan struct{}
	// listChanged counts the notifications/*/list_changed on the GET stream.
	listChanged atomic.Int64
}

// initialize opens a legacy session: initialize, notifications/initialized
// and the GET stream.
func (c *client) initialize(ctx context.Context) (*session, error) {
	params := map[string]any{"protocolVersion": legacyVersion, "capabilities": clientCaps,
		"clientInfo": map[string]any{"name": "chaos-legacy", "version": "1"}}
	id := c.ids.Add(1)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(request(id, "initialize", params)))
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		return nil, fmt.Errorf("initialize: HTTP %d: %.200s", resp.StatusCode, b)
	}
	s := &session{c: c, id: sid}
	if _, err := c.post(ctx, s.header(), []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), 0, nil, nil, nil); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	getCtx, cancel := context.WithCancel(context.Background())
	s.stopGet, s.getDone = cancel, make(chan struct{})
	go s.get(getCtx)
	return s, nil
}

func (s *session) header() http.Header {
	return http.Header{"Mcp-Session-Id": {s.id}, "Mcp-Protocol-Version": {legacyVersion}}
}

// get keeps the session's GET stream open until ctx ends or the session
// does, counting list changes; a stream the gateway closes is not reopened
// (the session may have been deleted).
func (s *session) get(ctx context.Context) {
	defer close(s.getDone)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.c.url, nil)
	if err != nil {
		return
	}
	req.Header = s.header()
	req.Header.Set("Authorization", "Bearer "+s.c.token)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := s.c.http.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return
	}
	_ = readSSE(resp.Body, func(data []byte) bool {
		var m message
		if json.Unmarshal(data, &m) != nil {
			return false
		}
		if strings.HasSuffix(m.Method, "/list_changed") {
			s.listChanged.Add(1)
		}
		if m.Method != "" && m.ID != nil {
			res, rerr := answerServer(m.Method, m.Params)
			out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": res})
			if rerr != nil {
				out, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": rerr})
			}
			go func() { _ = s.reply(ctx, out) }()
		}
		return false
	})
}

// reply posts a response to a server-to-client request on the session.
func (s *session) reply(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_, err := s.c.post(ctx, s.header(), body, 0, nil, nil, nil)
	return err
}

// call makes one request in the session, answering what the server asks
// on the call's stream.
func (s *session) call(ctx context.Context, method string, params any) (answer, error) {
	id := s.c.ids.Add(1)
	return s.c.post(ctx, s.header(), request(id, method, params), id, answerServer, s.reply, nil)
}

// end closes the GET stream and DELETEs the session (best effort: a
// session the fault driver deleted is 404).
func (s *session) end(ctx context.Context) {
	s.stopGet()
	<-s.getDone
	_ = s.c.deleteSession(ctx, s.id)
}

// deleteSession sends DELETE /mcp for session id and returns the status.
func (c *client) deleteSession(ctx context.Context, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("delete session: %w", err)
	}
	resp.Body.Close()
	return nil
}

// modernMeta is the _meta of a modern request; extra (may be nil) adds
// capabilities (the tasks extension).
func modernMeta(tasks bool) map[string]any {
	caps := map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
	if tasks {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    modernVersion,
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "chaos-modern", "version": "1"},
	}
}

// modern makes one modern request: params gets the _meta envelope, and
// the headers name the method and, where the spec requires it, the name
// (a tool's or prompt's name, a resource's URI, a task's id).
func (c *client) modern(ctx context.Context, method, name string, params map[string]any, tasks bool, onEvent func(message) bool) (answer, error) {
	if params == nil {
		params = map[string]any{}
	}
	meta := modernMeta(tasks)
	if m, ok := params["_meta"].(map[string]any); ok { // a progressToken
		for k, v := range m {
			meta[k] = v
		}
	}
	params["_meta"] = meta
	hdr := http.Header{"Mcp-Protocol-Version": {modernVersion}, "Mcp-Method": {method}}
	if name != "" {
		hdr.Set("Mcp-Name", name)
	}
	id := c.ids.Add(1)
	return c.post(ctx, hdr, request(id, method, params), id, answerServer, nil, onEvent)
}

// raw posts body as it is with the given content type and returns the
// HTTP status and up to 4 KiB of the answer (the bad-body burst).
func (c *client) raw(ctx context.Context, body io.Reader, contentType string, hdr http.Header) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, body)
	if err != nil {
		return 0, nil, fmt.Errorf("make request: %w", err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("post: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, b, nil
}
