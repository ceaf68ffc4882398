package modern

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/auth"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file relays a modern request to its server as a bridged call
// (bridge.go; SPEC §4.6): a tools/call routed (modernRoute, request.go),
// a retry's requestState opened (openState) and
// either a parked call resumed (resumeCall) or a modern server's round
// carried on, and a call inline or parkable as the client's capabilities
// allow. tools/call (modern.go), prompts/get, resources/read and
// completion/complete (modern.go) and the tasks extension
// (taskmodern.go) come through here.

// relayModern relays a modern request routed as c (or answers err, its
// routing's error) as a bridged call: see modernCall. prompts/get and
// resources/read may park as tools/call may (MRTR, SPEC §4.6);
// completion/complete runs inline.
func (f *Front) relayModern(w http.ResponseWriter, r *http.Request, req *modernReq, c relay.Call, err error) {
	out := wire.NewStream(w, req.accept.sse)
	defer out.Done()
	if !req.accept.json && out.OpenSSE() != nil {
		req.rec.Cancelled()
		return
	}
	if own, ok := relay.OwnOf(err); ok { // search_tools (toolsearch.go)
		req.rec.Routed(own.Name, "", own.Name)
		res := own.Result()
		req.rec.Result(res)
		out.Finish(modernResultParts(req.ID, res)...)
		return
	}
	if err != nil {
		out.Finish(req.rec.ErrorParts(req.ID, err)...)
		return
	}
	token, _ := auth.Bearer(r.Header.Get("Authorization"))
	if req.hasState {
		st, err := f.openState(req.state, auth.TokenDigest(token), c.StateKey(), c.Route)
		if err != nil {
			out.Finish(req.rec.ErrorParts(req.ID, err)...)
			return
		}
		if st.Kind == reqstate.KindPark {
			f.resumeCall(req, st, out, r.Context().Done())
			return
		}
		req.rec.Follows(telemetry.ParseTraceparent(st.Trace)) // the rounds of a modern server's call are one trace
		c.Params, _ = jsonrpc.Replace(c.Params, "requestState", jsonrpc.Quote(st.ServerState))
		c.Run = st.Run
	}
	if req.progressErr != nil {
		out.Finish(req.rec.ErrorParts(req.ID, req.progressErr)...)
		return
	}
	if !canBeAsked(req.caps) || c.Method == "completion/complete" {
		f.bridges.callInline(r, req, c, token, out)
		return
	}
	f.bridges.callParkable(r, req, c, token, out)
}

// openState verifies a retry's requestState (state.go): -32602 when it is
// not a string this gateway sealed for this caller and tool, or has expired.
func (f *Front) openState(raw json.RawMessage, token, tool string, rt registry.Route) (*reqstate.State, error) {
	text, ok := jsonrpc.Text(raw)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: requestState must be a string"}
	}
	st, err := f.states.Open(text, token, tool, time.Now())
	if err == nil && st.Kind == reqstate.KindUpstream && st.Server != rt.Upstream.Name() {
		err = reqstate.ErrForeign
	}
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + err.Error()}
	}
	return st, nil
}

// resumeCall answers a parked call with the retry's inputResponses and
// waits for its next round. Asks the client left unanswered are asked
// again (MCP mrtr, Error Handling).
func (f *Front) resumeCall(req *modernReq, st *reqstate.State, out *wire.Stream, done <-chan struct{}) {
	bc, err := f.bridges.resume(st)
	if err != nil {
		out.Finish(req.rec.ErrorParts(req.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: " + err.Error()})...)
		return
	}
	req.rec.Follows(bc.trace) // a parked call and its retries are one trace
	responses, _ := jsonrpc.Member(req.Params, "inputResponses")
	if missing := bc.answer(responses); len(missing) > 0 {
		if !bc.park(missing) { // shutting down: the call ends
			bc.finish(req, out, <-bc.done)
			return
		}
		out.Finish(req.rec.InputRequired(req.ID, bc.inputRequired(missing))...)
		return
	}
	bc.mu.Lock()
	bc.level = req.level
	bc.mu.Unlock()
	bc.await(req, out, done)
}
