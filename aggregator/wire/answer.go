package wire

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// ResultParts renders a result response without copying the result.
// The first part has room for what the modern front appends to it
// (resultRoom).
func ResultParts(id, result []byte) [][]byte {
	head := make([]byte, 0, len(`{"jsonrpc":"2.0","id":`)+len(id)+len(`,"result":`)+resultRoom)
	head = append(append(append(head, `{"jsonrpc":"2.0","id":`...), id...), `,"result":`...)
	return [][]byte{head, result, []byte("}")}
}

// resultRoom is the room left in ResultParts' first part for the
// `{"resultType":"complete",` a modern answer opens its result with: 24
// bytes left a modern call's comma to copy the head into a new one.
const resultRoom = len(`{"resultType":"complete",`)

// ErrorParts renders an error response: a *jsonrpc.Error keeps its code,
// message and data (SPEC §4.4); any other error is CodeServerUnavailable.
func ErrorParts(id []byte, err error) [][]byte {
	var e *jsonrpc.Error
	if !errors.As(err, &e) {
		e = &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: err.Error()}
	}
	return [][]byte{ErrorMessage(id, e.Code, e.Message, e.Data)}
}

// ErrorMessage renders a JSON-RPC error response; a nil id is null.
func ErrorMessage(id []byte, code int64, msg string, data json.RawMessage) []byte {
	if len(id) == 0 {
		id = []byte("null")
	}
	return jsonrpc.ErrorResponse(id, &jsonrpc.Error{Code: code, Message: msg, Data: data})
}

// WriteResult writes a result response as one JSON body.
func WriteResult(w http.ResponseWriter, id, result []byte) {
	WriteParts(w, http.StatusOK, ResultParts(id, result))
}

// WriteParts writes a message given as parts as one JSON body.
func WriteParts(w http.ResponseWriter, status int, parts [][]byte) {
	out := NewStream(w, false) // for its write limit
	out.FinishStatus(status, parts...)
	out.Done()
}

// WriteError writes a JSON-RPC error response with e's HTTP status.
func WriteError(w http.ResponseWriter, e *HTTPError) {
	WriteRPCError(w, e.Status, e.ID, e.Code, e.Msg, e.Data)
}

// WriteRPCError writes a JSON-RPC error response with an HTTP status.
func WriteRPCError(w http.ResponseWriter, status int, id json.RawMessage, code int64, msg string, data json.RawMessage) {
	b := ErrorMessage(id, code, msg, data)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// SkipBody is for an answer that does not read the request's body: the
// connection closes after it, and reading what is left of the body fails
// at once. net/http otherwise drains up to 256 KiB of an unread body
// first: a caller without the token that sends headers and never its body
// held its connection (and, with enough of them, every descriptor), even
// past a 401 marked Connection: close.
func SkipBody(w http.ResponseWriter) {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}
