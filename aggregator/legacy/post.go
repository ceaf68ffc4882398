package legacy

import (
	"context"
	"net/http"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// ServePOST serves a POST of the session era (MCP 2024-11-05 …
// 2025-11-25, SPEC §3.2): an initialize without a session opens one;
// anything else names its session in Mcp-Session-Id (400 without it, 404
// for one unknown or ended). version is the request's
// Mcp-Protocol-Version ("" for none: DefaultVersion); jsonOK and sseOK
// are what its Accept admits (none sent admits both).
func (f *Front) ServePOST(w http.ResponseWriter, r *http.Request, msgs []*wire.Message, batch, jsonOK, sseOK bool, version string) {
	if version == "" {
		version = DefaultVersion
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
		rec := f.begin(msgs[0], "", r) // its span, with tracing on (package record)
		f.initialize(w, msgs[0], sseOK && !jsonOK, tools)
		rec.End()
		return
	}
	s := f.sessions.get(sid)
	if s == nil {
		unknownSession(w, id)
		return
	}
	f.serveSession(w, r, s, msgs, batch, jsonOK, sseOK)
}

// unknownSession answers a request (id, if one) of an unknown or ended
// session: 404, and the connection closed, as for 401.
func unknownSession(w http.ResponseWriter, id []byte) {
	e := *ErrUnknownSession
	e.ID = id
	w.Header().Set("Connection", "close")
	wire.WriteError(w, &e)
}

// serveSession handles the messages of one POST to a session: responses
// and notifications first, then the requests, concurrently, their
// responses in one JSON body (an array for a batch) or one SSE stream.
func (f *Front) serveSession(w http.ResponseWriter, r *http.Request, s *Session, msgs []*wire.Message, batch, jsonOK, sseOK bool) {
	var requests []*wire.Message
	for _, m := range msgs {
		switch {
		case m.IsResponse():
			s.answer(m)
		case m.IsNotification():
			f.notification(s, m)
		default:
			requests = append(requests, m)
		}
	}
	if len(requests) == 0 {
		f.sessions.postStarted(s, nil)
		f.sessions.postEnded(s, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	out := wire.NewStream(w, sseOK)
	defer out.Done()
	f.sessions.postStarted(s, out)
	// A client that goes away ends its POST for the idle clock at once,
	// while its requests go on until they end, the session ends, or the
	// client cancels them (disconnection is not cancellation). Watched
	// only once the POST has run sseAfter: a shorter one ends about as
	// soon, and the watch (context.AfterFunc on the request) cost every
	// call ~1.4 µs of the serving thread (issue 33).
	var stop func() bool // set on out's clock under its lock: read after out.Close
	out.OnLong(func() { stop = context.AfterFunc(r.Context(), func() { f.sessions.postEnded(s, out) }) })
	defer func() {
		out.Close() // OnLong's func has run, or never will
		if stop == nil || stop() {
			f.sessions.postEnded(s, out)
		}
	}()
	if !jsonOK && out.OpenSSE() != nil {
		return
	}
	if !batch {
		rec := f.begin(requests[0], s.id, r) // Options.Begin: ends once the answer is written
		defer rec.End()
		reply := f.request(s, requests[0], out, rec)
		if reply == nil {
			rec.Cancelled()
			out.Close() // cancelled by the client: no response (MCP Cancellation)
			return
		}
		out.Finish(reply...)
		return
	}
	out.Finish(f.batch(s, requests, out, r)...)
}

// batchConcurrency bounds the requests of one batch (2025-03-26; at most
// wire.MaxBatch messages) that run at a time. A 44 MiB batch of a million
// pings started a goroutine each and took 500 MB (found by an
// adversarial review).
const batchConcurrency = 16

// batch runs a batch's requests concurrently and returns their responses
// as the parts of one JSON array, in request order (a 2025-03-26 client;
// cancelled requests have none).
func (f *Front) batch(s *Session, requests []*wire.Message, out *wire.Stream, hr *http.Request) [][]byte {
	replies := make([][][]byte, len(requests))
	var wg sync.WaitGroup
	slots := make(chan struct{}, batchConcurrency)
	for i, m := range requests {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			rec := f.begin(m, s.id, hr)
			defer rec.End()
			if replies[i] = f.request(s, m, out, rec); replies[i] == nil {
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
