package aggregator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// envelope is one JSON-RPC message of a POST body, read only as far as the
// relay needs: its envelope. raw is the message as the client sent it;
// params and id are slices of it, byte for byte (SPEC §4.3).
type envelope struct {
	raw    []byte
	id     json.RawMessage // nil for a notification
	method string          // "" for a response
	params json.RawMessage // nil when absent
	// result and errObj are a response's members (one of them is set).
	result, errObj json.RawMessage
}

func (m *envelope) isRequest() bool      { return m.method != "" && m.id != nil }
func (m *envelope) isNotification() bool { return m.method != "" && m.id == nil }
func (m *envelope) isResponse() bool     { return m.method == "" }

// httpError is a JSON-RPC error answered with an HTTP status. id is the
// request's, when it could be read.
type httpError struct {
	status int
	id     json.RawMessage
	code   int64
	msg    string
	data   json.RawMessage
}

func (e *httpError) Error() string { return e.msg }

func badRequest(code int64, msg string) *httpError {
	return &httpError{status: http.StatusBadRequest, code: code, msg: msg}
}

// parseBody reads a POST body: one JSON-RPC message, or a non-empty batch
// of them (an array). Errors are 400 with -32700 (not JSON) or -32600
// (JSON, but not JSON-RPC messages), as the JSON-RPC 2.0 spec assigns.
func parseBody(body []byte) (msgs []*envelope, batch bool, err *httpError) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, false, badRequest(jsonrpc.CodeParseError, "Parse error: the body is empty; POST one JSON-RPC message")
	}
	if !jsonrpc.Valid(body) {
		return nil, false, badRequest(jsonrpc.CodeParseError, "Parse error: the body is not valid JSON")
	}
	if body[0] != '[' {
		m, err := parseMessage(body)
		if err != nil {
			return nil, false, err
		}
		return []*envelope{m}, false, nil
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(body, &raws) // valid JSON: an array of values
	if len(raws) == 0 {
		return nil, true, badRequest(jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
	}
	if len(raws) > maxBatch {
		return nil, true, badRequest(jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a batch of %d messages; the gateway takes at most %d", len(raws), maxBatch))
	}
	for _, raw := range raws {
		m, err := parseMessage(raw)
		if err != nil {
			return nil, true, err
		}
		msgs = append(msgs, m)
	}
	return msgs, true, nil
}

// parseMessage reads one message's envelope. raw is valid JSON.
func parseMessage(raw []byte) (*envelope, *httpError) {
	invalid := func(why string) (*envelope, *httpError) {
		return nil, badRequest(jsonrpc.CodeInvalidRequest, "Invalid Request: "+why)
	}
	e, err := jsonrpc.ReadEnvelope(raw)
	if err != nil {
		return invalid("not a JSON-RPC message object")
	}
	m := &envelope{raw: raw, id: e.ID, params: e.Params, result: e.Result, errObj: e.Error}
	version, method := e.Version, e.Method
	if string(version) != `"2.0"` {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	nullID := string(m.id) == "null"
	if m.id != nil && !nullID && !validID(m.id) {
		return invalid("id must be a string or an integer, got " + string(m.id))
	}
	if method != nil {
		name, ok := jsonrpc.Text(method)
		if !ok || name == "" || nullID || m.result != nil || m.errObj != nil {
			return invalid("not a JSON-RPC request or notification")
		}
		m.method = name
		if m.params != nil && m.params[0] != '{' && m.params[0] != '[' {
			return invalid("params must be an object")
		}
		return m, nil
	}
	// A response: an id (null only beside an error, for a request whose id
	// could not be read) and exactly one of result and error.
	if m.id == nil || (m.result != nil) == (m.errObj != nil) || (nullID && m.errObj == nil) {
		return invalid("not a JSON-RPC request, notification or response")
	}
	return m, nil
}

// validID reports whether a raw id is a string or an integer. MCP (Base
// Protocol) allows "a string or integer ID"; integers of any size pass and
// come back as the client wrote them, since the relay never decodes them.
func validID(raw []byte) bool {
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return bytes.IndexAny(raw, ".eE") < 0 && string(raw) != "-0"
	}
	return false
}
