package aggregator

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file runs a modern call that may park (bridge.go, SPEC §4.6) on
// the HTTP request that started it, until the server first asks: the
// call then detaches (supervisor.Detacher), a goroutine of its own takes
// over the wait for its outcome, and the request awaits the round. A
// call the server asks nothing costs no goroutine and no context of its
// own.

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
func (b *bridges) callParkable(r *http.Request, req *modernReq, c upstreamCall, token string, out *wire.Stream) {
	bc := b.newBridge(req, c, token)
	bc.out, bc.detach = out, make(chan struct{})
	bc.trace = req.rec.SpanContext()
	out.ArmSSE()
	c.peer = bc
	o := b.g.call(req.rec.Context(r.Context()), c)
	if o.detached == nil {
		bc.endAttached()
		if r.Context().Err() != nil {
			req.rec.Cancelled()
			out.Close() // cancelled by the client: no response
			return
		}
		o.err = b.shutdownCause(o.err)
		bc.finish(req, out, o)
		return
	}
	b.wg.Add(1) // from here await watches the client
	go func() {
		defer b.wg.Done()
		defer bc.cancel(nil)
		bc.endDetached(awaitDetached(bc.ctx, o))
	}()
	bc.await(req, out, r.Context().Done())
}

// Detach is closed by the server's first request (supervisor.Detacher);
// nil, never, for an inline call.
func (bc *bridgeCall) Detach() <-chan struct{} { return bc.detach }

// Gone is the handler's base context's Done: shutdown (CancelCalls)
// cancels a call still attached to its request (supervisor.Detacher); the
// request's own context cancels it when the client closes the stream.
func (bc *bridgeCall) Gone() <-chan struct{} { return bc.gone }

// detachNow detaches the call at the first ask (attached → detached): it
// makes the call's own context (from the handler's base: expiry and
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
	bc.asks, bc.done, bc.ended = make(chan *ask), make(chan callOutcome, 1), make(chan struct{})
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
func (bc *bridgeCall) endDetached(o callOutcome) {
	bc.mu.Lock()
	if bc.state != bridgeParked {
		bc.state = bridgeEnded
	}
	bc.mu.Unlock()
	close(bc.ended)
	bc.done <- o
}

// shutdownCause is err, or the gateway's reason when it is shutting down
// (CancelCalls): a call cancelled by Gone gets a JSON-RPC error that says
// why, not "context canceled".
func (b *bridges) shutdownCause(err error) error {
	var why *jsonrpc.Error
	if err != nil && b.base.Err() != nil && errors.As(context.Cause(b.base), &why) {
		return why
	}
	return err
}
