package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Standard JSON-RPC 2.0 error codes, and the MCP ones the gateway uses.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeServerUnavailable is the gateway's own code for "the upstream
	// server is not running and could not be started" (implementation
	// defined range -32000..-32099).
	CodeServerUnavailable = -32001
)

// Message is one decoded JSON-RPC message. Params, Result and Error stay raw.
// A request has ID and Method; a notification has Method only; a response
// has ID and Result or Error.
type Message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

// IsRequest, IsNotification and IsResponse classify a message.
func (m *Message) IsRequest() bool      { return m.Method != "" && hasID(m.ID) }
func (m *Message) IsNotification() bool { return m.Method != "" && !hasID(m.ID) }
func (m *Message) IsResponse() bool     { return m.Method == "" && hasID(m.ID) }

func hasID(id json.RawMessage) bool { return len(id) > 0 && string(id) != "null" }

// Decode parses one line. It fails on anything that is not a JSON object.
// The message's members are slices of one copy of the line (the caller
// may reuse line): one validity pass and one scan, where encoding/json
// would validate, decode and copy each member again (bench: 43% of the
// CPU of an 8 MiB result went there).
func Decode(line []byte) (*Message, error) { return decode(line, true, nil) }

// DecodeOwned is Decode of a line the caller gives away (Reader.ReadOwned):
// the message's members are slices of line itself, not of a copy.
func DecodeOwned(line []byte) (*Message, error) { return decode(line, false, nil) }

// DecodeOwnedScanned is DecodeOwned of a line whose long strings s found
// valid as it was read (Reader.Scanned; nil: none): they are not read
// again.
func DecodeOwnedScanned(line []byte, s *LongStrings) (*Message, error) { return decode(line, false, s) }

func decode(line []byte, clone bool, s *LongStrings) (*Message, error) {
	t, at := TrimSpaceAt(line)
	if len(t) == 0 || t[0] != '{' {
		return nil, errors.New("decode message: not a JSON object")
	}
	if clone {
		t = bytes.Clone(t)
	}
	e, ok := ValidEnvelopeScanned(t, s, at)
	if !ok {
		var v any
		return nil, fmt.Errorf("decode message: %w", json.Unmarshal(t, &v))
	}
	m := Message{ID: e.ID, Params: e.Params, Result: e.Result, Error: e.Error}
	method := e.Method
	if method != nil {
		name, ok := Text(method)
		if !ok {
			return nil, fmt.Errorf("decode message: method is %s, not a string", method)
		}
		m.Method = name
	}
	// "error": null beside a result is no error; a server that wrote it
	// had its result turned into an error of code 0.
	if string(m.Error) == "null" {
		m.Error = nil
	}
	return &m, nil
}

