package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Message is one JSON-RPC message of a POST body, read only as far as the
// relay needs: its envelope. Raw is the message as the client sent it;
// ID, Params, Result and Error are slices of it, byte for byte (SPEC §4.3).
type Message struct {
	Raw    []byte
	ID     json.RawMessage // nil for a notification
	Method string          // "" for a response
	Params json.RawMessage // nil when absent
	// Result and Error are a response's members (one of them is set).
	Result, Error json.RawMessage
	// Index holds the members of Params as the body's validation found
	// them (ParseBody, for a message alone in its body), so that they
	// are read again without a scan: Index.Each(Params, …). Params
	// replaced, or a message of a batch, is scanned.
	Index jsonrpc.Index
}

// IsRequest, IsNotification and IsResponse classify a message.
func (m *Message) IsRequest() bool      { return m.Method != "" && m.ID != nil }
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == nil }
func (m *Message) IsResponse() bool     { return m.Method == "" }

// HTTPError is a JSON-RPC error answered with an HTTP status. ID is the
// request's, when it could be read.
type HTTPError struct {
	Status int
	ID     json.RawMessage
	Code   int64
	Msg    string
	Data   json.RawMessage
}

func (e *HTTPError) Error() string { return e.Msg }

// BadRequest is a 400 with code and msg.
func BadRequest(code int64, msg string) *HTTPError {
	return &HTTPError{Status: http.StatusBadRequest, Code: code, Msg: msg}
}

// MaxBatch is the most messages a JSON-RPC batch (MCP 2025-03-26) may
// hold; a larger one is refused whole.
const MaxBatch = 1000

// ParseBody reads a POST body: one JSON-RPC message, or a non-empty batch
// of them (an array). Errors are 400 with -32700 (not JSON) or -32600
// (JSON, but not JSON-RPC messages), as the JSON-RPC 2.0 spec assigns.
// strs (nil: none) holds what was found of the body's long strings as it
// arrived (body.Reader), which one message's validation does not read
// again.
func ParseBody(body []byte, strs *jsonrpc.LongStrings) (msgs []*Message, batch bool, err *HTTPError) {
	body, at := jsonrpc.TrimSpaceAt(body)
	if len(body) == 0 {
		return nil, false, BadRequest(jsonrpc.CodeParseError, "Parse error: the body is empty; POST one JSON-RPC message")
	}
	if body[0] == '{' {
		// One message, validated and read in one scan, which also holds
		// its params' members.
		one := new(single)
		e, ok := jsonrpc.ValidEnvelopeIndexed(body, strs, at, &one.msg.Index)
		if !ok {
			return nil, false, BadRequest(jsonrpc.CodeParseError, "Parse error: the body is not valid JSON")
		}
		if err := one.msg.read(body, e); err != nil {
			return nil, false, err
		}
		one.list[0] = &one.msg
		return one.list[:], false, nil
	}
	if !jsonrpc.Valid(body) {
		return nil, false, BadRequest(jsonrpc.CodeParseError, "Parse error: the body is not valid JSON")
	}
	if body[0] != '[' {
		return nil, false, BadRequest(jsonrpc.CodeInvalidRequest, "Invalid Request: not a JSON-RPC message object")
	}
	var raws []json.RawMessage
	_ = json.Unmarshal(body, &raws) // valid JSON: an array of values
	if len(raws) == 0 {
		return nil, true, BadRequest(jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
	}
	if len(raws) > MaxBatch {
		return nil, true, BadRequest(jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a batch of %d messages; the gateway takes at most %d", len(raws), MaxBatch))
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

// single is the body of one message, its Message and the list of it
// ParseBody returns, made in one allocation.
type single struct {
	msg  Message
	list [1]*Message
}

// parseMessage reads one message's envelope. raw is valid JSON.
func parseMessage(raw []byte) (*Message, *HTTPError) {
	m := new(Message)
	if err := m.parse(raw); err != nil {
		return nil, err
	}
	return m, nil
}

// parse reads one message's envelope into m. raw is valid JSON.
func (m *Message) parse(raw []byte) *HTTPError {
	e, err := jsonrpc.ReadEnvelope(raw)
	if err != nil {
		return invalidRequest("not a JSON-RPC message object")
	}
	return m.read(raw, e)
}

// invalidRequest is a 400 with -32600, saying why.
func invalidRequest(why string) *HTTPError {
	return BadRequest(jsonrpc.CodeInvalidRequest, "Invalid Request: "+why)
}

// read checks the envelope e of the message raw and reads it into m.
func (m *Message) read(raw []byte, e jsonrpc.Envelope) *HTTPError {
	invalid := invalidRequest
	// Field by field: m.Index, which the validation filled, is kept.
	m.Raw, m.ID, m.Method, m.Params, m.Result, m.Error = raw, e.ID, "", e.Params, e.Result, e.Error
	version, method := e.Version, e.Method
	if string(version) != `"2.0"` {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	nullID := string(m.ID) == "null"
	if m.ID != nil && !nullID && !ValidID(m.ID) {
		return invalid("id must be a string or an integer, got " + string(m.ID))
	}
	if method != nil {
		name, ok := methodName(method)
		if !ok || name == "" || nullID || m.Result != nil || m.Error != nil {
			return invalid("not a JSON-RPC request or notification")
		}
		m.Method = name
		if m.Params != nil && m.Params[0] != '{' && m.Params[0] != '[' {
			return invalid("params must be an object")
		}
		return nil
	}
	// A response: an id (null only beside an error, for a request whose id
	// could not be read) and exactly one of result and error.
	if m.ID == nil || (m.Result != nil) == (m.Error != nil) || (nullID && m.Error == nil) {
		return invalid("not a JSON-RPC request, notification or response")
	}
	return nil
}

// ValidID reports whether a raw id is a string or an integer. MCP (Base
// Protocol) allows "a string or integer ID"; integers of any size pass and
// come back as the client wrote them, since the relay never decodes them.
func ValidID(raw []byte) bool {
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return bytes.IndexAny(raw, ".eE") < 0 && string(raw) != "-0"
	}
	return false
}

// methodName is jsonrpc.Text of a request's raw method, with the methods
// of every call (tools/call, and the lists a client pages through) given
// as constants rather than a string made for each message.
func methodName(raw []byte) (string, bool) {
	switch string(raw) {
	case `"tools/call"`:
		return "tools/call", true
	case `"tools/list"`:
		return "tools/list", true
	case `"ping"`:
		return "ping", true
	case `"notifications/cancelled"`:
		return "notifications/cancelled", true
	}
	return jsonrpc.Text(raw)
}
