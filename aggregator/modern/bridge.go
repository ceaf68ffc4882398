package modern

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
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

// bridgeState is where a bridgeCall is in its life (docs/ARCHITECTURE.md
// draws the moves):
//
//	attached --first ask (detachNow)--> detached --round (park)--> parked
//	parked --retry (resume)--> resumed --round (park)--> parked
//	attached --returned (endAttached)--> ended
//	detached, resumed --the upstream call returned (endDetached)--> ended
//
// A parked call whose upstream call returns (its server crashed, expiry
// or shutdown cancelled it) stays parked with its outcome, which the
// client's retry gets at once. An inline call (its client cannot be asked
// anything) stays attached until it ends.
type bridgeState int

const (
	// bridgeAttached: the call runs on its request's goroutine and
	// context; the server has asked nothing.
	bridgeAttached bridgeState = iota
	// bridgeDetached: the server asked; a goroutine of the call's own
	// waits for its outcome (callParkable), and the request that started
	// it gathers the round.
	bridgeDetached
	// bridgeParked: the round went to the client as an
	// InputRequiredResult; no response is attached, and the call waits
	// in the parked table for the client's retry (park.go).
	bridgeParked
	// bridgeResumed: a retry answered the round, and its response is
	// attached, waiting for the next round or the outcome.
	bridgeResumed
	// bridgeEnded: the upstream call has returned.
	bridgeEnded
)

// bridgeCall is one modern client's tools/call.
type bridgeCall struct {
	b      *bridges
	seq    uint64 // bridgeSeq; parked calls are found by its key()
	method string // tools/call, prompts/get, resources/read, completion/complete
	// target names the call in its requestStates (upstreamCall.stateKey):
	// the exported tool name, or the method and prompt name or URI.
	target string
	rt     registry.Route
	bearer string // the caller's token; see token()
	caps   json.RawMessage
	// inline: the client can be asked nothing, so the call never detaches
	// (callInline); Detach is nil.
	inline bool
	// trace is the server span of the request that began the call: its
	// retries join that trace (SPEC §11.3); invalid when tracing is off.
	trace trace.SpanContext

	// detach is closed by the first ask (detachNow): the request that
	// runs the call hands its wait to a goroutine (callParkable). ctx,
	// asks, done and ended are made then: a call that is asked nothing
	// needs none of them, and runs on its request's context.
	detach chan struct{}
	gone   <-chan struct{} // the front's base context's Done: shutdown cancels an attached call
	ctx    context.Context
	cancel context.CancelCauseFunc
	asks   chan *ask
	done   chan relay.Outcome // buffered 1
	ended  chan struct{}      // closed when the upstream call has returned

	mu      sync.Mutex
	state   bridgeState
	out     *wire.Stream // the attached response; nil while parked or ended
	level   string
	round   int
	keys    int    // input request keys issued
	pending []*ask // asked of the client in this round
	timer   *time.Timer
}

// move makes from → to, if the call is in from; call with bc.mu held. It
// reports whether it did.
func (bc *bridgeCall) move(from, to bridgeState) bool {
	if bc.state != from {
		return false
	}
	bc.state = to
	return true
}

// ask is one server-to-client request waiting for the client's answer.
type ask struct {
	key    string // its key in inputRequests
	method string
	params json.RawMessage
	answer chan json.RawMessage // buffered 1
}

var (
	errParkExpired = errors.New("the client did not retry with inputResponses within the parked call's time")
	errParkGone    = errors.New("no parked call for this requestState: it was answered already, expired, or the gateway restarted; start the call over")
)

// bridges runs modern clients' calls that a server may ask something of,
// and holds the table of the parked ones. It reaches the rest of the
// gateway through states (the sealing of requestStates), log and
// relayTask alone.
type bridges struct {
	states   *reqstate.Sealer
	log      *slog.Logger
	stateTTL time.Duration   // HTTPOptions.StateTTL: a parked call's time for its retry
	base     context.Context // every detached call's parent; its end cancels attached ones (Gone)
	// relayTask registers a modern server's CreateTaskResult for the
	// calling token (Front.relayModernTask, taskmodern.go).
	relayTask func(ctx context.Context, owner string, o relay.Outcome, res json.RawMessage, p supervisor.Peer) (json.RawMessage, error)

	mu     sync.Mutex
	parked map[string]*bridgeCall
	closed bool           // cancelAll ran: nothing parks any more
	wg     sync.WaitGroup // every detached bridgeCall's goroutine
}

// bridgeSeq numbers bridged calls: a call's id and its Session.
var bridgeSeq atomic.Uint64

// newBridge makes the bridgeCall of a modern client's call; its context
// and channels come with its detach (detachNow).
func (b *bridges) newBridge(req *modernReq, c relay.Call, token string) *bridgeCall {
	return &bridgeCall{b: b, seq: bridgeSeq.Add(1), method: c.Method, target: c.StateKey(), rt: c.Route, bearer: token,
		caps: req.caps, level: req.level, gone: b.base.Done()}
}

