package aggregator

import (
	"mime"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/aggregator/modern"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// servePOST answers a POST to /mcp: one JSON-RPC message or a batch
// (MCP Streamable HTTP, "Sending Messages to the Server"). Requests are
// answered as JSON or as an SSE stream (stream.go); a body of only
// notifications and responses gets 202 with no body.
func (h *handler) servePOST(w http.ResponseWriter, r *http.Request) {
	jsonOK, sseOK, herr := postTypes(r)
	if herr != nil {
		wire.WriteError(w, herr)
		return
	}
	body, rerr := h.bodies.Read(w, r)
	if rerr != nil {
		wire.WriteError(w, rerr)
		return
	}
	msgs, batch, perr := wire.ParseBody(body)
	if perr != nil {
		wire.WriteError(w, perr)
		return
	}
	version := r.Header.Get("Mcp-Protocol-Version")
	if !knownVersion(version) {
		e := unsupportedVersion(version)
		if !batch {
			e.ID = msgs[0].ID
		}
		wire.WriteError(w, e)
		return
	}
	if modern.IsVersion(version) || (!batch && modern.InMeta(msgs[0])) {
		h.modern.ServePOST(w, r, msgs, batch, jsonOK, sseOK, version)
		return
	}
	h.legacy.ServePOST(w, r, msgs, batch, jsonOK, sseOK, version)
}

// postTypes checks a POST's Accept (406 when it admits neither JSON nor
// SSE; none sent admits both) and Content-Type (415 unless JSON).
func postTypes(r *http.Request) (jsonOK, sseOK bool, err *wire.HTTPError) {
	given, jsonOK, sseOK := accepts(r.Header.Values("Accept"))
	if !given {
		jsonOK, sseOK = true, true
	}
	if !jsonOK && !sseOK {
		return false, false, &wire.HTTPError{Status: http.StatusNotAcceptable, Code: jsonrpc.CodeInvalidRequest,
			Msg: "Not Acceptable: send Accept: application/json, text/event-stream"}
	}
	// The type every client sends is checked as it is; any other form
	// ("application/json; charset=utf-8", other case) is parsed.
	if ct := r.Header.Get("Content-Type"); ct != "" && ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return false, false, &wire.HTTPError{Status: http.StatusUnsupportedMediaType, Code: jsonrpc.CodeInvalidRequest,
				Msg: "Unsupported Media Type: POST a JSON-RPC message as Content-Type: application/json"}
		}
	}
	return jsonOK, sseOK, nil
}
