// Package mcpheader holds the rules of the HTTP headers that mirror parts
// of an MCP request's body (MCP 2026-07-28 basic/transports/streamable-http,
// "Request Metadata"), for both sides of the gateway: the aggregator checks
// a modern client's headers against its body (SPEC §3.10), and the
// supervisor writes them on its requests to a modern HTTP server (SPEC
// §7.9).
//
//   - Params finds a tool's parameters mirrored into Mcp-Param-{Name}
//     headers (x-mcp-header in its inputSchema), ValueAt the argument at a
//     parameter's path;
//   - Encode writes a value as a header carries it (plain, or the Base64
//     sentinel "=?base64?…?="), Decode reads one back; Text is the header
//     text of a JSON argument.
package mcpheader

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Param is one tool parameter mirrored into an Mcp-Param-{Name} header
// (x-mcp-header in the tool's inputSchema): the header's name part and the
// chain of "properties" keys that leads to the parameter.
type Param struct {
	Name string
	Path []string
}

// Params finds the x-mcp-header annotations of an inputSchema, following
// only chains of "properties" keys (the only ones the spec allows;
// annotations elsewhere are not the gateway's to enforce), in the order of
// the keys, sorted at each level, the same at every call. nil if none.
func Params(schema json.RawMessage) []Param {
	if !strings.Contains(string(schema), `"x-mcp-header"`) {
		return nil
	}
	var node struct {
		Header     *string                    `json:"x-mcp-header"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var out []Param
	var walk func(raw json.RawMessage, path []string)
	walk = func(raw json.RawMessage, path []string) {
		node.Header, node.Properties = nil, nil
		if json.Unmarshal(raw, &node) != nil {
			return
		}
		if node.Header != nil && len(path) > 0 {
			out = append(out, Param{Name: *node.Header, Path: path})
		}
		props := node.Properties
		for _, k := range slices.Sorted(maps.Keys(props)) { // in one order, so that Check names one culprit
			walk(props[k], append(path[:len(path):len(path)], k))
		}
	}
	walk(schema, nil)
	return out
}

// ValueAt returns the raw value at a chain of object keys in v (a tool
// call's arguments).
func ValueAt(v json.RawMessage, path []string) (json.RawMessage, bool) {
	for _, k := range path {
		if len(v) == 0 || v[0] != '{' {
			return nil, false
		}
		var ok bool
		if v, ok = jsonrpc.Member(v, k); !ok {
			return nil, false
		}
	}
	return v, true
}

const sentinelPrefix, sentinelSuffix = "=?base64?", "?="

// Decode decodes a header value: a Base64 sentinel when sentinel allows
// it, and otherwise visible ASCII, space and tab only (RFC 9110 field
// values).
func Decode(v string, sentinel bool) (string, error) {
	if sentinel && strings.HasPrefix(v, sentinelPrefix) && strings.HasSuffix(v, sentinelSuffix) && len(v) >= len(sentinelPrefix+sentinelSuffix) {
		b, err := base64.StdEncoding.DecodeString(v[len(sentinelPrefix) : len(v)-len(sentinelSuffix)])
		if err != nil {
			return "", fmt.Errorf("invalid Base64 sentinel value: %w", err)
		}
		return string(b), nil
	}
	for _, c := range []byte(v) {
		if (c < 0x20 && c != '\t') || c > 0x7e {
			return "", fmt.Errorf("invalid character 0x%02x in the value", c)
		}
	}
	return v, nil
}

// Encode writes s as an Mcp-Name or Mcp-Param-{Name} header value: as it
// is when it is visible ASCII and spaces without leading or trailing
// whitespace, else (and when it looks like a sentinel itself) as the
// Base64 sentinel of its UTF-8 bytes ("Value Encoding").
func Encode(s string) string {
	plain := s == strings.TrimSpace(s) && !(strings.HasPrefix(s, sentinelPrefix) && strings.HasSuffix(s, sentinelSuffix))
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] <= 0x7e
	}
	if plain {
		return s
	}
	return sentinelPrefix + base64.StdEncoding.EncodeToString([]byte(s)) + sentinelSuffix
}

// Text is the header text of a JSON argument (before Encode): a string's
// value, a number as written, true or false. A null, an object or an
// array has none.
func Text(arg json.RawMessage) (string, bool) {
	if s, ok := jsonrpc.Text(arg); ok {
		return s, true
	}
	if len(arg) == 0 {
		return "", false
	}
	switch c := arg[0]; {
	case c == 't' || c == 'f':
		return string(arg), string(arg) == "true" || string(arg) == "false"
	case c == '-' || (c >= '0' && c <= '9'):
		return string(arg), true
	}
	return "", false
}

// Check tells whether a tool's x-mcp-header parameters can be sent: each
// name an RFC 9110 token (the Mcp-Param-{Name} header's name part), no
// two the same but for case. A tool that fails it is one a conforming MCP
// 2026-07-28 client excludes from its list ("Custom Headers from Tool
// Parameters"), since no request can carry its headers.
func Check(params []Param) error {
	seen := map[string]string{}
	for _, p := range params {
		if !isToken(p.Name) {
			return fmt.Errorf("x-mcp-header %q of parameter %s is not an HTTP header name (letters, digits and !#$%%&'*+-.^_`|~ only)", p.Name, strings.Join(p.Path, "."))
		}
		key := strings.ToLower(p.Name)
		if other, dup := seen[key]; dup {
			return fmt.Errorf("x-mcp-header %q of parameter %s names the header of parameter %s too (header names ignore case)", p.Name, strings.Join(p.Path, "."), other)
		}
		seen[key] = strings.Join(p.Path, ".")
	}
	return nil
}

// isToken reports whether s is an RFC 9110 token (1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}
