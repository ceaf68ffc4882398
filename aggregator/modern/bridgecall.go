package modern

import (
	"context"
	"encoding/json"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/auth"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"go.opentelemetry.io/otel/trace"
)

// This file is a bridged call (bridge.go; SPEC §4.6) as a thing: the
// bridgeCall, its states and the moves between them, the asks it carries
// and the bridges that hold them all. The rounds and the parked table
// (park.go), the server's side (park.go) and the running of a call
// (bridge.go) stand on it.

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
	// tokenFree: the call's params hold no progressToken (modernReq's
	// scan found none), so the supervisor need not look (NoProgressToken).
	tokenFree bool
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
	// calling token (Front.relayModernTask, front.go).
	relayTask func(ctx context.Context, owner string, o relay.Outcome, res json.RawMessage, p supervisor.Peer) (json.RawMessage, error)

	mu     sync.Mutex
	parked map[string]*bridgeCall
	closed bool           // cancelAll ran: nothing parks any more
	wg     sync.WaitGroup // every detached bridgeCall's goroutine
}

// key names the call in the parked table and its requestState.
func (bc *bridgeCall) key() string { return strconv.FormatUint(bc.seq, 36) }

// token is the caller's token digest, for requestStates (state.go).
func (bc *bridgeCall) token() string { return auth.TokenDigest(bc.bearer) }

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
