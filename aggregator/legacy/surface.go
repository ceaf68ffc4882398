package legacy

import (
	"encoding/json"
	"errors"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file serves a legacy session the server surface beyond tools (SPEC
// §3.8, §4.8): the merged lists of prompts, resources and templates, and
// resource subscriptions (registry.Subscriptions); prompts/get,
// resources/read and completion/complete are relayed (call.go).

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
	page, err := l.Page(registry.CursorOf(m.Params))
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
