package aggregator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"github.com/mcp-gateway/mcp-gateway/supervisor/jsonrpc"
)

// changeMarker is a tool registered with go-sdk only so that re-adding it
// makes go-sdk send notifications/tools/list_changed to every session
// (debounced by 10 ms). Clients never see it: tools/list and tools/call are
// answered by the gateway's middleware from its own registry.
const changeMarker = "mcp-gateway-list-changed"

// Gateway is the MCP server clients talk to.
type Gateway struct {
	server *mcp.Server
	ups    []*supervisor.Upstream
	log    *slog.Logger
	reg    atomic.Pointer[registry]

	rebuildMu sync.Mutex

	levelsMu sync.Mutex
	levels   map[*mcp.ServerSession]mcp.LoggingLevel
}

// New builds the gateway over the upstreams, in config-key order. Call
// Rebuild after the upstreams have started.
func New(ups []*supervisor.Upstream, version string, log *slog.Logger) *Gateway {
	g := &Gateway{ups: ups, log: log, levels: map[*mcp.ServerSession]mcp.LoggingLevel{}}
	g.server = mcp.NewServer(&mcp.Implementation{Name: "mcp-gateway", Version: version}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
			Logging: &mcp.LoggingCapabilities{},
		},
		Logger: log,
	})
	g.reg.Store(&registry{routes: map[string]route{}})
	g.server.AddTool(&mcp.Tool{Name: changeMarker, InputSchema: json.RawMessage(`{"type":"object"}`)}, nil)
	g.server.AddReceivingMiddleware(g.receive)
	g.server.AddSendingMiddleware(rawSending)
	return g
}

// Rebuild recomputes the merged tool list from the upstreams' current tools
// and, if it changed, notifies every session (SPEC §4.5).
func (g *Gateway) Rebuild() {
	g.rebuildMu.Lock()
	defer g.rebuildMu.Unlock()
	next := buildRegistry(g.ups, g.log)
	prev := g.reg.Swap(next)
	if !sameList(prev.tools, next.tools) {
		g.server.AddTool(&mcp.Tool{Name: changeMarker, InputSchema: json.RawMessage(`{"type":"object"}`)}, nil)
	}
}

func sameList(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if string(a[i]) != string(b[i]) {
			return false
		}
	}
	return true
}

// CancelCalls cancels every tools/call still running, for every session:
// each gets a JSON-RPC error (CodeServerUnavailable) with message, and its
// upstream gets notifications/cancelled. The daemon calls it at shutdown,
// once in-flight calls have had their drain time (SPEC §7.6), so that
// their clients get an answer rather than a closed connection.
func (g *Gateway) CancelCalls(message string) {
	callsFor(g.server).cancelAll(&sdkrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: message})
}

// ToolCount returns the number of exported tools.
func (g *Gateway) ToolCount() int { return len(g.reg.Load().tools) }

// Server returns the go-sdk server.
func (g *Gateway) Server() *mcp.Server { return g.server }

// receive answers tools/list and tools/call from the registry, keeps each
// session's logging level, and passes everything else to go-sdk.
func (g *Gateway) receive(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			cursor := ""
			if p, ok := req.GetParams().(*mcp.ListToolsParams); ok && p != nil {
				cursor = p.Cursor
			}
			raw, err := g.reg.Load().page(cursor)
			if err != nil {
				return nil, wireError(err)
			}
			return &rawListTools{ListToolsResult: &mcp.ListToolsResult{}, raw: raw}, nil
		case "tools/call":
			r, ok := req.(*mcp.CallToolRequest)
			if !ok || r.Params == nil {
				return nil, &sdkrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call needs params"}
			}
			return g.call(ctx, r)
		case "logging/setLevel":
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && p != nil {
				// MCP, Logging: an invalid level is -32602 (go-sdk
				// accepted "bogus", "" and null).
				if _, ok := logLevels[p.Level]; !ok {
					return nil, &sdkrpc.Error{Code: jsonrpc.CodeInvalidParams,
						Message: fmt.Sprintf("invalid log level %q; want debug, info, notice, warning, error, critical, alert or emergency", p.Level)}
				}
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
					g.setLevel(ss, p.Level)
				}
			}
		}
		return next(ctx, method, req)
	}
}

