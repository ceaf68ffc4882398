package conformance

// Plain HTTP requests to a gateway, to check what it lists before the
// scenarios run: some scenarios pass (or say "not testable") when what
// they call is missing.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

const modernVersion = "2026-07-28"

// modernMeta is the request _meta of the harness's own 2026-07-28 requests.
var modernMeta = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    modernVersion,
	"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "conformance-test", "version": "1"},
	"io.modelcontextprotocol/clientCapabilities": map[string]any{},
}

// rpcClient sends the harness's own requests to one endpoint, in one era:
// a legacy session (initialize first) or 2026-07-28 requests.
type rpcClient struct {
	endpoint, session string
	modern            bool
	http              *http.Client
	id                int
}

const legacyListVersion = "2025-06-18"

func newRPCClient(endpoint string, modern bool) (*rpcClient, error) {
	c := &rpcClient{endpoint: endpoint, modern: modern, http: &http.Client{Timeout: 30 * time.Second}}
	if modern {
		return c, nil
	}
	resp, body, err := c.post("initialize", map[string]any{"protocolVersion": legacyListVersion, "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "conformance-test", "version": "1"}}, false)
	if err != nil {
		return nil, err
	}
	if c.session = resp.Header.Get("Mcp-Session-Id"); resp.StatusCode != http.StatusOK || c.session == "" {
		return nil, fmt.Errorf("initialize: status %d, Mcp-Session-Id %q, body %s", resp.StatusCode, c.session, body)
	}
	if resp, body, err = c.post("notifications/initialized", nil, true); err != nil || resp.StatusCode != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized: want 202, got %v %s (%v)", resp, body, err)
	}
	return c, nil
}

// close ends a legacy client's session.
func (c *rpcClient) close() {
	if c.session == "" {
		return
	}
	req, _ := http.NewRequest(http.MethodDelete, c.endpoint, nil)
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("MCP-Protocol-Version", legacyListVersion)
	if resp, err := c.http.Do(req); err == nil {
		resp.Body.Close()
	}
}

// post sends one message (a notification when note) and returns the
// response and its JSON-RPC body (the response message of an SSE stream).
func (c *rpcClient) post(method string, params map[string]any, note bool) (*http.Response, []byte, error) {
	msg := map[string]any{"jsonrpc": "2.0", "method": method}
	if c.modern {
		params = withMeta(params)
	}
	if params != nil {
		msg["params"] = params
	}
	if !note {
		c.id++
		msg["id"] = c.id
	}
	body, _ := json.Marshal(msg)
	req, err := http.NewRequest(http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.modern {
		req.Header.Set("MCP-Protocol-Version", modernVersion)
		req.Header.Set("Mcp-Method", method)
	} else if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", legacyListVersion)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("post %s: %w", method, err)
	}
	defer resp.Body.Close()
	if note {
		return resp, nil, nil
	}
	b, err := readRPCResponse(resp)
	return resp, b, err
}

func withMeta(params map[string]any) map[string]any {
	out := map[string]any{"_meta": modernMeta}
	for k, v := range params {
		out[k] = v
	}
	return out
}

// list reads every page of a list method and returns its entries, raw.
func (c *rpcClient) list(method, member string) ([]json.RawMessage, error) {
	var all []json.RawMessage
	cursor := ""
	for page := 0; page < 100; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		resp, body, err := c.post(method, params, false)
		if err != nil {
			return nil, err
		}
		var r struct {
			Result map[string]json.RawMessage `json:"result"`
		}
		var entries []json.RawMessage
		if json.Unmarshal(body, &r) != nil || r.Result == nil || json.Unmarshal(r.Result[member], &entries) != nil {
			return nil, fmt.Errorf("%s: HTTP %d, no %s: %s", method, resp.StatusCode, member, body)
		}
		all = append(all, entries...)
		if json.Unmarshal(r.Result["nextCursor"], &cursor) != nil || cursor == "" {
			return all, nil
		}
	}
	return nil, errors.New(method + ": more than 100 pages")
}

// keys returns each entry's key member.
func keys(entries []json.RawMessage, key string) []string {
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		var m map[string]json.RawMessage
		var k string
		if json.Unmarshal(e, &m) == nil && json.Unmarshal(m[key], &k) == nil {
			out = append(out, k)
		}
	}
	return out
}

// readRPCResponse returns the JSON-RPC response in a JSON or SSE body.
func readRPCResponse(resp *http.Response) ([]byte, error) {
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return nil, fmt.Errorf("read body: %w", err)
		}
		return b, nil
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var data []string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && len(data) > 0:
			msg := []byte(strings.Join(data, "\n"))
			data = nil
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(msg, &m) == nil && len(m.ID) > 0 {
				return msg, nil
			}
		}
	}
	return nil, fmt.Errorf("the SSE stream ended without a response (%v)", sc.Err())
}

// missing returns the names of want that have lacks.
func missing(have, want []string) []string {
	var out []string
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			out = append(out, w)
		}
	}
	return out
}
