package rpc

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// request answers a server-to-client request: ping here, anything else by
// relaying it to the client of the call it is for. A request that came on
// a call's own stream (from, HTTP) is that call's; otherwise (stdio, which
// carries no link between a server's request and the call that caused
// it, or an HTTP GET stream) it is relayed only when every call in flight
// on this server comes from one client session; otherwise no other
// session's data can be shown to the wrong client, and the server gets
// an error.
func (c *Conn) request(msg *jsonrpc.Message, from int64) {
	if msg.Method == "ping" {
		_ = c.transport.Send(jsonrpc.Response(msg.ID, json.RawMessage("{}")))
		return
	}
	c.mu.Lock()
	pc := c.callFor(from, false)
	busy := from == 0 && c.clientCalls() > 0
	c.mu.Unlock()
	if pc == nil && busy && msg.Method != "roots/list" {
		_ = c.transport.Send(jsonrpc.ErrorResponse(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("%s: calls from several client sessions are in flight on this server; the gateway cannot tell which one to ask", msg.Method)}))
		return
	}
	if pc == nil && msg.Method == "roots/list" {
		// Outside a call there is no client to ask; no roots means "use
		// what you were configured with" (server-filesystem keeps its
		// command-line directories).
		_ = c.transport.Send(jsonrpc.Response(msg.ID, json.RawMessage(`{"roots":[]}`)))
		return
	}
	if pc == nil {
		_ = c.transport.Send(jsonrpc.ErrorResponse(msg.ID, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("%s: no client call is in progress to relay this request to", msg.Method)}))
		return
	}
	c.handlers.Add(1)
	go func() {
		defer c.handlers.Done()
		res, err := pc.peer.Request(pc.ctx, msg.Method, msg.Params)
		if err != nil {
			var rpcErr *jsonrpc.Error
			if !errors.As(err, &rpcErr) {
				rpcErr = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
			_ = c.transport.Send(jsonrpc.ErrorResponse(msg.ID, rpcErr))
			return
		}
		_ = c.transport.Send(jsonrpc.Response(msg.ID, res))
	}()
}
