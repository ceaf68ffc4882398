package aggregator

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is step 1 of the spine (call.go) for the requests other than
// tools/call (SPEC §4.8): prompts/get by its exported prompt name,
// resources/read by its URI (registry.Registry.Owner has the rules),
// completion/complete by its ref. mem is the calling client's URI
// memory (registry.Memory).

// routeRequest routes one of the relayed methods other than tools/call.
func (g *Gateway) routeRequest(method string, params json.RawMessage, mem *registry.Memory) (upstreamCall, error) {
	var (
		c   upstreamCall
		err error
	)
	switch method {
	case "prompts/get":
		c, err = g.routePrompt(params)
	case "resources/read":
		c, err = g.routeRead(params, mem)
	case "completion/complete":
		c, err = g.routeComplete(params, mem)
	default:
		return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + method}
	}
	c.params, c.mem = params, mem
	return c, err
}

// routePrompt routes params.name, an exported prompt name, to its server
// under the prompt's original name.
func (g *Gateway) routePrompt(params json.RawMessage) (upstreamCall, error) {
	name, ok := stringMember(params, "name")
	if !ok {
		return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: prompts/get needs a string "name"`}
	}
	return g.promptCall("prompts/get", name)
}

func (g *Gateway) promptCall(method, name string) (upstreamCall, error) {
	rt, ok := g.reg.Load().Prompt(name)
	if !ok {
		return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt: %q", name)}
	}
	return upstreamCall{method: method, name: name, route: rt}, nil
}

// routeRead routes params.uri to the server it belongs to; an unroutable
// URI is -32602 with the URI in data (MCP 2026-07-28 resources,
// "Error Handling": resource not found).
func (g *Gateway) routeRead(params json.RawMessage, mem *registry.Memory) (upstreamCall, error) {
	uri, ok := stringMember(params, "uri")
	if !ok {
		return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: resources/read needs a string "uri"`}
	}
	u := g.reg.Owner(uri, mem)
	if u == nil {
		return upstreamCall{}, registry.ResourceNotFound(uri)
	}
	return upstreamCall{method: "resources/read", name: uri, route: registry.Route{Upstream: u, Name: uri, Resources: true}}, nil
}

// routeComplete routes by params.ref (MCP completion): a ref/prompt by its
// exported name (the original upstream); a ref/resource by its URI
// template, or, for 2026-07-28 where it may be a URI, as a URI is routed.
func (g *Gateway) routeComplete(params json.RawMessage, mem *registry.Memory) (upstreamCall, error) {
	ref, _ := jsonrpc.Member(params, "ref")
	typ, _ := stringMember(ref, "type")
	switch typ {
	case "ref/prompt":
		if name, ok := stringMember(ref, "name"); ok {
			return g.promptCall("completion/complete", name)
		}
	case "ref/resource":
		if uri, ok := stringMember(ref, "uri"); ok {
			u := g.reg.Load().Template(uri)
			if u == nil {
				u = g.reg.Owner(uri, mem)
			}
			if u == nil {
				return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource template or URI: %q", uri)}
			}
			return upstreamCall{method: "completion/complete", name: uri, route: registry.Route{Upstream: u, Name: uri}}, nil
		}
	}
	return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: `Invalid params: completion/complete needs "ref": {"type": "ref/prompt", "name": ...} or {"type": "ref/resource", "uri": ...}`}
}

// stateKey names the call in a requestState (MRTR, SPEC §4.6): the
// exported tool name for tools/call, and the method with the prompt's
// name or the URI for the others, so that one kind's state cannot resume
// another's.
func (c *upstreamCall) stateKey() string {
	if c.method == "tools/call" {
		return c.name
	}
	return c.method + " " + c.name
}

// stringMember reads obj's member key as a string.
func stringMember(obj []byte, key string) (string, bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return "", false
	}
	raw, _ := jsonrpc.Member(obj, key)
	return jsonrpc.Text(raw)
}
