package modern

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is what a modern request is (MCP 2026-07-28, SPEC §3.1,
// §3.10), and the ground every other file of the front stands on: its
// protocol versions, the reserved _meta keys it carries and their reading
// (readMeta), the request as validated (modernReq), the error codes and
// HTTP status of its answers, the resultType every result carries, what
// its capabilities declare (the tasks extension), and a tools/call routed
// by the name it carries (modernRoute). It uses nothing else of the
// package.

// Versions are the modern protocol versions (SPEC §3.1), newest first:
// 2026-07-28 and later have neither initialize nor sessions, which the
// legacy ones (legacy.Versions) have.
var Versions = []string{"2026-07-28"}

// IsVersion reports whether v, an MCP-Protocol-Version header or _meta
// protocolVersion value, is a modern version (one of Versions).
func IsVersion(v string) bool { return slices.Contains(Versions, v) }

// UnsupportedVersion is the answer to a version the gateway does not
// speak: 400 with -32022 (UnsupportedProtocolVersion, SPEC §3.10), its
// data {"supported": supported, "requested": v}.
func UnsupportedVersion(v string, supported []string) *wire.HTTPError {
	data, _ := json.Marshal(map[string]any{"supported": supported, "requested": v})
	return &wire.HTTPError{Status: http.StatusBadRequest, Code: codeUnsupportedVer, Data: data,
		Msg: fmt.Sprintf("Bad Request: unsupported protocol version %q (supported: %s)", v, strings.Join(supported, ", "))}
}

// MCP 2026-07-28 error codes (basic/index, Error Codes).
const (
	codeHeaderMismatch    = -32020
	codeMissingCapability = -32021
	codeUnsupportedVer    = -32022
)

// Reserved _meta keys of a modern request (MCP 2026-07-28 basic/index).
const (
	metaVersion      = "io.modelcontextprotocol/protocolVersion"
	metaCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo   = "io.modelcontextprotocol/clientInfo"
	metaLogLevel     = "io.modelcontextprotocol/logLevel"
	metaSubscription = registry.MetaSubscription
	metaServerInfo   = "io.modelcontextprotocol/serverInfo"
)

// modernReq is a validated modern request.
type modernReq struct {
	*wire.Message
	version string
	caps    json.RawMessage // _meta clientCapabilities, raw
	info    json.RawMessage // _meta clientInfo, raw (nil when absent)
	level   string          // _meta logLevel ("" = every level)
	name    string          // tools/call: params.name
	hasName bool            // params.name is a string
	// state is params.requestState, raw (a retry of MRTR; nil when absent).
	state    json.RawMessage
	hasState bool
	accept   accepted // the POST's Accept, read once (ServePOST's jsonOK, sseOK)
	hasTask  bool     // params has a 2025-11-25 "task" member
	// progressErr refuses a progressToken that validateModern's scan of
	// params found and checkProgressToken refuses; the call then skips
	// upstreamCall.check. tokenFree says that scan found params valid and
	// without a progressToken (bridgeCall.NoProgressToken).
	progressErr error
	tokenFree   bool
	rec         *record.Record // what the operator is told of it (package record)
}

// accepted is what a POST's Accept admits; none sent admits both.
type accepted struct{ json, sse bool }

// metaVersionEnd is the end of the version key as it stands in params,
// with its closing quote: what InMeta first looks for. bytes.Index hops
// from one match of a needle's first byte to the next, and 'V' is rare
// where 'i' is everywhere: on an 8 MiB argument, the whole key took 3–6
// ms of text or of small objects, this 0.2–0.4 ms (2–3 ms of base64 or
// of text full of capital V's, 5–11 ms of text that says "Version" every
// few words); reading _meta by skipping the members before it takes
// 0.2 ms past a long string, but 5–12 ms past an array of numbers or
// small objects (issue 33, two hostile reviews' figures).
const metaVersionEnd = `Version"`

// InMeta reports whether a message names a modern protocol version in
// params._meta["io.modelcontextprotocol/protocolVersion"] (SPEC §3.1).
func InMeta(m *wire.Message) bool {
	if !bytes.Contains(m.Params, []byte(metaVersionEnd)) {
		// readMetaMembers matches the key byte for byte: params without
		// its end anywhere have none to find. Every legacy request asks
		// this (its header names a legacy version), and its params are
		// not read for it (~0.5 µs a call).
		return false
	}
	s, _ := jsonrpc.Text(readMeta(m.Params).version)
	return IsVersion(s)
}

// requestMeta is a modern request's reserved _meta members, raw (nil when
// absent), and its progressToken (the last) with how many there are.
type requestMeta struct {
	version, caps, info, level json.RawMessage
	progress                   json.RawMessage
	progresses                 int
	tokenFolds                 bool // a key that is progressToken but for case
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
			} else if jsonrpc.KeyFolds(k, "progressToken") {
				rm.tokenFolds = true
			}
		}
		return true
	})
	return rm
}

