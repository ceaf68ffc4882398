package relay

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is step 1 of the spine (call.go), routing: a tools/call by
// its exported tool name (or the gateway's own tools, toolsearch.go), and
// the requests other than tools/call (SPEC §4.8): prompts/get by its
// exported prompt name, resources/read by its URI
// (registry.Registry.Owner has the rules), completion/complete by its
// ref. mem is the calling client's URI memory (registry.Memory). The
// Router itself is toolsearch.go's, whose setting it holds.

// Tool is step 1 for a tools/call's params: the route of
// params.name; -32602 if params are not an object with a string name
// that the registry exports. x (nil: none) holds the members of params,
// read without a scan when it is theirs (wire.Message.Index).
func (r *Router) Tool(params json.RawMessage, x *jsonrpc.Index) (Call, error) {
	if params == nil || params[0] != '{' {
		return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: tools/call needs {\"name\": ..., \"arguments\": {...}}"}
	}
	// One scan for the name, for check's _meta and for the task: the
	// arguments, 8 MiB of them perhaps, are skipped once, not once for
	// each (11 ms each for 8 MiB of small objects).
	var (
		rawName, meta, task json.RawMessage
		metas               int
		nameAt              [2]int
		folds               string
	)
	_ = x.EachAt(params, func(k []byte, start, end int) bool {
		switch {
		case jsonrpc.KeyIs(k, "name"):
			rawName, nameAt = params[start:end], [2]int{start, end}
		case jsonrpc.KeyIs(k, "_meta"):
			meta, metas = params[start:end], metas+1
		case jsonrpc.KeyIs(k, "task"):
			task = params[start:end]
		case jsonrpc.KeyIs(k, "arguments"):
		case folds == "":
			folds = FoldedKey(k, "name", "_meta", "task")
		}
		return true
	})
	isTask := len(task) > 0 && task[0] == '{'
	if folds != "" {
		return Call{Task: isTask}, KeyFoldsError(folds)
	}
	name, ok := jsonrpc.Text(rawName)
	if !ok {
		return Call{Task: isTask}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: tools/call needs a string \"name\""}
	}
	c, err := r.ToolName(name, params)
	c.metaRead, c.meta, c.metas, c.Task = true, meta, metas, isTask
	c.nameIn, c.nameAt = params, nameAt
	return c, err
}

// ToolName is Tool for a name already read from params (a modern
// request's, in validateModern's one scan).
func (r *Router) ToolName(name string, params json.RawMessage) (Call, error) {
	gen := r.reg.Load()
	rt, ok := gen.Tool(name)
	if !ok {
		return r.own(gen, name, params) // toolsearch.go: search_tools, call_tool, else -32602
	}
	return Call{Method: "tools/call", Name: name, Route: rt, Params: params}, nil
}

// Request routes one of the relayed methods other than tools/call.
func (r *Router) Request(method string, params json.RawMessage, mem *registry.Memory) (Call, error) {
	var (
		c   Call
		err error
	)
	switch method {
	case "prompts/get":
		c, err = r.prompt(params)
	case "resources/read":
		c, err = r.read(params, mem)
	case "completion/complete":
		c, err = r.complete(params, mem)
	default:
		return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found: " + method}
	}
	c.Params, c.Mem = params, mem
	return c, err
}

// prompt routes params.name, an exported prompt name, to its server
// under the prompt's original name.
func (r *Router) prompt(params json.RawMessage) (Call, error) {
	name, ok, err := stringMember(params, "name")
	if err != nil {
		return Call{}, err
	}
	if !ok {
		return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: prompts/get needs a string "name"`}
	}
	return r.promptCall("prompts/get", name)
}

func (r *Router) promptCall(method, name string) (Call, error) {
	rt, ok := r.reg.Load().Prompt(name)
	if !ok {
		return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt: %q", name)}
	}
	return Call{Method: method, Name: name, Route: rt}, nil
}

// read routes params.uri to the server it belongs to; an unroutable
// URI is -32602 with the URI in data (MCP 2026-07-28 resources,
// "Error Handling": resource not found).
func (r *Router) read(params json.RawMessage, mem *registry.Memory) (Call, error) {
	uri, ok, err := stringMember(params, "uri")
	if err != nil {
		return Call{}, err
	}
	if !ok {
		return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `Invalid params: resources/read needs a string "uri"`}
	}
	u := r.reg.Owner(uri, mem)
	if u == nil {
		return Call{}, registry.ResourceNotFound(uri)
	}
	return Call{Method: "resources/read", Name: uri, Route: registry.Route{Upstream: u, Name: uri, Resources: true}}, nil
}

// complete routes by params.ref (MCP completion): a ref/prompt by its
// exported name (the original upstream); a ref/resource by its URI
// template, or, for 2026-07-28 where it may be a URI, as a URI is routed.
func (r *Router) complete(params json.RawMessage, mem *registry.Memory) (Call, error) {
	ref, _, folds := onlyMember(params, "ref")
	if folds {
		return Call{}, KeyFoldsError("ref")
	}
	typ, _, err := stringMember(ref, "type")
	if err != nil {
		return Call{}, err
	}
	switch typ {
	case "ref/prompt":
		name, ok, err := stringMember(ref, "name")
		if err != nil {
			return Call{}, err
		}
		if ok {
			return r.promptCall("completion/complete", name)
		}
	case "ref/resource":
		uri, ok, err := stringMember(ref, "uri")
		if err != nil {
			return Call{}, err
		}
		if ok {
			u := r.reg.Load().Template(uri)
			if u == nil {
				u = r.reg.Owner(uri, mem)
			}
			if u == nil {
				return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource template or URI: %q", uri)}
			}
			return Call{Method: "completion/complete", Name: uri, Route: registry.Route{Upstream: u, Name: uri}}, nil
		}
	}
	return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: `Invalid params: completion/complete needs "ref": {"type": "ref/prompt", "name": ...} or {"type": "ref/resource", "uri": ...}`}
}

// StateKey names the call in a requestState (MRTR, SPEC §4.6): the
// exported tool name for tools/call, and the method with the prompt's
// name or the URI for the others, so that one kind's state cannot resume
// another's.
func (c *Call) StateKey() string {
	if c.Method == "tools/call" {
		return c.Name
	}
	return c.Method + " " + c.Name
}

// stringMember reads obj's member key (the last, if repeated) as a
// string; obj is refused if another of its keys is key but for case
// (KeyFoldsError): routing reads the one, and a server may read the
// other.
func stringMember(obj []byte, key string) (string, bool, error) {
	if len(obj) == 0 || obj[0] != '{' {
		return "", false, nil
	}
	raw, _, folds := onlyMember(obj, key)
	if folds {
		return "", false, KeyFoldsError(key)
	}
	s, ok := jsonrpc.Text(raw)
	return s, ok, nil
}
