package aggregator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file checks a modern request's headers against its body (MCP
// 2026-07-28 Streamable HTTP, "Request Metadata" and "Server Validation";
// SPEC §3.10): MCP-Protocol-Version, Mcp-Method, Mcp-Name and
// Mcp-Param-{Name} must be present where required and match the body,
// Base64 sentinel values decoded. A mismatch is 400 with -32020; a missing
// required _meta field is 400 with -32602.

// validateModern checks a modern request and reads its _meta; header is
// its MCP-Protocol-Version header, read once (servePOST).
func validateModern(r *http.Request, m *wire.Message, header string) (*modernReq, *wire.HTTPError) {
	req := &modernReq{Message: m}
	top := readParams(m.Params)
	req.state, req.hasState = top.state, top.state != nil
	req.hasTask = top.task != nil
	meta := readMetaMembers(top.meta)
	req.progressErr = progressTokenError(top.metas, meta.progress, meta.progresses)
	if meta.version == nil {
		return nil, wire.BadRequest(jsonrpc.CodeInvalidParams, `Invalid params: _meta["`+metaVersion+`"] is required`)
	}
	req.version, _ = jsonrpc.Text(meta.version)
	if header == "" {
		return nil, wire.BadRequest(codeHeaderMismatch, "Header mismatch: the MCP-Protocol-Version header is required")
	}
	if header != req.version {
		return nil, wire.BadRequest(codeHeaderMismatch, fmt.Sprintf("Header mismatch: MCP-Protocol-Version header %q does not match _meta protocolVersion %s", header, meta.version))
	}
	if !isModern(req.version) {
		return nil, unsupportedVersion(req.version)
	}
	if req.caps, req.info = meta.caps, meta.info; req.caps == nil || req.caps[0] != '{' {
		return nil, wire.BadRequest(jsonrpc.CodeInvalidParams, `Invalid params: _meta["`+metaCapabilities+`"] is required and must be an object`)
	}
	if meta.level != nil {
		req.level, _ = jsonrpc.Text(meta.level)
		if _, known := logLevels[req.level]; !known {
			return nil, wire.BadRequest(jsonrpc.CodeInvalidParams, "Invalid params: unknown _meta logLevel "+string(meta.level))
		}
	}
	if e := checkHeader(r, "Mcp-Method", m.Method, false); e != nil {
		return nil, e
	}
	switch m.Method { // Mcp-Name: params.name or params.uri
	case "tools/call", "prompts/get":
		req.name, req.hasName = jsonrpc.Text(top.name)
		if e := checkHeader(r, "Mcp-Name", req.name, true); e != nil {
			return nil, e
		}
	case "resources/read":
		uri, _ := jsonrpc.Text(top.uri)
		if e := checkHeader(r, "Mcp-Name", uri, true); e != nil {
			return nil, e
		}
	}
	return req, nil
}

// requestMeta is a modern request's reserved _meta members, raw (nil when
// absent), and its progressToken (the last) with how many there are.
type requestMeta struct {
	version, caps, info, level json.RawMessage
	progress                   json.RawMessage
	progresses                 int
}

// modernParams is the members of a modern request's params the gateway
// reads, raw (nil when absent), found in one scan: a tools/call's params
// are scanned once, however many of them it reads. metas counts the _meta
// members (more than one is refused: checkProgressToken).
type modernParams struct {
	meta, name, uri, state, task json.RawMessage
	metas                        int
}

// readParams reads params' _meta, name, uri, requestState and task
// members; of a member given twice, the last counts, as jsonrpc.Member
// reads it.
func readParams(params []byte) modernParams {
	var mp modernParams
	_ = jsonrpc.Members(params, func(k, v []byte) bool {
		switch {
		case jsonrpc.KeyIs(k, "_meta"):
			mp.meta, mp.metas = v, mp.metas+1
		case jsonrpc.KeyIs(k, "name"):
			mp.name = v
		case jsonrpc.KeyIs(k, "uri"):
			mp.uri = v
		case jsonrpc.KeyIs(k, "requestState"):
			mp.state = v
		case jsonrpc.KeyIs(k, "task"):
			mp.task = v
		}
		return true
	})
	return mp
}

// readMeta reads params._meta's reserved members in one scan.
func readMeta(params []byte) requestMeta {
	meta, _ := jsonrpc.Member(params, "_meta")
	return readMetaMembers(meta)
}

// readMetaMembers reads a _meta object's reserved members and its
// progressToken in one scan.
func readMetaMembers(meta []byte) requestMeta {
	var rm requestMeta
	if len(meta) == 0 || meta[0] != '{' {
		return rm
	}
	_ = jsonrpc.Members(meta, func(k, v []byte) bool {
		switch string(k) {
		case metaVersion:
			rm.version = v
		case metaCapabilities:
			rm.caps = v
		case metaClientInfo:
			rm.info = v
		case metaLogLevel:
			rm.level = v
		default:
			// As checkProgressToken and the swap read it: an escaped key
			// is the same key.
			if jsonrpc.KeyIs(k, "progressToken") {
				rm.progress, rm.progresses = v, rm.progresses+1
			}
		}
		return true
	})
	return rm
}

