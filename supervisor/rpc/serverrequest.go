package rpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// relay answers the server's requests to the client side (ping, roots,
// sampling, elicitation …) on a connection: it finds the call each is for
// in calls and sends the answer with send (the transport's Send). Each
// request relayed to a client runs on a goroutine of its own, counted in
// wg with those of Conn.Go; the connection's owner waits for them
// (Conn.WaitHandlers).
type relay struct {
	calls *callTable
	send  func(msg []byte) error
	wg    sync.WaitGroup
}

// goCounted runs f on a goroutine counted in wg.
func (rl *relay) goCounted(f func()) {
	rl.wg.Add(1)
	go func() {
		defer rl.wg.Done()
		f()
	}()
}

// request answers a server-to-client request: ping here, anything else by
// relaying it to the client of the call it is for. A request that came on
// a call's own stream (from, HTTP) is that call's; otherwise (stdio, which
// carries no link between a server's request and the call that caused
// it, or an HTTP GET stream) it is relayed only when every call in flight
// on this server comes from one client session; otherwise no other
// session's data can be shown to the wrong client, and the server gets
// an error.
func (rl *relay) request(msg *jsonrpc.Message, from int64) {
	if msg.Method == "ping" {
		_ = rl.send(jsonrpc.Response(msg.ID, json.RawMessage("{}")))
		return
	}
	pc, busy := rl.calls.requestTarget(from)
	if pc == nil && busy && msg.Method != "roots/list" {
		_ = rl.send(jsonrpc.ErrorResponse(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("%s: calls from several client sessions are in flight on this server; the gateway cannot tell which one to ask", msg.Method)}))
		return
	}
	if pc == nil && msg.Method == "roots/list" {
		// Outside a call there is no client to ask; no roots means "use
		// what you were configured with" (server-filesystem keeps its
		// command-line directories).
		_ = rl.send(jsonrpc.Response(msg.ID, json.RawMessage(`{"roots":[]}`)))
		return
	}
	if pc == nil {
		_ = rl.send(jsonrpc.ErrorResponse(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("%s: no client call is in progress to relay this request to", msg.Method)}))
		return
	}
	rl.goCounted(func() {
		res, err := pc.peer.Request(pc.ctx, msg.Method, msg.Params)
		if err != nil {
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) {
				rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
			_ = rl.send(jsonrpc.ErrorResponse(msg.ID, rpcErr))
			return
		}
		_ = rl.send(jsonrpc.Response(msg.ID, res))
	})
}