// key names the call in the parked table and its requestState.
func (bc *bridgeCall) key() string { return strconv.FormatUint(bc.seq, 36) }

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

// detachNow detaches the call at the first ask (attached → detached): it
// makes the call's own context (from the front's base: expiry and
// shutdown cancel it) and the channels the rounds use, then closes
// detach. It reports false when the call cannot detach: an inline one,
// or one that has returned (ended); true when it is detached, now or
// already.
func (bc *bridgeCall) detachNow() bool {
	if bc.inline {
		return false // its client is asked nothing
	}
	bc.mu.Lock()
	if bc.state == bridgeEnded {
		bc.mu.Unlock()
		return false
	}
	if !bc.move(bridgeAttached, bridgeDetached) {
		bc.mu.Unlock()
		return true // a later ask of the same call
	}
	bc.ctx, bc.cancel = context.WithCancelCause(bc.b.base)
	bc.asks, bc.done, bc.ended = make(chan *ask), make(chan relay.Outcome, 1), make(chan struct{})
	bc.mu.Unlock()
	close(bc.detach)
	return true
}

// endAttached records that the call returned without detaching (→ ended);
// a detach that raced with it (the server asked as it answered: detached
// though the call returned) is ended too, which ends the Request waiting
// on it.
func (bc *bridgeCall) endAttached() {
	bc.mu.Lock()
	raced := bc.state == bridgeDetached
	bc.state = bridgeEnded
	bc.mu.Unlock()
	if raced {
		close(bc.ended)
		bc.cancel(nil)
	}
}

// endDetached records that a detached call's upstream call has returned,
// and hands its outcome to the request attached (detached or resumed →
// ended). A parked call stays parked: its outcome (the server crashed,
// say) waits for the client's retry, which gets it at once.
func (bc *bridgeCall) endDetached(o relay.Outcome) {
	bc.mu.Lock()
	if bc.state != bridgeParked {
		bc.state = bridgeEnded
	}
	bc.mu.Unlock()
	close(bc.ended)
	bc.done <- o
}

// shutdownCause is err, or the gateway's reason when it is shutting down
// (CancelAll): a call cancelled by Gone gets a JSON-RPC error that says
// why, not "context canceled".
func (b *bridges) shutdownCause(err error) error {
	var why *jsonrpc.Error
	if err != nil && b.base.Err() != nil && errors.As(context.Cause(b.base), &why) {
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
	kind, typed := resultType(res) // one scan of the result, however big
	switch {
	case err != nil:
	case kind == "input_required":
		res, err = bc.passInputRequired(o, req.rec)
	case kind == "task" && bc.method == "tools/call" && wantsTasks(bc.caps):
		res, err = bc.b.relayTask(req.rec.Context(bc.b.base), "token:"+bc.token(), o, res, bc) // taskmodern.go
	case bc.method == "resources/read" && (kind == "complete" || !typed):
		res = withCacheHints(res, readCache) // modernsurface.go
	}
	if err != nil {
		out.FinishStatus(modernErrorStatus(err), req.rec.ErrorParts(req.ID, err)...)
		return
	}
	req.rec.ResultKind(res, kind)
	out.Finish(typedResultParts(req.ID, res, typed)...)
}

// passInputRequired takes a modern server's InputRequiredResult (the
// caller has read its resultType): it seals the server's requestState with
// its process (SPEC §4.6), and refuses input requests the client cannot answer with
// -32021 (MissingRequiredClientCapability).
func (bc *bridgeCall) passInputRequired(o relay.Outcome, rec *record.Record) (json.RawMessage, error) {
	if reqs, ok := jsonrpc.Member(o.Res, "inputRequests"); ok {
		if missing := bc.missingCapabilities(reqs); missing != nil {
			data, _ := json.Marshal(map[string]any{"requiredCapabilities": missing})
			return nil, &jsonrpc.Error{Code: codeMissingCapability, Data: data,
				Message: "the server needs client capabilities this request did not declare"}
		}
	}
	raw, ok := jsonrpc.Member(o.Res, "requestState")
	state, isText := jsonrpc.Text(raw)
	if !ok || !isText {
		return o.Res, nil
	}
	sealed := bc.b.states.Seal(reqstate.State{Kind: reqstate.KindUpstream, Tool: bc.target, Token: bc.token(),
		Expiry: time.Now().Add(bc.b.stateTTL).UnixMilli(), Server: o.Route.Upstream.Name(), Run: o.Served, ServerState: state,
		Trace: telemetry.Traceparent(rec.Origin())})
	return jsonrpc.Replace(o.Res, "requestState", jsonrpc.Quote(sealed))
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
