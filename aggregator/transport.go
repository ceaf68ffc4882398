package aggregator

import (
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/aggregator/legacy"
	"github.com/mcp-gateway/mcp-gateway/aggregator/modern"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is the front of /mcp (MCP Streamable HTTP, SPEC §3): it routes
// by HTTP method and checks what every request must carry; a POST's body
// and era (servePOST) send it to package legacy (a session's POST, GET and
// DELETE) or package modern. Auth and Origin come first (http.go).

// knownVersion reports whether an MCP-Protocol-Version header value is
// absent or a version the gateway speaks: a modern one (modern.Versions)
// or a legacy one (legacy.Versions).
func knownVersion(v string) bool {
	return v == "" || slices.Contains(legacy.Versions, v) || modern.IsVersion(v)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if v := r.Header.Get("Mcp-Protocol-Version"); r.Method != http.MethodPost && !knownVersion(v) {
		wire.WriteError(w, unsupportedVersion(v)) // a POST's is checked once its id is read
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.servePOST(w, r)
	case http.MethodGet:
		if given, _, sse := accepts(r.Header.Values("Accept")); given && !sse {
			wire.WriteError(w, &wire.HTTPError{Status: http.StatusNotAcceptable, Code: jsonrpc.CodeInvalidRequest,
				Msg: "Not Acceptable: GET /mcp opens an SSE stream; send Accept: text/event-stream"})
			return
		}
		if s, ok := h.sessionOf(w, r); ok {
			s.ServeGET(w, r)
		}
	case http.MethodDelete:
		if s, ok := h.sessionOf(w, r); ok {
			h.legacy.End(s)
			w.WriteHeader(http.StatusNoContent)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		wire.WriteError(w, &wire.HTTPError{Status: http.StatusMethodNotAllowed, Code: jsonrpc.CodeInvalidRequest,
			Msg: "Method Not Allowed: /mcp takes POST, GET and DELETE"})
	}
}

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
	var strs jsonrpc.LongStrings
	body, rerr := h.bodies.Read(w, r, &strs)
	if rerr != nil {
		wire.WriteError(w, rerr)
		return
	}
	msgs, batch, perr := wire.ParseBody(body, &strs)
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

// sessionOf finds the session a GET or DELETE names, or answers: 405 for a
// modern request (no sessions in 2026-07-28, SPEC §3.10), 400 without
// Mcp-Session-Id, 404 for an unknown one.
func (h *handler) sessionOf(w http.ResponseWriter, r *http.Request) (*legacy.Session, bool) {
	if modern.IsVersion(r.Header.Get("Mcp-Protocol-Version")) {
		w.Header().Set("Allow", "POST")
		wire.WriteError(w, &wire.HTTPError{Status: http.StatusMethodNotAllowed, Code: jsonrpc.CodeInvalidRequest,
			Msg: "Method Not Allowed: MCP " + r.Header.Get("Mcp-Protocol-Version") + " has no sessions; POST each request"})
		return nil, false
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		wire.WriteError(w, wire.BadRequest(-32000, "Bad Request: Mcp-Session-Id header is required"))
		return nil, false
	}
	s := h.legacy.Lookup(id)
	if s == nil {
		w.Header().Set("Connection", "close")
		wire.WriteError(w, legacy.ErrUnknownSession)
		return nil, false
	}
	return s, true
}

// unsupportedVersion is the answer to a version the gateway does not speak:
// 400 with -32022 and every supported version (SPEC §3.10).
func unsupportedVersion(v string) *wire.HTTPError {
	return modern.UnsupportedVersion(v, supportedVersions())
}

// accepts reports whether an Accept header was sent, and whether it admits
// JSON and SSE (wildcards count; q=0 excludes). HTTP: a missing Accept
// accepts anything.
func accepts(values []string) (given, jsonOK, sseOK bool) {
	if len(values) == 1 && (values[0] == acceptBoth || values[0] == acceptBothSSEFirst) {
		return true, true, true // what clients send, as it is: no parse
	}
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			base, params, _ := strings.Cut(part, ";")
			base = strings.ToLower(strings.TrimSpace(base))
			if base == "" {
				continue
			}
			given = true
			if q, ok := qValue(params); ok && q == 0 {
				continue
			}
			switch base {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			case "*/*":
				jsonOK, sseOK = true, true
			}
		}
	}
	return given, jsonOK, sseOK
}

// acceptBoth and acceptBothSSEFirst are the Accept the MCP transport
// tells clients to send (basic/transports, Streamable HTTP), in both
// orders.
const (
	acceptBoth         = "application/json, text/event-stream"
	acceptBothSSEFirst = "text/event-stream, application/json"
)

func qValue(params string) (float64, bool) {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(k, "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return q, err == nil
		}
	}
	return 1, false
}