func (g *Gateway) call(ctx context.Context, r *mcp.CallToolRequest) (mcp.Result, error) {
	rt, ok := g.reg.Load().routes[r.Params.Name]
	if !ok {
		return nil, &sdkrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool: %q", r.Params.Name)}
	}
	fields := []jsonrpc.Field{{Key: "name", Value: jsonrpc.Quote(rt.tool)}}
	if len(r.Params.Arguments) > 0 {
		fields = append(fields, jsonrpc.Field{Key: "arguments", Value: r.Params.Arguments})
	}
	if tok, ok := r.Params.Meta["progressToken"]; ok {
		switch tok.(type) {
		case string, float64, json.Number, int, int64:
		default: // MCP: a progress token is a string or an integer
			return nil, &sdkrpc.Error{Code: jsonrpc.CodeInvalidParams,
				Message: fmt.Sprintf("invalid _meta.progressToken %v: want a string or an integer", tok)}
		}
	}
	if len(r.Params.Meta) > 0 {
		meta, err := json.Marshal(r.Params.Meta)
		if err != nil {
			return nil, &sdkrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid _meta"}
		}
		fields = append(fields, jsonrpc.Field{Key: "_meta", Value: meta})
	}
	var p supervisor.Peer
	if r.Session != nil {
		p = &peer{g: g, ss: r.Session}
	}
	res, err := rt.upstream.Call(ctx, "tools/call", jsonrpc.Encode(fields), p)
	if err != nil {
		var why *sdkrpc.Error
		if ctx.Err() != nil && errors.As(context.Cause(ctx), &why) {
			return nil, why // cancelled by the gateway, which says why (CancelCalls)
		}
		return nil, wireError(err)
	}
	if t := bytes.TrimSpace(res); len(t) == 0 || t[0] != '{' {
		return nil, &sdkrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("server %q answered tools/call with a result that is not a JSON object", rt.upstream.Name())}
	}
	return &rawCallTool{CallToolResult: &mcp.CallToolResult{}, raw: res}, nil
}

// wireError turns an error into the JSON-RPC error the client gets:
// upstream errors keep code, message and data (SPEC §4.4); the gateway's
// own (server exited, backing off) get CodeServerUnavailable.
func wireError(err error) error {
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return &sdkrpc.Error{Code: rpcErr.Code, Message: rpcErr.Message, Data: rpcErr.Data}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &sdkrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: err.Error()}
}

// rawListTools and rawCallTool carry upstream JSON through go-sdk byte for
// byte: go-sdk marshals the Result it is given, and these marshal to the
// raw bytes (NOTES: "Raw results").
type rawListTools struct {
	*mcp.ListToolsResult
	raw json.RawMessage
}

func (r *rawListTools) MarshalJSON() ([]byte, error) { return r.raw, nil }

type rawCallTool struct {
	*mcp.CallToolResult
	raw json.RawMessage
}

func (r *rawCallTool) MarshalJSON() ([]byte, error) { return r.raw, nil }

// setLevel records a session's logging level. go-sdk has no hook for a
// session's end, so sessions that have ended are dropped here: the map
// never holds more than the live sessions (at most MaxSessions).
func (g *Gateway) setLevel(ss *mcp.ServerSession, level mcp.LoggingLevel) {
	live := map[*mcp.ServerSession]bool{}
	for s := range g.server.Sessions() {
		live[s] = true
	}
	g.levelsMu.Lock()
	defer g.levelsMu.Unlock()
	for s := range g.levels {
		if !live[s] {
			delete(g.levels, s)
		}
	}
	g.levels[ss] = level
}
