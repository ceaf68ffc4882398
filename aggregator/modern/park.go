package modern

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/reqstate"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is the server's side of a bridged call (bridge.go; SPEC
// §4.6), its supervisor.Peer, and the parking of the MRTR bridge. Progress
// and log messages go to the attached response. A legacy server's
// requests during a modern client's call are gathered into one round, the
// call is parked and the client gets an InputRequiredResult; the retry's
// requestState finds the call again, its inputResponses answer the
// server, and an unanswered call expires.

// The supervisor.Peer of a bridged call.
var (
	_ supervisor.Peer      = (*bridgeCall)(nil)
	_ supervisor.TokenFree = (*bridgeCall)(nil)
)

// NoProgressToken is supervisor.TokenFree's: what validateModern's scan
// of the request's params found.
func (bc *bridgeCall) NoProgressToken() bool { return bc.tokenFree }

// Notify relays progress and log messages (at or above the request's
// logLevel) on the attached response; while parked they are dropped.
func (bc *bridgeCall) Notify(_ context.Context, method string, params json.RawMessage) {
	bc.mu.Lock()
	out, level := bc.out, bc.level
	bc.mu.Unlock()
	if out == nil || !relay.LogPasses(method, params, level) {
		return
	}
	_ = out.Event(jsonrpc.Notification(method, params))
}

// Request parks the call on a legacy server's server-to-client request
// and returns the client's answer from its retry. A client without the
// capability gets none: the server gets -32601 (SPEC §4.6).
func (bc *bridgeCall) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if !relay.ClientCan(bc.caps, method) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("%s: the calling client did not declare the %s capability", method, relay.CapabilityOf(method))}
	}
	if bc.b.parkedCount() >= maxParked {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("%s: %d calls already wait for their clients' input; the gateway parks no more", method, maxParked)}
	}
	bc.mu.Lock()
	bc.keys++
	key := relay.CapabilityOf(method) + "-" + strconv.Itoa(bc.keys)
	bc.mu.Unlock()
	a := &ask{key: key, method: method, params: params, answer: make(chan json.RawMessage, 1)}
	if !bc.detachNow() { // the request's goroutine now awaits the asks
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: method + ": the call that asked has ended"}
	}
	// The call's own context from here, not the request's that started it
	// (given as ctx), which ends when the call parks.
	ctx := bc.ctx
	select {
	case bc.asks <- a:
	case <-ctx.Done():
		bc.cancelledFirst()
		return nil, ctx.Err()
	}
	select {
	case v := <-a.answer:
		return v, nil
	case <-ctx.Done():
		bc.cancelledFirst()
		return nil, ctx.Err()
	}
}

// cancelledFirst waits, within cancelFirstWait, for a cancelled call's
// end, so that its notifications/cancelled reaches the server before the
// error for the server's request does: the server might otherwise answer
// the call first and never learn it was cancelled.
func (bc *bridgeCall) cancelledFirst() {
	select {
	case <-bc.ended:
	case <-time.After(cancelFirstWait):
	}
}

// cancelFirstWait bounds how long a cancelled call's pending
// server-to-client request waits for the call's own cancellation to be
// sent upstream first.
const cancelFirstWait = time.Second

// ClientID is the call's own: a modern client has no session, and the
// gateway tells apart only the calls it makes.
func (bc *bridgeCall) ClientID() string { return "modern:" + bc.key() }

// Client: a modern client; a modern server's InputRequiredResult comes
// back to it as sent, and the request's own _meta is kept.
func (bc *bridgeCall) Client() supervisor.ClientInfo { return supervisor.ClientInfo{Modern: true} }

// Asks that arrive together go out in one round: a server may send
// several requests before it waits on any (MCP mrtr, multiple input
// requests). After each ask the round stays open for askQuiet, and
// askGather at most.
const (
	askQuiet  = 25 * time.Millisecond
	askGather = 250 * time.Millisecond
)

// gather collects the asks of one round, starting with first.
func (bc *bridgeCall) gather(first *ask) []*ask {
	asks := []*ask{first}
	deadline := time.NewTimer(askGather)
	defer deadline.Stop()
	quiet := time.NewTimer(askQuiet)
	defer quiet.Stop()
	for {
		select {
		case a := <-bc.asks:
			asks = append(asks, a)
			quiet.Reset(askQuiet)
		case <-quiet.C:
			return asks
		case <-deadline.C:
			return asks
		}
	}
}

