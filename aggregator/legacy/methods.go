package legacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is the method table of a legacy session (SPEC §3.7, §3.8):
// what the gateway answers itself (initialize, ping, logging/setLevel, the
// merged lists), and where the rest goes: tools/call, prompts/get,
// resources/read and completion/complete to their servers, the resource
// subscriptions to the registry, the task methods to tasks.go. Any other
// method is -32601.

// MaxInitializeParams bounds what a session keeps of its initialize
// (capabilities, clientInfo) for its life: 64 KiB, where the body limit
// would let 100 sessions hold 6 GB.
const MaxInitializeParams = 64 << 10

// initialize answers initialize and opens the session (SPEC §3.5): a
// supported requested protocolVersion is echoed, any other gets the newest
// legacy one. Past MaxSessions it is 503 with Retry-After. tools is what
// its URL chose of tools/list, kept for the session's life (SPEC §4.10).
func (f *Front) initialize(w http.ResponseWriter, m *wire.Message, sseOnly bool, tools relay.ToolsChoice) {
	var p struct {
		ProtocolVersion *string         `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ClientInfo      json.RawMessage `json:"clientInfo"`
	}
	if len(m.Params) > MaxInitializeParams {
		wire.WriteRPCError(w, http.StatusOK, m.ID, jsonrpc.CodeInvalidParams,
			fmt.Sprintf("Invalid params: initialize params of %d bytes; the gateway keeps a session's at most %d", len(m.Params), MaxInitializeParams), nil)
		return
	}
	if m.Params == nil || m.Params[0] != '{' || json.Unmarshal(m.Params, &p) != nil || p.ProtocolVersion == nil {
		wire.WriteRPCError(w, http.StatusOK, m.ID, jsonrpc.CodeInvalidParams,
			`Invalid params: initialize needs {"protocolVersion": "...", "capabilities": {...}, "clientInfo": {...}}`, nil)
		return
	}
	version := Versions[0]
	if slices.Contains(Versions, *p.ProtocolVersion) {
		version = *p.ProtocolVersion
	}
	s := f.sessions.open(version, p.Capabilities, p.ClientInfo, tools)
	if s == nil {
		w.Header().Set("Retry-After", "5")
		wire.WriteRPCError(w, http.StatusServiceUnavailable, m.ID, -32000, "too many sessions: the gateway serves at most "+
			strconv.Itoa(f.sessions.max)+"; end one with DELETE /mcp or retry later", nil)
		return
	}
	f.sessions.postStarted(s, nil)
	defer f.sessions.postEnded(s, nil)
	w.Header().Set("Mcp-Session-Id", s.id)
	out := wire.NewStream(w, true)
	defer out.Done()
	if sseOnly && out.OpenSSE() != nil {
		return
	}
	out.Finish(jsonrpc.Response(m.ID, f.initializeResult(version)))
}

// initializeResult is the gateway's InitializeResult: the capabilities it
// offers (registry.Offered; SPEC §3.8) and the 2025-11-25 tasks.
func (f *Front) initializeResult(version string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"protocolVersion": version,
		"capabilities":    f.reg.Capabilities().Object(map[string]any{"tasks": taskCapability}),
		"serverInfo":      map[string]string{"name": "mcp-gateway", "version": f.version},
	})
	return b
}

// request answers one request of a session and returns the response as
// the parts of one message, or nil when the client cancelled it; rec is
// its record (package record), told what the call does.
func (f *Front) request(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record) [][]byte {
	switch m.Method {
	case "ping":
		return [][]byte{jsonrpc.Response(m.ID, json.RawMessage("{}"))}
	case "logging/setLevel":
		return f.setLevel(s, m)
	case "tools/list":
		cursor, err := registry.CursorOf(m.Params)
		if err != nil {
			return wire.ErrorParts(m.ID, err)
		}
		page, err := f.router.ToolsPage(s.tools, cursor) // relay/toolsearch.go (SPEC §4.10)
		if err != nil {
			return wire.ErrorParts(m.ID, err)
		}
		return wire.ResultParts(m.ID, page)
	case "prompts/list", "resources/list", "resources/templates/list", "prompts/get", "resources/read",
		"completion/complete", "resources/subscribe", "resources/unsubscribe":
		return f.surface(s, m, out, rec)
	case "tools/call":
		c, err := f.router.Tool(m.Params, &m.Index) // routed once: its read of params also finds a task
		if c.Task {
			return f.tasks.callTask(s, m, out, rec, c, err) // tasks.go (SPEC §4.7)
		}
		return f.toolsCall(s, m, out, rec, c, err)
	case "tasks/get", "tasks/result", "tasks/list", "tasks/cancel":
		return f.tasks.taskMethod(s, m, out, rec) // tasks.go (SPEC §4.7)
	case "initialize":
		return wire.ErrorParts(m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "Invalid Request: the session is already initialized"})
	}
	return wire.ErrorParts(m.ID, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("Method not found: %s", m.Method)})
}

// setLevel is logging/setLevel: the session's minimum level for the
// servers' log messages relayed to it. An invalid level is -32602 (MCP,
// Logging).
func (f *Front) setLevel(s *Session, m *wire.Message) [][]byte {
	raw, _ := jsonrpc.Member(m.Params, "level")
	level, _ := jsonrpc.Text(raw)
	if _, ok := relay.LogLevels[level]; !ok {
		return wire.ErrorParts(m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("invalid log level %s; want debug, info, notice, warning, error, critical, alert or emergency", orNull(raw))})
	}
	s.mu.Lock()
	s.level = level
	s.mu.Unlock()
	f.levels.apply(f.sessions.all(), f.ups) // loglevel.go
	return [][]byte{jsonrpc.Response(m.ID, json.RawMessage("{}"))}
}

// notification handles a client's notification: notifications/cancelled
// cancels the running request it names (its server gets
// notifications/cancelled); the others need nothing.
func (f *Front) notification(s *Session, m *wire.Message) {
	if m.Method == "notifications/cancelled" {
		if id, ok := jsonrpc.Member(m.Params, "requestId"); ok {
			s.cancelCall(id)
		}
	}
}

// answer delivers a client's response to the server-to-client request it
// answers (peer.go); an answer nobody waits for is dropped.
func (s *Session) answer(m *wire.Message) {
	s.mu.Lock()
	ch := s.asks[string(m.ID)]
	delete(s.asks, string(m.ID))
	s.mu.Unlock()
	if ch != nil {
		ch <- clientAnswer{result: m.Result, errObj: m.Error}
	}
}

// The requests that reach a server take one course (sessionCall):
// tools/call, prompts/get, resources/read and completion/complete
// (package relay).

// toolsCall is a legacy session's tools/call (package relay), routed
// (c, err: Router.Tool): checked, it runs with the session's peer
// (peer.go) until it ends; a modern server's task made of it is followed
// to its end (follow).
func (f *Front) toolsCall(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record, c relay.Call, err error) [][]byte {
	route := func() (relay.Call, error) { return c, err }
	return f.sessionCall(s, m, out, rec, route, func(ctx context.Context, c relay.Call) (json.RawMessage, error) {
		c.Mem = &s.uris
		return f.runner.Follow(ctx, c, false) // taskrun/follow.go
	})
}

// relay is a session's prompts/get, resources/read or
// completion/complete: routed and checked, it runs with the session's
// peer (peer.go) until it ends, as a tools/call does; rec is its record
// (package record).
func (f *Front) relay(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record) [][]byte {
	route := func() (relay.Call, error) { return f.router.Request(m.Method, m.Params, &s.uris) }
	return f.sessionCall(s, m, out, rec, route, func(ctx context.Context, c relay.Call) (json.RawMessage, error) {
		o := relay.Do(ctx, c)
		return o.Res, o.Err
	})
}

// sessionCall is the one course of a session's routed request (package relay's
// spine): begun (a duplicate id refused), routed, checked, run
// with the session's peer until it ends, and answered; rec is its record
// (package record). A request the client cancelled gets no answer (MCP,
// Cancellation).
func (f *Front) sessionCall(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record,
	route func() (relay.Call, error), run func(context.Context, relay.Call) (json.RawMessage, error)) [][]byte {
	ctx, end, refused := s.beginRequest(m, out)
	if refused != nil {
		rec.Failed(errDuplicateID)
		return refused
	}
	defer end.Done()
	c, err := route()
	if own, ok := relay.OwnOf(err); ok { // search_tools (relay/toolsearch.go)
		rec.Routed(own.Name, "", own.Name)
		return rec.ResultParts(m.ID, own.Result())
	}
	if err == nil {
		rec.Routed(c.Name, c.Route.Upstream.Name(), c.Route.Name)
		err = c.Check()
	} else {
		relay.Unnamed(rec, c, err) // relay/toolsearch.go
	}
	if err != nil {
		return rec.ErrorParts(m.ID, err)
	}
	c.Peer = &peer{s: s, out: out, tokenFree: c.NoProgressToken()}
	res, err := run(rec.Context(ctx), c)
	if err != nil {
		if errors.Is(context.Cause(ctx), errClientCancelled) {
			return nil
		}
		if cause := context.Cause(ctx); errors.Is(cause, errSessionEnded) {
			err = cause
		}
		return rec.ErrorParts(m.ID, err)
	}
	return rec.ResultParts(m.ID, res)
}

// The server surface beyond tools (SPEC §3.8, §4.8): the merged lists
// of prompts, resources and templates, and resource subscriptions
// (registry.Subscriptions).

// surface answers a session's request of the surface beyond tools; a
// method whose capability no server offers is -32601.
func (f *Front) surface(s *Session, m *wire.Message, out *wire.Stream, rec *record.Record) [][]byte {
	if !f.reg.Capabilities().Serves(m.Method) {
		return rec.ErrorParts(m.ID, registry.NotOffered(m.Method))
	}
	switch m.Method {
	case "resources/subscribe":
		return f.subscribe(s, m)
	case "resources/unsubscribe":
		return f.unsubscribe(s, m)
	case "prompts/get", "resources/read", "completion/complete":
		return f.relay(s, m, out, rec)
	}
	l, _ := f.reg.Load().List(m.Method)
	return listPage(m, l)
}

// listPage answers a list method with one page of l.
func listPage(m *wire.Message, l registry.List) [][]byte {
	cursor, err := registry.CursorOf(m.Params)
	if err != nil {
		return wire.ErrorParts(m.ID, err)
	}
	page, err := l.Page(cursor)
	if err != nil {
		return wire.ErrorParts(m.ID, err)
	}
	return wire.ResultParts(m.ID, page)
}

// subscribe is resources/subscribe: the URI is routed as resources/read
// is, and the session subscribed to it there (one upstream subscription
// per URI, registry.Subscriptions).
func (f *Front) subscribe(s *Session, m *wire.Message) [][]byte {
	uri, ok := stringMember(m.Params, "uri")
	if !ok {
		return wire.ErrorParts(m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: resources/subscribe needs a string "uri"`})
	}
	u := f.reg.Owner(uri, &s.uris)
	if u == nil {
		return wire.ErrorParts(m.ID, registry.ResourceNotFound(uri))
	}
	if err := f.subs.Add(s.ctx, u, uri, s); err != nil {
		return wire.ErrorParts(m.ID, asRPCError(err))
	}
	return [][]byte{jsonrpc.Response(m.ID, json.RawMessage("{}"))}
}

// unsubscribe is resources/unsubscribe; a URI the session is not
// subscribed to is fine.
func (f *Front) unsubscribe(s *Session, m *wire.Message) [][]byte {
	uri, ok := stringMember(m.Params, "uri")
	if !ok {
		return wire.ErrorParts(m.ID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: resources/unsubscribe needs a string "uri"`})
	}
	f.subs.RemoveURI(s.ctx, uri, s)
	return [][]byte{jsonrpc.Response(m.ID, json.RawMessage("{}"))}
}

// asRPCError is err as the client gets it: a server's JSON-RPC error as
// it is, anything else CodeServerUnavailable.
func asRPCError(err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: err.Error()}
}

// stringMember reads obj's member key as a string.
func stringMember(obj []byte, key string) (string, bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return "", false
	}
	raw, _ := jsonrpc.Member(obj, key)
	return jsonrpc.Text(raw)
}
