package aggregator

import (
	"context"
	"mime"
	"net/http"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
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
	if isModern(version) || (!batch && modernMeta(msgs[0])) {
		h.serveModern(w, r, msgs, batch, accepted{jsonOK, sseOK}, version)
		return
	}
	h.serveLegacy(w, r, msgs, batch, accepted{jsonOK, sseOK}, version)
}

// serveLegacy serves a POST of the session era (MCP 2024-11-05 …
// 2025-11-25, SPEC §3.2): an initialize without a session opens one;
// anything else names its session in Mcp-Session-Id (400 without it, 404
// for one unknown or ended). version is the request's
// Mcp-Protocol-Version ("" for none: defaultVersion).
func (h *handler) serveLegacy(w http.ResponseWriter, r *http.Request, msgs []*wire.Message, batch bool, acc accepted, version string) {
	if version == "" {
		version = defaultVersion
	}
	var id []byte // a single request's, for the error that answers it
	if !batch && msgs[0].IsRequest() {
		id = msgs[0].ID
	}
	if batch && version >= firstWithoutBatches {
		wire.WriteError(w, wire.BadRequest(jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not part of MCP "+version+
			" (removed in 2025-06-18); send one message per POST"))
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	if sid == "" {
		if batch || msgs[0].Method != "initialize" || !msgs[0].IsRequest() {
			e := wire.BadRequest(-32000, "Bad Request: Mcp-Session-Id header is required (send initialize first, then the Mcp-Session-Id it returns on every request)")
			e.ID = id
			wire.WriteError(w, e)
			return
		}
		tools, herr := relay.ToolsQuery(r) // the session keeps it (SPEC §4.10)
		if herr != nil {
			herr.ID = id
			wire.WriteError(w, herr)
			return
		}
		rec := h.begin(msgs[0], nil, r) // its span, with tracing on (package record)
		h.initialize(w, msgs[0], acc.sse && !acc.json, tools)
		rec.End()
		return
	}
	s := h.sessions.get(sid)
	if s == nil {
		unknownSession(w, id)
		return
	}
	h.serveSession(w, r, s, msgs, batch, acc.json, acc.sse)
}

// unknownSession answers a request (id, if one) of an unknown or ended
// session: 404, and the connection closed, as for 401.
func unknownSession(w http.ResponseWriter, id []byte) {
	e := *errUnknownSession
	e.ID = id
	w.Header().Set("Connection", "close")
	wire.WriteError(w, &e)
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

// serveSession handles the messages of one POST to a session: responses
// and notifications first, then the requests, concurrently, their
// responses in one JSON body (an array for a batch) or one SSE stream.
func (h *handler) serveSession(w http.ResponseWriter, r *http.Request, s *session, msgs []*wire.Message, batch, jsonOK, sseOK bool) {
	var requests []*wire.Message
	for _, m := range msgs {
		switch {
		case m.IsResponse():
			s.answer(m)
		case m.IsNotification():
			h.notification(s, m)
		default:
			requests = append(requests, m)
		}
	}
	if len(requests) == 0 {
		h.sessions.postStarted(s, nil)
		h.sessions.postEnded(s, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out := wire.NewStream(w, sseOK)
	defer out.Done()
	h.sessions.postStarted(s, out)
	// A client that goes away ends its POST for the idle clock at once,
	// while its requests go on until they end, the session ends, or the
	// client cancels them (disconnection is not cancellation).
	stop := context.AfterFunc(r.Context(), func() { h.sessions.postEnded(s, out) })
	defer func() {
		if stop() {
			h.sessions.postEnded(s, out)
		}
	}()
	if !jsonOK && out.OpenSSE() != nil {
		return
	}
	if !batch {
		rec := h.begin(requests[0], s, r) // recording.go: ends once the answer is written
		defer rec.End()
		reply := h.request(s, requests[0], out, rec)
		if reply == nil {
			rec.Cancelled()
			out.Close() // cancelled by the client: no response (MCP Cancellation)
			return
		}
		out.Finish(reply...)
		return
	}
	out.Finish(h.batch(s, requests, out, r)...)
}

// batchConcurrency bounds the requests of one batch (2025-03-26; at most
// wire.MaxBatch messages) that run at a time. A 44 MiB batch of a million
// pings started a goroutine each and took 500 MB (found by an
// adversarial review).
const batchConcurrency = 16

// batch runs a batch's requests concurrently and returns their responses
// as the parts of one JSON array, in request order (a 2025-03-26 client;
// cancelled requests have none).
func (h *handler) batch(s *session, requests []*wire.Message, out *wire.Stream, hr *http.Request) [][]byte {
	replies := make([][][]byte, len(requests))
	var wg sync.WaitGroup
	slots := make(chan struct{}, batchConcurrency)
	for i, m := range requests {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			rec := h.begin(m, s, hr)
			defer rec.End()
			if replies[i] = h.request(s, m, out, rec); replies[i] == nil {
				rec.Cancelled()
			}
		}()
	}
	wg.Wait()
	parts := [][]byte{[]byte("[")}
	for _, reply := range replies {
		if reply == nil {
			continue
		}
		if len(parts) > 1 {
			parts = append(parts, []byte(","))
		}
		parts = append(parts, reply...)
	}
	return append(parts, []byte("]"))
}
