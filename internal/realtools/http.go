package realtools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// freePort returns a loopback port nobody listens on just now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// overHTTP lists the tools of a legacy Streamable HTTP server at url,
// retrying initialize until the server listens.
func (s server) overHTTP(ctx context.Context, url string) ([]Tool, error) {
	var session string
	for {
		_, sid, err := post(ctx, url, "", initialize)
		if err == nil {
			session = sid
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("initialize: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if _, _, err := post(ctx, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	var tools []Tool
	cursor := ""
	for id := 2; ; id++ {
		raw, _, err := post(ctx, url, session, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, listParams(cursor)))
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if tools, cursor, err = s.page(tools, raw); err != nil || cursor == "" {
			return tools, err
		}
	}
}

// post sends one message and returns the result of the response in the
// answer (JSON or SSE; none for a notification) and the session id.
func post(ctx context.Context, url, session, msg string) (json.RawMessage, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(msg))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode/100 != 2 {
		return nil, "", fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, body)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode == http.StatusAccepted {
		return nil, sid, nil
	}
	messages := [][]byte{body}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		messages = nil
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
				messages = append(messages, bytes.Clone(bytes.TrimSpace(data)))
			}
		}
	}
	for _, m := range messages {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(m, &r) != nil || r.ID == nil {
			continue
		}
		if r.Error != nil {
			return nil, sid, fmt.Errorf("error %s", r.Error)
		}
		return r.Result, sid, nil
	}
	return nil, sid, fmt.Errorf("no response in %.200s", body)
}