// errClientCancelled is the cause of a request the client cancelled (it
// closed the stream): it gets no response (MCP Cancellation), and its
// record is cancelled.
var errClientCancelled = record.ErrClientCancelled

// modernErrorStatus is the HTTP status of a modern request's JSON-RPC
// error: 400 for the errors MCP 2026-07-28 says are 400 on HTTP
// (HeaderMismatch, MissingRequiredClientCapability,
// UnsupportedProtocolVersion), whoever raised them; 200 otherwise.
func modernErrorStatus(err error) int {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		switch e.Code {
		case codeHeaderMismatch, codeMissingCapability, codeUnsupportedVer:
			return http.StatusBadRequest
		}
	}
	return http.StatusOK
}

// resultType reads a result's resultType ("" when absent or not a
// string) and whether it has one.
func resultType(res json.RawMessage) (string, bool) {
	raw, ok := jsonrpc.Member(res, "resultType")
	kind, _ := jsonrpc.Text(raw)
	return kind, ok
}

// modernResultParts renders a tools/call result response with
// "resultType":"complete" first when the server (a legacy one) sent none
// (MCP 2026-07-28: every result carries resultType), without copying the
// result.
func modernResultParts(id []byte, res json.RawMessage) [][]byte {
	_, typed := resultType(res)
	return typedResultParts(id, res, typed)
}

// typedResultParts is modernResultParts for a result whose resultType the
// caller has read: typed says it has one.
func typedResultParts(id []byte, res json.RawMessage, typed bool) [][]byte {
	if typed {
		return wire.ResultParts(id, res)
	}
	body := jsonrpc.TrimLeft(res)[1:] // after the opening brace
	parts := wire.ResultParts(id, body)
	parts[0] = append(parts[0], `{"resultType":"complete"`...) // one part less to write
	if t := jsonrpc.TrimLeft(body); len(t) == 0 || t[0] != '}' {
		parts[0] = append(parts[0], ',')
	}
	return parts
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// extTasks is the tasks extension's identifier (tasks.Extension).
const extTasks = tasks.Extension

// wantsTasks reports whether clientCapabilities declare the extension.
func wantsTasks(caps json.RawMessage) bool {
	ext, ok := jsonrpc.Member(caps, "extensions")
	if !ok || len(ext) == 0 || ext[0] != '{' {
		return false
	}
	v, ok := jsonrpc.Member(ext, extTasks)
	return ok && string(v) != "null"
}

// modernRoute routes a modern tools/call on router by the name
// validateModern has read (routeTool's errors when it has none).
func modernRoute(router *relay.Router, req *modernReq) (relay.Call, error) {
	if !req.hasName || req.Params == nil || req.Params[0] != '{' {
		return router.Tool(req.Params, &req.Index)
	}
	return router.ToolName(req.name, req.Params)
}
