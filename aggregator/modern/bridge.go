package modern

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file bridges server-to-client requests for modern clients (MCP
// 2026-07-28 mrtr; SPEC §4.6). A modern client's tools/call runs as a
// bridgeCall, on the HTTP request that started it until the server first
// asks, and apart from it from then on (callParkable):
//
//   - A legacy server's elicitation/create, sampling/createMessage or
//     roots/list during the call parks it: the client gets an
//     InputRequiredResult whose inputRequests hold the server's requests as
//     sent and whose requestState (state.go) names the parked call. The
//     client's retry with inputResponses answers the server and the call
//     goes on, round after round. A parked call nobody resumes within
//     HTTPOptions.StateTTL is cancelled upstream.
//   - A modern server's own InputRequiredResult passes through, its
//     requestState sealed with the process that issued it, so that the
//     retry reaches that process (or fails clearly if it has ended).
//
// While a request is attached, closing its stream cancels the call
// (MCP 2026-07-28 Cancellation); while parked, only expiry does.

// bridgeSeq numbers bridged calls: a call's id and its Session.
var bridgeSeq atomic.Uint64

// newBridge makes the bridgeCall of a modern client's call; its context
// and channels come with its detach (detachNow).
func (b *bridges) newBridge(req *modernReq, c relay.Call, token string) *bridgeCall {
	return &bridgeCall{b: b, seq: bridgeSeq.Add(1), method: c.Method, target: c.StateKey(), rt: c.Route, bearer: token,
		caps: req.caps, level: req.level, gone: b.base.Done(), tokenFree: req.tokenFree}
}

// canBeAsked reports whether a client's capabilities let a server ask it
// anything (sampling, elicitation or roots, not null): only then can its
// call park. One scan of caps.
func canBeAsked(caps json.RawMessage) bool {
	if len(caps) == 0 || caps[0] != '{' {
		return false
	}
	var can [3]bool // as clientCan reads them: the last of a repeated key
	_ = jsonrpc.Members(caps, func(k, v []byte) bool {
		for i, name := range [...]string{"sampling", "elicitation", "roots"} {
			if jsonrpc.KeyIs(k, name) {
				can[i] = string(v) != "null"
			}
		}
		return true
	})
	return can[0] || can[1] || can[2]
}

// callInline makes a call that cannot park on the request's own
// goroutine and context: closing the stream cancels it.
//
// It makes none of a parkable call's channels or context: with its
// client unable to be asked anything, Request answers -32601 before
// touching them (bench: a modern call cost more than a legacy one).
func (b *bridges) callInline(r *http.Request, req *modernReq, c relay.Call, token string, out *wire.Stream) {
	bc := b.newBridge(req, c, token)
	bc.out, bc.inline = out, true
	out.ArmSSE()
	c.Peer = bc
	o := relay.Do(req.rec.Context(r.Context()), c)
	if r.Context().Err() != nil {
		req.rec.Cancelled()
		out.Close()
		return
	}
	o.Err = b.shutdownCause(o.Err)
	bc.finish(req, out, o)
}

// A modern call that may park runs on the HTTP request that started it,
// until the server first asks: the call then detaches
// (supervisor.Detacher), a goroutine of its own takes over the wait for
// its outcome, and the request awaits the round. A call the server asks
// nothing costs no goroutine and no context of its own.

// callParkable makes a call whose client can be asked (so that it may
// park) on the request's goroutine and context: closing the stream
// cancels it, and shutdown does through Gone. The server's first request
// detaches it (supervisor.Detacher): it gets a context of its own, so
// that it can outlive the request, a goroutine of its own takes over the
// wait for its outcome, and the request awaits the round as a resumed one
// does. A
// call the server asks nothing costs no goroutine and no hand-over
// between goroutines (bench: with one from the start, a modern call of a
// client that declared roots cost ~10 µs more than a legacy one), and no
// context.AfterFunc on the request (~1 µs of the serving thread's CPU).
func (b *bridges) callParkable(r *http.Request, req *modernReq, c relay.Call, token string, out *wire.Stream) {
	bc := b.newBridge(req, c, token)
	bc.out, bc.detach = out, make(chan struct{})
	bc.trace = req.rec.SpanContext()
	out.ArmSSE()
	c.Peer = bc
	o := relay.Do(req.rec.Context(r.Context()), c)
	if o.Detached == nil {
		bc.endAttached()
		if r.Context().Err() != nil {
			req.rec.Cancelled()
			out.Close() // cancelled by the client: no response
			return
		}
		o.Err = b.shutdownCause(o.Err)
		bc.finish(req, out, o)
		return
	}
	b.wg.Add(1) // from here await watches the client
	go func() {
		defer b.wg.Done()
		defer bc.cancel(nil)
		bc.endDetached(relay.AwaitDetached(bc.ctx, o))
	}()
	bc.await(req, out, r.Context().Done())
}

// Detach is closed by the server's first request (supervisor.Detacher);
// nil, never, for an inline call.
func (bc *bridgeCall) Detach() <-chan struct{} { return bc.detach }

// Gone is the front's base context's Done: shutdown (CancelAll)
// cancels a call still attached to its request (supervisor.Detacher); the
// request's own context cancels it when the client closes the stream.
func (bc *bridgeCall) Gone() <-chan struct{} { return bc.gone }

// shutdownCause is err, or the gateway's reason when it is shutting down
// (CancelAll): a call cancelled by Gone gets a JSON-RPC error that says
// why, not "context canceled".
func (b *bridges) shutdownCause(err error) error {
	if err == nil || b.base.Err() == nil {
		return err
	}
	// Declared here, past the common case: errors.As sends why to the
	// heap, an allocation every call paid for when it led the function.
	var why *jsonrpc.Error
	if errors.As(context.Cause(b.base), &why) {
		return why
	}
	return err
}

// await attaches a response to the call and waits for what ends this
// round: the call's outcome, input the server asks for (the call parks),
// or the client closing the stream (the call is cancelled).
func (bc *bridgeCall) await(req *modernReq, out *wire.Stream, done <-chan struct{}) {
	bc.mu.Lock()
	bc.out = out // detached, or resumed (resume)
	bc.mu.Unlock()
	out.ArmSSE()
	select {
	case o := <-bc.done:
		bc.finish(req, out, o)
	case a := <-bc.asks:
		asks := bc.gather(a)
		if TestHookGathered != nil {
			TestHookGathered()
		}
		select {
		case o := <-bc.done: // the call ended as the server asked: no round
			bc.finish(req, out, o)
			return
		case <-done: // the client left while the round gathered
			bc.cancel(errClientCancelled)
			req.rec.Cancelled()
			out.Close()
			return
		default:
		}
		if !bc.park(asks) { // the gateway is shutting down: the call ends
			bc.finish(req, out, <-bc.done)
			return
		}
		out.Finish(req.rec.InputRequired(req.ID, bc.inputRequired(asks))...)
	case <-done:
		bc.cancel(errClientCancelled)
		req.rec.Cancelled()
		out.Close()
	}
}

// finish answers the round with the call's outcome.
func (bc *bridgeCall) finish(req *modernReq, out *wire.Stream, o relay.Outcome) {
	res, err := o.Res, o.Err
	facts := record.ReadFacts(res) // one scan of the result, however big, for its answer and its record
	kind, typed := facts.Kind()
	changed := true // res is no longer the result facts were read from
	switch {
	case err != nil:
	case kind == "input_required":
		res, err = bc.passInputRequired(o, req.rec)
	case kind == "task" && bc.method == "tools/call" && wantsTasks(bc.caps):
		res, err = bc.b.relayTask(req.rec.Context(bc.b.base), "token:"+bc.token(), o, res, bc) // front.go
	case bc.method == "resources/read" && (kind == "complete" || !typed):
		res = withCacheHints(res, readCache) // cache.go
	default:
		changed = false
	}
	if err != nil {
		out.FinishStatus(modernErrorStatus(err), req.rec.ErrorParts(req.ID, err)...)
		return
	}
	if changed { // each keeps the resultType, and a relayed task's taskId is now the gateway's
		facts = record.ReadFacts(res)
	}
	req.rec.ResultFacts(res, facts)
	out.Finish(typedResultParts(req.ID, res, typed)...)
}

// passInputRequired takes a modern server's InputRequiredResult (the
// caller has read its resultType): it seals the server's requestState with
// its process (SPEC §4.6), and refuses input requests the client cannot answer with
// -32021 (MissingRequiredClientCapability). A result whose inputRequests
// is not an object, or whose requestState is not a string, is the
// server's error (-32603), as it is for a legacy client
// (supervisor/rpc.InputRounds): passed on, its retry could not work.
func (bc *bridgeCall) passInputRequired(o relay.Outcome, rec *record.Record) (json.RawMessage, error) {
	if reqs, ok := jsonrpc.Member(o.Res, "inputRequests"); ok && !jsonrpc.IsNull(reqs) {
		if r := jsonrpc.TrimLeft(reqs); len(r) == 0 || r[0] != '{' {
			return nil, malformedInputRequired("its inputRequests is not an object")
		}
		if missing := bc.missingCapabilities(reqs); missing != nil {
			data, _ := json.Marshal(map[string]any{"requiredCapabilities": missing})
			return nil, &jsonrpc.Error{Code: codeMissingCapability, Data: data,
				Message: "the server needs client capabilities this request did not declare"}
		}
	}
	raw, ok := jsonrpc.Member(o.Res, "requestState")
	if !ok || jsonrpc.IsNull(raw) {
		return o.Res, nil
	}
	state, isText := jsonrpc.Text(raw)
	if !isText {
		return nil, malformedInputRequired("its requestState is not a string")
	}
	sealed := bc.b.states.Seal(reqstate.State{Kind: reqstate.KindUpstream, Tool: bc.target, Token: bc.token(),
		Expiry: time.Now().Add(bc.b.stateTTL).UnixMilli(), Server: o.Route.Upstream.Name(), Run: o.Served, ServerState: state,
		Trace: telemetry.Traceparent(rec.Origin())})
	return jsonrpc.Replace(o.Res, "requestState", jsonrpc.Quote(sealed))
}

// malformedInputRequired is the error for a server's InputRequiredResult
// that no retry could answer, saying why.
func malformedInputRequired(why string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server sent an InputRequiredResult the gateway cannot pass on: " + why}
}

// missingCapabilities returns the capabilities the input requests need
// and the client did not declare, or nil.
func (bc *bridgeCall) missingCapabilities(reqs json.RawMessage) map[string]struct{} {
	var missing map[string]struct{}
	_ = jsonrpc.Members(reqs, func(_, v []byte) bool {
		m, _ := jsonrpc.Member(v, "method")
		method, _ := jsonrpc.Text(m)
		if !relay.ClientCan(bc.caps, method) {
			if missing == nil {
				missing = map[string]struct{}{}
			}
			missing[relay.CapabilityOf(method)] = struct{}{}
		}
		return true
	})
	return missing
}

// TestHookGathered, set only by tests, runs when a round's asks have been
// gathered and before the round is parked or answered: a test acts at
// that moment (the client leaves, the gateway shuts down) instead of
// aiming at it with a sleep.
var TestHookGathered func()
