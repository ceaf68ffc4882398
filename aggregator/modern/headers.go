package modern

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file checks a modern request's headers against its body (MCP
// 2026-07-28 Streamable HTTP, "Request Metadata" and "Server Validation";
// SPEC §3.10): MCP-Protocol-Version, Mcp-Method, Mcp-Name and
// Mcp-Param-{Name} must be present where required and match the body,
// Base64 sentinel values decoded. A mismatch is 400 with -32020; a missing
// required _meta field is 400 with -32602.

// validateModern checks a modern request and reads its _meta; header is
// its MCP-Protocol-Version header, read once (ServePOST), and supported
// every version the gateway speaks (for -32022).
func validateModern(r *http.Request, m *wire.Message, header string, supported []string) (*modernReq, *wire.HTTPError) {
	req := &modernReq{Message: m}
	if p := jsonrpc.TrimLeft(m.Params); len(p) > 0 && p[0] != '{' && !jsonrpc.IsNull(p) {
		return nil, wire.BadRequest(jsonrpc.CodeInvalidParams, "Invalid params: params must be an object (MCP requests name their parameters)")
	}
	top := readParams(m.Params, &m.Index)
	req.state, req.hasState = top.state, top.state != nil
	req.hasTask = top.task != nil
	meta := readMetaMembers(top.meta)
	// A key that folds is refused first, as the other malformed params
	// are (400, -32602): the headers' checks read the real key, and would
	// blame the header for a "Name" beside no "name".
	folds := top.folds
	if folds == "" && meta.tokenFolds {
		folds = "progressToken"
	}
	if folds != "" {
		return nil, wire.BadRequest(jsonrpc.CodeInvalidParams, relay.KeyFoldsError(folds).Message)
	}
	req.progressErr = relay.ProgressTokenError(top.metas, meta.progress, meta.progresses)
	req.tokenFree = req.progressErr == nil && meta.progresses == 0
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
	if !IsVersion(req.version) {
		return nil, UnsupportedVersion(req.version, supported)
	}
	if req.caps, req.info = meta.caps, meta.info; req.caps == nil || req.caps[0] != '{' {
		return nil, wire.BadRequest(jsonrpc.CodeInvalidParams, `Invalid params: _meta["`+metaCapabilities+`"] is required and must be an object`)
	}
	if meta.level != nil {
		req.level, _ = jsonrpc.Text(meta.level)
		if _, known := relay.LogLevels[req.level]; !known {
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

// modernParams is the members of a modern request's params the gateway
// reads, raw (nil when absent), found in one scan: a tools/call's params
// are scanned once, however many of them it reads. metas counts the _meta
// members (more than one is refused: checkProgressToken).
type modernParams struct {
	meta, name, uri, state, task json.RawMessage
	metas                        int
	// folds is one of foldedKeys that another member's key is but for
	// case ("" if none; relay.KeyFoldsError).
	folds string
}

// readParams reads params' _meta, name, uri, requestState and task
// members; of a member given twice, the last counts, as jsonrpc.Member
// reads it.
func readParams(params []byte, x *jsonrpc.Index) modernParams {
	var mp modernParams
	_ = x.Each(params, func(k, v []byte) bool {
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
		case jsonrpc.KeyIs(k, "arguments"):
		case mp.folds == "":
			mp.folds = relay.FoldedKey(k, foldedKeys[:]...)
		}
		return true
	})
	return mp
}

// foldedKeys are the keys of params that a key the same but for case is
// refused beside (relay.KeyFoldsError): a server may read that one
// instead of what the gateway read, swapped, routed or sealed. The keys
// routing reads for the other methods (uri, ref and those inside it)
// are checked where it reads them (relay.Router.Request).
var foldedKeys = [...]string{"_meta", "name", "requestState", "task", "taskId"}

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
	got, err := mcpheader.Decode(values[0], sentinel)
	if err != nil {
		return wire.BadRequest(codeHeaderMismatch, "Header mismatch: "+header+": "+err.Error())
	}
	if !same(got) {
		return wire.BadRequest(codeHeaderMismatch, fmt.Sprintf("Header mismatch: %s header value %q does not match the %s", header, got, what()))
	}
	return nil
}

// paramHeader is one tool parameter mirrored into an Mcp-Param-{name}
// header; paramHeaders finds them in an inputSchema (package mcpheader).
type paramHeader = mcpheader.Param

var paramHeaders = mcpheader.Params

// checkParamHeaders checks the Mcp-Param-{Name} headers of a tools/call
// against its arguments: a value present (and not null) needs its header,
// equal after decoding (integers compared numerically).
func checkParamHeaders(r *http.Request, params json.RawMessage, specs []paramHeader) *wire.HTTPError {
	if len(specs) == 0 {
		return nil
	}
	args, _ := jsonrpc.Member(params, "arguments")
	for _, p := range specs {
		v, ok := mcpheader.ValueAt(args, p.Path)
		if !ok || string(v) == "null" {
			continue
		}
		e := matchHeader(r, "Mcp-Param-"+p.Name, true, func() string { return "argument " + string(v) },
			func(got string) bool { return sameValue(got, v) })
		if e != nil {
			return e
		}
	}
	return nil
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