// Error is a JSON-RPC error object. Data is kept raw.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// DecodeError parses a raw error object. One that is not an object with
// an integer code becomes CodeInternalError, with the raw object as data
// (its code would otherwise go out as 0, which JSON-RPC does not define).
func DecodeError(raw json.RawMessage) *Error {
	var e struct {
		Code    *int64          `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Code == nil {
		return &Error{Code: CodeInternalError, Message: "upstream sent a malformed error object", Data: Quote(string(raw))}
	}
	return &Error{Code: *e.Code, Message: e.Message, Data: e.Data}
}

// IntID renders an integer id.
func IntID(n int64) json.RawMessage { return strconv.AppendInt(nil, n, 10) }

// ParseIntID returns the integer in id, if it is one. The gateway's own
// ids are integers; a server that echoes one back as a string ("14") is
// matched too, rather than leaving the call waiting forever.
func ParseIntID(id json.RawMessage) (int64, bool) {
	s := string(bytes.TrimSpace(id))
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// Request encodes a request line (without newline).
func Request(id json.RawMessage, method string, params json.RawMessage) []byte {
	return appendMessage(make([]byte, 0, len(id)+len(method)+len(params)+48), id, method, params, nil, nil)
}

// AppendRequest appends the line of request id (without newline) to b,
// as Request encodes it, the integer id written in place: a caller that
// keeps b between requests encodes one with no allocation.
func AppendRequest(b []byte, id int64, method string, params json.RawMessage) []byte {
	if len(params) == 0 {
		var num [20]byte
		return appendMessage(b, strconv.AppendInt(num[:0], id, 10), method, nil, nil, nil)
	}
	b = AppendRequestHead(b, id, method)
	b = append(b, params...)
	return append(b, '}')
}

// AppendRequestHead appends what precedes the params in the line of
// request id, up to and including `"params":`, to b: the params and a
// closing '}' make the line AppendRequest would (for non-empty params),
// so that a large request can be written in three pieces without a copy
// of its params.
func AppendRequestHead(b []byte, id int64, method string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = appendString(b, method)
	return append(b, `,"params":`...)
}

// Notification encodes a notification line (without newline).
func Notification(method string, params json.RawMessage) []byte {
	return appendMessage(nil, nil, method, params, nil, nil)
}

// Response encodes a result response line.
func Response(id, result json.RawMessage) []byte {
	return appendMessage(make([]byte, 0, len(id)+len(result)+48), id, "", nil, result, nil)
}

// ErrorResponse encodes an error response line.
func ErrorResponse(id json.RawMessage, e *Error) []byte {
	raw, _ := json.Marshal(e)
	return appendMessage(nil, id, "", nil, nil, raw)
}

func appendMessage(b []byte, id json.RawMessage, method string, params, result, errObj json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0"`...)
	if len(id) > 0 {
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	if method != "" {
		b = append(b, `,"method":`...)
		b = appendString(b, method)
	}
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	if len(errObj) > 0 {
		b = append(b, `,"error":`...)
		b = append(b, errObj...)
	} else if method == "" {
		if len(result) == 0 {
			result = json.RawMessage("{}")
		}
		b = append(b, `,"result":`...)
		b = append(b, result...)
	}
	return append(b, '}')
}

// Envelope is the members of a JSON-RPC message object, raw: slices of
// the object, nil when absent. Method is the raw JSON string.
type Envelope struct {
	Version, ID, Method, Params, Result, Error json.RawMessage
}

// ReadEnvelope reads a message object's envelope in one scan; it fails
// only if obj is not an object.
func ReadEnvelope(obj []byte) (Envelope, error) {
	var e Envelope
	members := [...]*json.RawMessage{&e.Version, &e.ID, &e.Method, &e.Params, &e.Result, &e.Error}
	err := Members(obj, func(k, v []byte) bool {
		for i, key := range envelopeKeys {
			if string(k) == key {
				*members[i] = v
				break
			}
		}
		return true
	})
	return e, err
}

// ValidEnvelope is Valid and ReadEnvelope in one scan of an object: ok
// only if obj is one valid JSON object (white space around it allowed),
// and then its envelope as ReadEnvelope reads it. A message is read once
// on its way in, not once to validate and again for its members: an
// 8 MiB argument or result is scanned once less (issue 33).
func ValidEnvelope(obj []byte) (e Envelope, ok bool) { return validEnvelope(obj, nil, nil) }

// ValidEnvelopeScanned is ValidEnvelope of obj, a message s scanned as
// it arrived (LongStrings; nil: none), from its byte at (TrimSpaceAt):
// the long strings s found valid are not read again.
func ValidEnvelopeScanned(obj []byte, s *LongStrings, at int) (Envelope, bool) {
	return ValidEnvelopeIndexed(obj, s, at, nil)
}

// ValidEnvelopeIndexed is ValidEnvelopeScanned that also holds the
// members of the message's params in x, when they are an object, for
// x.Each to read without a scan; x (nil: none) is reset first.
func ValidEnvelopeIndexed(obj []byte, s *LongStrings, at int, x *Index) (Envelope, bool) {
	if x != nil {
		x.reset()
	}
	var k *scanned
	if s != nil && len(s.long) > 0 {
		k = &scanned{long: s.long, at: at}
	}
	e, ok := validEnvelope(obj, k, x)
	if !ok && x != nil {
		x.reset()
	}
	return e, ok
}

// TrimSpaceAt is b without the white space JSON allows around a value
// (space, tab, CR, LF: RFC 8259 §2), and where what it returns starts in
// b, the offset of a message in what LongStrings scanned. Other white
// space (\v, \f, U+00A0, …) is left, so a message wrapped in it is not
// valid JSON, as encoding/json reads it; bytes.TrimSpace, used here
// before, took it away (a hostile review).
func TrimSpaceAt(b []byte) (t []byte, at int) {
	t = bytes.TrimLeft(b, jsonSpace)
	return bytes.TrimRight(t, jsonSpace), len(b) - len(t)
}

// jsonSpace is the white space JSON allows around a value.
const jsonSpace = " \t\r\n"

func validEnvelope(obj []byte, k *scanned, x *Index) (e Envelope, ok bool) {
	members := [...]*json.RawMessage{&e.Version, &e.ID, &e.Method, &e.Params, &e.Result, &e.Error}
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return Envelope{}, false
	}
	end, ok := validMembers(obj, i, 1, k, func(keyAt, keyEnd, start int) (int, bool) {
		key := obj[keyAt+1 : keyEnd-1]
		var end int
		var ok bool
		if x != nil && string(key) == "params" && start < len(obj) && obj[start] == '{' {
			end, ok = validIndexed(obj, start, k, x)
		} else {
			end, ok = validFrom(obj, start, 1, k)
		}
		if ok {
			for m, name := range envelopeKeys {
				if string(key) == name {
					*members[m] = trimSpaceRight(obj[start:end])
					break
				}
			}
		}
		return end, ok
	})
	if !ok || skipSpace(obj, end) != len(obj) {
		return Envelope{}, false
	}
	return e, true
}

