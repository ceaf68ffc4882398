package aggregator

import (
	"context"
	"encoding/json"
	"fmt"

	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"github.com/mcp-gateway/mcp-gateway/supervisor/jsonrpc"
)

// peer relays what an upstream server sends during a call to the calling
// client's session (SPEC §3.8, §4.3). Messages go out through go-sdk's
// session, so they travel on the stream of the request that caused them,
// but their params are the upstream's raw JSON: rawSending swaps them in.
type peer struct {
	g  *Gateway
	ss *mcp.ServerSession
}

var _ supervisor.Peer = (*peer)(nil)

// logLevels orders the MCP logging levels (RFC 5424 severities).
var logLevels = map[mcp.LoggingLevel]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

func (p *peer) Notify(ctx context.Context, method string, params json.RawMessage) {
	if method == "notifications/message" {
		p.g.levelsMu.Lock()
		min, set := p.g.levels[p.ss]
		p.g.levelsMu.Unlock()
		var m struct {
			Level mcp.LoggingLevel `json:"level"`
		}
		_ = json.Unmarshal(params, &m)
		if set && logLevels[m.Level] < logLevels[min] {
			return
		}
	}
	ctx = context.WithValue(ctx, rawKey{}, rawOut{method: method, params: params})
	// NotifyProgress is only the carrier; rawSending replaces its method
	// and params.
	_ = p.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{})
}

func (p *peer) Session() string { return p.ss.ID() }

// Client describes the legacy client of this session for a modern
// upstream's request _meta: what it declared at initialize, and the level
// it set with logging/setLevel. (Modern clients are not served here yet.)
func (p *peer) Client() supervisor.ClientInfo {
	var c supervisor.ClientInfo
	if ip := p.ss.InitializeParams(); ip != nil {
		if ip.Capabilities != nil {
			c.Capabilities, _ = json.Marshal(ip.Capabilities)
		}
		if ip.ClientInfo != nil {
			c.Info, _ = json.Marshal(ip.ClientInfo)
		}
	}
	p.g.levelsMu.Lock()
	c.LogLevel = string(p.g.levels[p.ss])
	p.g.levelsMu.Unlock()
	return c
}

func (p *peer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if !p.clientCan(method) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
			Message: fmt.Sprintf("%s: the calling client did not declare this capability", method)}
	}
	ctx = context.WithValue(ctx, rawKey{}, rawOut{method: method, params: params})
	var (
		res any
		err error
	)
	switch method {
	case "sampling/createMessage":
		res, err = p.ss.CreateMessageWithTools(ctx, &mcp.CreateMessageWithToolsParams{})
	case "elicitation/create":
		res, err = p.ss.Elicit(ctx, &mcp.ElicitParams{})
	case "roots/list":
		res, err = p.ss.ListRoots(ctx, &mcp.ListRootsParams{})
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("the gateway does not relay %s", method)}
	}
	if err != nil {
		if w, ok := err.(*sdkrpc.Error); ok {
			return nil, &jsonrpc.Error{Code: w.Code, Message: w.Message, Data: w.Data}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("relay %s to the client: %v", method, err)}
	}
	return json.Marshal(res)
}

type rawKey struct{}

type rawOut struct {
	method string
	params json.RawMessage
}

// rawParams marshals to the upstream's params, unchanged.
type rawParams struct {
	*mcp.ProgressNotificationParams
	raw json.RawMessage
}

func (r *rawParams) MarshalJSON() ([]byte, error) { return r.raw, nil }

// rawSending is a sending middleware: a message sent with a rawOut in its
// context goes out with that method and those params instead.
func rawSending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		out, ok := ctx.Value(rawKey{}).(rawOut)
		if !ok {
			return next(ctx, method, req)
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		params := out.params
		if len(params) == 0 {
			params = json.RawMessage("{}")
		}
		raw := &mcp.ServerRequest[*rawParams]{Session: ss, Params: &rawParams{ProgressNotificationParams: &mcp.ProgressNotificationParams{}, raw: params}}
		return next(ctx, out.method, raw)
	}
}

// clientCan reports whether the calling client declared the capability a
// server-to-client request needs (MCP 2025-06-18 §Client features). go-sdk
// keeps roots as a plain struct, so roots/list is always asked and the
// client's own answer is relayed.
func (p *peer) clientCan(method string) bool {
	ip := p.ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil {
		return false
	}
	switch method {
	case "sampling/createMessage":
		return ip.Capabilities.Sampling != nil
	case "elicitation/create":
		return ip.Capabilities.Elicitation != nil
	}
	return true
}
