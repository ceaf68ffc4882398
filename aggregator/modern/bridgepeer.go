package modern

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is the supervisor.Peer side of a bridged call (bridge.go):
// what the server sends during a modern client's call. Progress and log
// messages go to the attached response; a legacy server's request parks
// the call (park.go) until the client's retry answers it (SPEC §4.6).

// The supervisor.Peer of a bridged call.
var _ supervisor.Peer = (*bridgeCall)(nil)

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
