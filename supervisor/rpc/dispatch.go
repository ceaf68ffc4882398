package rpc

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Dispatch is the connection's one entry point for what the server sends
// (see Transport): a response goes to the call waiting for it, a
// notification to the call or client it is for, or to the gateway's own
// use; a request is answered or relayed (serverrequest.go).
//
// from is the id of the request whose answer carried msg (an HTTP
// server's SSE answer to one POST), or 0 when the transport cannot tell
// (stdio; an HTTP server's GET stream). A server's request or log message
// that came on a call's own stream belongs to that call and goes to its
// client, whatever other clients have calls in flight (MCP 2025-11-25
// basic/transports: such messages "SHOULD relate to the originating
// client request"); one from nowhere in particular goes to a client only
// when a single client has calls in flight (callFor).
func (c *Conn) Dispatch(msg *jsonrpc.Message, from int64) {
	switch {
	case msg.IsResponse():
		id, ok := jsonrpc.ParseIntID(msg.ID)
		if !ok {
			c.log.Line(c.name, "[gateway] response with an id the gateway never sent; dropped")
			return
		}
		pc := c.calls.take(id)
		if pc == nil {
			// The end of the gateway's own subscription, or the late reply
			// of a call cancelled or timed out, which is dropped.
			c.listens.answered(id, msg)
			return
		}
		if len(msg.Error) > 0 {
			pc.answer(reply{err: jsonrpc.DecodeError(msg.Error)})
		} else {
			pc.answer(reply{result: msg.Result})
		}
	case msg.IsNotification():
		c.notification(msg, from)
	case msg.IsRequest():
		c.relay.request(msg, from)
	default:
		c.log.Line(c.name, "[gateway] message that is neither request, response nor notification; dropped")
	}
}

// Reject fails call id with err, if it is still pending: the transport
// received its answer but cannot hand it over (see Transport).
func (c *Conn) Reject(id int64, err error) {
	if pc := c.calls.take(id); pc != nil {
		pc.answer(reply{err: err})
	}
}

// Unanswered handles an answer to request id that ended without its
// response (an HTTP stream that ended, a refusal; see transport): the call
// fails with err, if it is still pending; for the gateway's own
// subscription, the Subscription has ended.
func (c *Conn) Unanswered(id int64, err error) {
	if sub := c.listens.get(id); sub != nil {
		c.listens.end(sub, err.Error())
		return
	}
	c.Reject(id, err)
}

func (c *Conn) notification(msg *jsonrpc.Message, from int64) {
	switch msg.Method {
	case "notifications/progress":
		fields, err := jsonrpc.Fields(msg.Params)
		if err != nil {
			return
		}
		tok, _ := jsonrpc.Get(fields, "progressToken")
		id, ok := jsonrpc.ParseIntID(tok)
		if !ok {
			return
		}
		c.calls.queueProgress(id, msg.Method, func(token json.RawMessage) json.RawMessage {
			return jsonrpc.Encode(jsonrpc.Set(fields, "progressToken", token))
		})
	case "notifications/message":
		// A modern server sends log messages only for requests that set a
		// logLevel (MCP 2026-07-28 server/utilities/logging), and stdio
		// ties them to no request id: only calls that asked are candidates.
		if !c.calls.queueFor(from, c.modern.Load() != nil, note{msg.Method, msg.Params}) {
			c.log.Output(c.name, "[notifications/message] "+c.log.Clip(string(msg.Params), 2048))
		}
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		if c.modern.Load() != nil && !c.listens.onMain(msg.Params) {
			return // not on the gateway's listen stream (MCP 2026-07-28 stdio)
		}
		if c.onListChanged != nil {
			c.onListChanged(msg.Method)
		}
	case "notifications/resources/updated":
		c.listens.resourceUpdated(msg.Params, c.modern.Load() != nil, c.onResourceUpdated)
	case "notifications/subscriptions/acknowledged", "notifications/cancelled":
		c.listens.note(msg)
	case "notifications/tasks/status", "notifications/tasks":
		if c.onTaskStatus != nil {
			c.onTaskStatus(msg.Method, msg.Params)
		}
	}
}