// validMembers validates the members of the object at obj[i] (its '{'),
// whose values are at depth (the containers around them, the object's
// own included): each key, and each value through value, given where
// the key's quotes are and where the value starts, which validates the
// value and returns where it ends (white space after it may follow). It
// returns the end of the object, after its '}'.
func validMembers(obj []byte, i, depth int, k *scanned, value func(keyAt, keyEnd, start int) (int, bool)) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	if i = skipSpace(obj, i+1); i < len(obj) && obj[i] == '}' {
		return i + 1, true
	}
	for {
		keyAt := i
		if i >= len(obj) || obj[i] != '"' {
			return i, false
		}
		keyEnd, ok := validStringKnown(obj, i, k)
		if !ok {
			return i, false
		}
		if i = skipSpace(obj, keyEnd); i >= len(obj) || obj[i] != ':' {
			return i, false
		}
		end, ok := value(keyAt, keyEnd, skipSpace(obj, i+1))
		if !ok {
			return end, false
		}
		switch {
		case end >= len(obj):
			return end, false
		case obj[end] == ',':
			i = skipSpace(obj, end+1)
		case obj[end] == '}':
			return end + 1, true
		default:
			return end, false
		}
	}
}

// validIndexed validates the object at obj[start], a message's params,
// and holds its members in x (as offsets in it).
func validIndexed(obj []byte, start int, k *scanned, x *Index) (int, bool) {
	x.reset()
	end, ok := validMembers(obj, start, 2, k, func(keyAt, keyEnd, at int) (int, bool) {
		end, ok := validFrom(obj, at, 2, k)
		if ok {
			x.add(keyAt+1-start, keyEnd-1-start, at-start, at-start+len(trimSpaceRight(obj[at:end])))
		}
		return end, ok
	})
	if ok {
		x.of(obj[start:end])
		end = skipSpace(obj, end)
	}
	return end, ok
}

// envelopeKeys are the members of a JSON-RPC message, in the order of
// ReadEnvelope's members.
var envelopeKeys = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}
