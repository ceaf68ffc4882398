package legacy

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// peer relays what an upstream server sends during a legacy session's
// call to that call's client (SPEC §3.8, §4.3): notifications and
// server-to-client requests go out on the call's own response stream, as
// the server wrote them; the client's answers go back as the client wrote
// them.
type peer struct {
	s   *Session
	out *wire.Stream
	// tokenFree: the call's params hold no progressToken
	// (relay.Call.NoProgressToken), so the supervisor need not look.
	tokenFree bool
}

var (
	_ supervisor.Peer      = (*peer)(nil)
	_ supervisor.TokenFree = (*peer)(nil)
)

// NoProgressToken is supervisor.TokenFree's: what the call's
// relay.Call.Check found.
func (p *peer) NoProgressToken() bool { return p.tokenFree }

// Notify sends a notification on the call's stream. notifications/message
// below the session's logging/setLevel is dropped. A client that accepts
// only JSON has no channel for it, so it is dropped too.
func (p *peer) Notify(_ context.Context, method string, params json.RawMessage) {
	if method == "notifications/message" && !p.wantsLevel(params) {
		return
	}
	_ = p.out.Event(jsonrpc.Notification(method, params))
}

func (p *peer) wantsLevel(params json.RawMessage) bool {
	p.s.mu.Lock()
	min := p.s.level
	p.s.mu.Unlock()
	if min == "" {
		return true
	}
	raw, _ := jsonrpc.Member(params, "level")
	level, _ := jsonrpc.Text(raw)
	return relay.LogLevels[level] >= relay.LogLevels[min]
}

// ClientID is the session's id: a legacy client is its session.
func (p *peer) ClientID() string { return p.s.id }

// Client describes the session's legacy client for a modern upstream's
// request _meta (SPEC §7.8): the capabilities and clientInfo it sent at
// initialize, raw but for the tasks extension (a legacy client cannot use
// a modern server's task; the gateway declares it only for a call whose
// task it follows, taskrun/follow.go), and its logging/setLevel: a session
// that set none gets every message, as a legacy server sends them without
// one, so a modern server is asked for "debug" (it sends none to a request
// without a level). Modern is false: the supervisor asks this client
// through Request, round after round (§4.6).
func (p *peer) Client() supervisor.ClientInfo {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	level := p.s.level
	if level == "" {
		level = "debug"
	}
	return supervisor.ClientInfo{Capabilities: p.s.upCaps, Info: p.s.info, LogLevel: level}
}

// Request relays a server-to-client request (sampling/createMessage,
// elicitation/create, roots/list) on the call's stream under an id of the
// gateway's, and returns the client's result raw. A client that did not
// declare the capability gets no request: the server gets -32601 (SPEC
// §4.6). The client's error comes back as a *jsonrpc.Error, unchanged.
func (p *peer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if !relay.ClientCan(p.s.caps, method) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("%s: the calling client did not declare this capability", method)}
	}
	ch := make(chan clientAnswer, 1)
	p.s.mu.Lock()
	p.s.nextAsk++
	id := []byte(strconv.FormatInt(p.s.nextAsk, 10))
	p.s.asks[string(id)] = ch
	p.s.mu.Unlock()
	forget := func() {
		p.s.mu.Lock()
		delete(p.s.asks, string(id))
		p.s.mu.Unlock()
	}
	if err := p.out.Event(jsonrpc.Request(id, method, params)); err != nil {
		forget()
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("relay %s to the client: %v", method, err)}
	}
	select {
	case a := <-ch:
		if a.errObj != nil {
			return nil, jsonrpc.DecodeError(a.errObj)
		}
		return a.result, nil
	case <-ctx.Done():
		forget()
		// The request is withdrawn (MCP Cancellation: the side that sent a
		// request may cancel it): the call it served has ended.
		_ = p.out.Event(jsonrpc.Notification("notifications/cancelled",
			[]byte(`{"requestId":`+string(id)+`,"reason":"the call that asked has ended"}`)))
		return nil, ctx.Err()
	}
}