// checkHeader checks that header is present and equals want, decoding a
// Base64 sentinel value ("=?base64?…?=") where sentinel allows it.
func checkHeader(r *http.Request, header, want string, sentinel bool) *wire.HTTPError {
	return matchHeader(r, header, sentinel, func() string { return fmt.Sprintf("body value %q", want) },
		func(got string) bool { return got == want })
}

// matchHeader checks that header is present, decodes it, and that same
// accepts its value (what names what the body holds, for the error; it is
// rendered only for one).
func matchHeader(r *http.Request, header string, sentinel bool, what func() string, same func(string) bool) *wire.HTTPError {
	values := r.Header.Values(header)
	if len(values) == 0 {
		return wire.BadRequest(codeHeaderMismatch, "Header mismatch: the "+header+" header is required: the request holds "+what())
	}
	got, err := headerValue(values[0], sentinel)
	if err != nil {
		return wire.BadRequest(codeHeaderMismatch, "Header mismatch: "+header+": "+err.Error())
	}
	if !same(got) {
		return wire.BadRequest(codeHeaderMismatch, fmt.Sprintf("Header mismatch: %s header value %q does not match the %s", header, got, what()))
	}
	return nil
}

// headerValue decodes a header value: a Base64 sentinel when allowed, and
// otherwise visible ASCII, space and tab only (RFC 9110 field values).
func headerValue(v string, sentinel bool) (string, error) {
	if sentinel && strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=") && len(v) >= len("=?base64??=") {
		b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
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

// paramHeader is one tool parameter mirrored into an Mcp-Param-{name}
// header (x-mcp-header in the tool's inputSchema): its name and the chain
// of "properties" keys that leads to it.
type paramHeader struct {
	name string
	path []string
}

// paramHeaders finds the x-mcp-header annotations of an inputSchema,
// following only chains of "properties" keys (the only ones the spec
// allows; annotations elsewhere are not the gateway's to enforce).
func paramHeaders(schema json.RawMessage) []paramHeader {
	if !strings.Contains(string(schema), `"x-mcp-header"`) {
		return nil
	}
	var node struct {
		Header     *string                    `json:"x-mcp-header"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	var out []paramHeader
	var walk func(raw json.RawMessage, path []string)
	walk = func(raw json.RawMessage, path []string) {
		node.Header, node.Properties = nil, nil
		if json.Unmarshal(raw, &node) != nil {
			return
		}
		if node.Header != nil && len(path) > 0 {
			out = append(out, paramHeader{name: *node.Header, path: path})
		}
		props := node.Properties
		for k, v := range props {
			walk(v, append(path[:len(path):len(path)], k))
		}
	}
	walk(schema, nil)
	return out
}

// checkParamHeaders checks the Mcp-Param-{Name} headers of a tools/call
// against its arguments: a value present (and not null) needs its header,
// equal after decoding (integers compared numerically).
func checkParamHeaders(r *http.Request, params json.RawMessage, specs []paramHeader) *wire.HTTPError {
	if len(specs) == 0 {
		return nil
	}
	args, _ := jsonrpc.Member(params, "arguments")
	for _, p := range specs {
		v, ok := argAt(args, p.path)
		if !ok || string(v) == "null" {
			continue
		}
		e := matchHeader(r, "Mcp-Param-"+p.name, true, func() string { return "argument " + string(v) },
			func(got string) bool { return sameValue(got, v) })
		if e != nil {
			return e
		}
	}
	return nil
}

// argAt returns the raw value at a chain of object keys.
func argAt(v json.RawMessage, path []string) (json.RawMessage, bool) {
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

// maxNumberText is the longest number sameValue compares numerically.
const maxNumberText = 40

// sameValue compares a decoded header value with a raw JSON argument:
// strings exactly, booleans as "true"/"false", numbers numerically.
func sameValue(header string, arg json.RawMessage) bool {
	if s, ok := jsonrpc.Text(arg); ok {
		return s == header
	}
	switch string(arg) {
	case "true", "false":
		return header == string(arg)
	}
	// Numbers: as exact rationals, but only short ones (x-mcp-header
	// values are integers within 2^53): big.Rat of 1e999999 took 0.3 s
	// of CPU a request (found by an adversarial review).
	h := strings.TrimSpace(header)
	if len(arg) > maxNumberText || len(h) > maxNumberText || strings.ContainsAny(string(arg)+h, "eE") {
		return string(arg) == h
	}
	a, ok1 := new(big.Rat).SetString(string(arg))
	b, ok2 := new(big.Rat).SetString(h)
	return ok1 && ok2 && a.Cmp(b) == 0
}
