package supervisor

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// readLoop reads the server's stdout until EOF. It returns when the stream
// ends; its caller, Upstream.serveRun, then fails pending calls.
func (c *conn) readLoop(r io.Reader) {
	rd := jsonrpc.NewReader(r)
	for {
		line, err := rd.ReadLine()
		if err != nil {
			var long *jsonrpc.LineTooLongError
			if errors.As(err, &long) {
				if long.Unterminated {
					// Endless output: nothing more can be read from this
					// run. serveRun stops it and fails its calls.
					c.log.Line(c.name, fmt.Sprintf("[gateway] stdout line of %d bytes with no end in sight; stopping the server", long.Size))
					return
				}
				c.tooLong(long)
				continue
			}
			return
		}
		if len(line) == 0 {
			continue
		}
		msg, err := jsonrpc.Decode(line)
		if err != nil {
			c.log.Line(c.name, "[stdout, not JSON-RPC; skipped] "+truncate(c.log.Mask(string(line)), 512))
			c.undecodable(line, err)
			continue
		}
		c.dispatch(msg)
	}
}

// tooLong fails the call whose response is too long to read, if its id
// can be found: near the start of the line as soon as it crosses the
// limit, or near its end once it ends.
func (c *conn) tooLong(e *jsonrpc.LineTooLongError) {
	if !e.Partial {
		c.log.Line(c.name, fmt.Sprintf("[gateway] stdout line of %d bytes exceeds the %d-byte limit; skipped", e.Size, jsonrpc.DefaultMaxLine))
	}
	for _, part := range [][]byte{e.Head, e.Tail} {
		if id, ok := findID(part); ok {
			pc := c.take(id)
			if pc != nil {
				pc.reply <- reply{err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
					Message: fmt.Sprintf("the server's response is larger than the gateway's %d MiB message limit", jsonrpc.DefaultMaxLine>>20)}}
			}
			return
		}
	}
}

// undecodable fails the call a JSON-looking line answered, if its id can
// be found at the start of the line (a response nested too deep to decode,
// say), so the call does not wait for an answer that already came.
func (c *conn) undecodable(line []byte, err error) {
	if len(line) == 0 || line[0] != '{' {
		return
	}
	id, ok := findID(line[:min(len(line), 256)])
	if !ok {
		return
	}
	pc := c.take(id)
	if pc != nil {
		pc.reply <- reply{err: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("the server's response could not be decoded: %v", err)}}
	}
}

func (c *conn) dispatch(msg *jsonrpc.Message) {
	switch {
	case msg.IsResponse():
		id, ok := jsonrpc.ParseIntID(msg.ID)
		if !ok {
			c.log.Line(c.name, "[gateway] response with an id the gateway never sent; dropped")
			return
		}
		pc := c.take(id)
		if pc == nil {
			// The end of the gateway's own subscription, or the late reply
			// of a call cancelled or timed out, which is dropped.
			c.subscriptionEnded(id, msg)
			return
		}
		if len(msg.Error) > 0 {
			pc.reply <- reply{err: jsonrpc.DecodeError(msg.Error)}
		} else {
			pc.reply <- reply{result: msg.Result}
		}
	case msg.IsNotification():
		c.notification(msg)
	case msg.IsRequest():
		c.request(msg)
	default:
		c.log.Line(c.name, "[gateway] message that is neither request, response nor notification; dropped")
	}
}

func (c *conn) notification(msg *jsonrpc.Message) {
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
		c.mu.Lock()
		defer c.mu.Unlock()
		pc := c.pending[id]
		if pc == nil || pc.token == nil || pc.peer == nil {
			return
		}
		c.enqueue(pc, note{msg.Method, jsonrpc.Encode(jsonrpc.Set(fields, "progressToken", pc.token))})
	case "notifications/message":
		// A modern server sends log messages only for requests that set a
		// logLevel (MCP 2026-07-28 server/utilities/logging), and stdio
		// ties them to no request id: only calls that asked are candidates.
		c.mu.Lock()
		pc := c.soleCaller(c.modern.Load() != nil)
		if pc != nil {
			c.enqueue(pc, note{msg.Method, msg.Params})
		}
		c.mu.Unlock()
		if pc == nil {
			c.log.Line(c.name, "[notifications/message] "+truncate(c.log.Mask(string(msg.Params)), 2048))
		}
	case "notifications/tools/list_changed":
		if c.modern.Load() != nil && !c.onSubscription(msg.Params) {
			return // not on the gateway's listen stream (MCP 2026-07-28 stdio)
		}
		if c.onToolsChanged != nil {
			c.onToolsChanged()
		}
	case "notifications/subscriptions/acknowledged", "notifications/cancelled":
		c.subscriptionNote(msg)
	case "notifications/tasks/status", "notifications/tasks":
		if c.onTaskStatus != nil {
			c.onTaskStatus(msg.Method, msg.Params)
		}
	}
}
