package registry

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Memory remembers, for one client, which server's result carried each
// URI to it (SPEC §4.8): a resource_link or an embedded resource in a
// tools/call or prompts/get result, a resources/read's contents (a
// directory's files, say). A client is a legacy session, or all modern
// callers, who share the token. It is bounded by memoryBytes: past it the
// URIs learnt first are forgotten first.
//
// A result is scanned only when it can carry a URI the client could read
// back: its server offers resources (Route.Resources; a tools-only
// server's calls pay nothing), and it holds a "uri" at all (MayHoldURI,
// one bytes.Index: about 0.15 ms per MiB of result).
type Memory struct {
	mu    sync.Mutex
	byURI map[string]string // URI → server
	order []string          // URIs in the order learnt, oldest first
	bytes int
}

// memoryBytes bounds the URIs one client's memory holds (with 100
// sessions, 25 MiB at most); a URI longer than maxRememberedURI is not
// kept.
const (
	memoryBytes      = 256 << 10
	maxRememberedURI = 4 << 10
)

// Lookup returns the server a URI came from, or ""; a nil memory knows
// none.
func (m *Memory) Lookup(uri string) string {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.byURI[uri]
}

// MayHoldURI reports whether a result can carry a URI: every resource
// link, embedded resource and resource content has a "uri" member.
func MayHoldURI(res []byte) bool { return bytes.Contains(res, []byte(`"uri"`)) }

// Learn remembers the URIs a result of method from server carries:
// tools/call's content[], prompts/get's messages[].content (a
// resource_link's uri, an embedded resource's resource.uri), and
// resources/read's contents[].uri.
func (m *Memory) Learn(res json.RawMessage, method, server string) {
	var uris []string
	switch method {
	case "tools/call":
		content, _ := jsonrpc.Member(res, "content")
		eachElement(content, func(block []byte) { uris = appendBlockURI(uris, block) })
	case "prompts/get":
		msgs, _ := jsonrpc.Member(res, "messages")
		eachElement(msgs, func(msg []byte) { uris = appendBlockURI(uris, jsonrpc.Value(msg, "content")) })
	case "resources/read":
		contents, _ := jsonrpc.Member(res, "contents")
		eachElement(contents, func(c []byte) {
			if u, ok := jsonrpc.Text(jsonrpc.Value(c, "uri")); ok {
				uris = append(uris, u)
			}
		})
	}
	if len(uris) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range uris {
		m.put(u, server)
	}
}

// appendBlockURI appends a content block's URI: a resource_link's, or an
// embedded resource's.
func appendBlockURI(uris []string, block []byte) []string {
	typ, _ := jsonrpc.Text(jsonrpc.Value(block, "type"))
	var raw []byte
	switch typ {
	case "resource_link":
		raw = jsonrpc.Value(block, "uri")
	case "resource":
		raw = jsonrpc.Value(jsonrpc.Value(block, "resource"), "uri")
	}
	if u, ok := jsonrpc.Text(raw); ok && u != "" {
		uris = append(uris, u)
	}
	return uris
}

// put remembers uri as server's; call with m.mu held.
func (m *Memory) put(uri, server string) {
	if len(uri) > maxRememberedURI {
		return
	}
	if m.byURI == nil {
		m.byURI = map[string]string{}
	}
	if _, ok := m.byURI[uri]; ok {
		m.byURI[uri] = server
		return
	}
	m.byURI[uri] = server
	m.order = append(m.order, uri)
	m.bytes += len(uri)
	for m.bytes > memoryBytes && len(m.order) > 0 {
		old := m.order[0]
		m.order = m.order[1:]
		m.bytes -= len(old)
		delete(m.byURI, old)
	}
}

// eachElement calls fn with each element of a JSON array, raw; anything
// else has none.
func eachElement(arr []byte, fn func([]byte)) {
	arr = jsonrpc.TrimLeft(arr)
	if len(arr) == 0 || arr[0] != '[' {
		return
	}
	var elems []json.RawMessage
	if json.Unmarshal(arr, &elems) != nil {
		return
	}
	for _, e := range elems {
		fn(e)
	}
}