// maxParked bounds the calls parked at once, each holding a server's
// call open for up to StateTTL; past it a server's request gets an error.
const maxParked = 1000

// parkedCount returns the number of parked calls.
func (b *bridges) parkedCount() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.parked)
}

// park records the round's asks, lets go of the response and starts the
// expiry clock (detached or resumed → parked). Once the gateway is
// shutting down (cancelAll ran) it parks nothing and reports false:
// the call is being cancelled, and its client gets the shutdown error
// instead of a round nobody could resume.
func (bc *bridgeCall) park(asks []*ask) bool {
	b := bc.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	bc.mu.Lock()
	bc.state = bridgeParked
	bc.out = nil
	bc.round++
	bc.pending = asks
	bc.timer = time.AfterFunc(b.stateTTL, bc.expire)
	bc.mu.Unlock()
	b.parked[bc.key()] = bc
	return true
}

// expire cancels a parked call nobody resumed; its server gets
// notifications/cancelled.
func (bc *bridgeCall) expire() {
	b := bc.b
	b.mu.Lock()
	key := bc.key()
	parked := b.parked[key] == bc
	delete(b.parked, key)
	b.mu.Unlock()
	if parked {
		b.log.Info("parked call expired; cancelled upstream", "call", bc.target, "after", b.stateTTL)
		bc.cancel(errParkExpired)
	}
}

// inputRequired renders the round's InputRequiredResult.
func (bc *bridgeCall) inputRequired(asks []*ask) json.RawMessage {
	b := []byte(`{"resultType":"input_required","inputRequests":{`)
	for i, a := range asks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, jsonrpc.Quote(a.key)...)
		b = append(b, `:{"method":`...)
		b = append(b, jsonrpc.Quote(a.method)...)
		b = append(b, `,"params":`...)
		b = append(b, orEmpty(a.params)...)
		b = append(b, '}')
	}
	b = append(b, `},"requestState":`...)
	bc.mu.Lock()
	st := reqstate.State{Kind: reqstate.KindPark, ID: bc.key(), Round: bc.round, Tool: bc.target, Token: bc.token(), Expiry: time.Now().Add(bc.b.stateTTL).UnixMilli()}
	bc.mu.Unlock()
	b = append(b, jsonrpc.Quote(bc.b.states.Seal(st))...)
	return append(b, '}')
}

// resume takes the parked call a requestState names, if it is parked in
// that round (parked → resumed): the state of an earlier round, or of a
// call resumed already, is a replay.
func (b *bridges) resume(st *reqstate.State) (*bridgeCall, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	bc := b.parked[st.ID]
	if bc == nil {
		return nil, errParkGone
	}
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if bc.round != st.Round || !bc.move(bridgeParked, bridgeResumed) {
		return nil, errParkGone
	}
	delete(b.parked, st.ID)
	bc.timer.Stop()
	return bc, nil
}

// answer gives the server the client's inputResponses, and returns the
// asks they did not answer (asked again).
func (bc *bridgeCall) answer(responses json.RawMessage) []*ask {
	bc.mu.Lock()
	pending := bc.pending
	bc.pending = nil
	bc.mu.Unlock()
	var missing []*ask
	for _, a := range pending {
		v, ok := jsonrpc.Member(responses, a.key)
		if !ok || len(responses) == 0 || responses[0] != '{' {
			missing = append(missing, a)
			continue
		}
		a.answer <- v
	}
	return missing
}

// cancelAll cancels every parked call with cause, and parks none from
// then on; the running ones end with base (Options.Base).
func (b *bridges) cancelAll(cause error) {
	for _, bc := range b.takeParked(true) {
		bc.cancel(cause)
	}
}

// expireAll cancels every parked call as its expiry would; calls park
// again afterwards (Front.ExpireParked).
func (b *bridges) expireAll() {
	for _, bc := range b.takeParked(false) {
		bc.cancel(errParkExpired)
	}
}

// takeParked empties the parked table and returns what it held; closed
// parks none from then on.
func (b *bridges) takeParked(closed bool) []*bridgeCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = b.closed || closed
	parked := make([]*bridgeCall, 0, len(b.parked))
	for id, bc := range b.parked {
		parked = append(parked, bc)
		delete(b.parked, id)
	}
	return parked
}

var (
	errParkExpired = errors.New("the client did not retry with inputResponses within the parked call's time")
	errParkGone    = errors.New("no parked call for this requestState: it was answered already, expired, or the gateway restarted; start the call over")
)
