package aggregator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcp-gateway/mcp-gateway/aggregator/names"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// route is where an exported name (a tool's, a prompt's) or a URI leads:
// the server, and its own name for it.
type route struct {
	upstream *supervisor.Upstream
	// name is the original name upstream (a tool's or a prompt's); for a
	// URI, the URI itself (never rewritten, SPEC §4.8).
	name    string
	headers []paramHeader // a tool's x-mcp-header parameters (headers.go)
	// taskSupport is a tool definition's execution.taskSupport
	// ("optional", "required", "forbidden" or ""), SPEC §4.7.
	taskSupport string
	// resources says the server offers resources, so that a URI its
	// result carries can be read back from it: only then is the result
	// scanned for one (urimemory.go), and a tools-only server's calls
	// pay nothing for it.
	resources bool
}

// registry is one immutable generation of what the gateway serves: the
// merged tools and prompts (named, SPEC §4.1, §4.2, each in a namespace
// of its own), resources and resource templates (resources.go), each in
// config-key order and then in each server's order.
type registry struct {
	routes     map[string]route // exported tool name → route
	tools      list
	prompts    map[string]route // exported prompt name → route
	promptList list
	uris       uriTable // resources and templates (resources.go)
}

// buildRegistry merges the upstreams' lists (in config-key order). Each
// definition is the server's, byte for byte, except a tool's or prompt's
// "name" and a tool's minimal schema repair (SPEC §4.4); entries that
// cannot be served are dropped with a log line. prev is the generation it
// replaces: what it logged already is not logged again.
func buildRegistry(ups []*supervisor.Upstream, log *slog.Logger, prev *registry) *registry {
	lists := make([]supervisor.Lists, len(ups))
	readable := map[*supervisor.Upstream]bool{}
	for i, u := range ups {
		lists[i] = u.Lists()
		readable[u] = u.Capabilities().Resources
	}
	r := emptyRegistry()
	for _, n := range mergeNamed(ups, lists, "tool", func(l supervisor.Lists) []supervisor.Entry { return l.Tools }, repairSchema, log) {
		schema, _ := jsonrpc.Member(n.def, "inputSchema")
		exec, _ := jsonrpc.Member(n.def, "execution")
		support, _ := jsonrpc.Text(mustMember(exec, "taskSupport"))
		r.routes[n.exported] = route{upstream: n.up, name: n.ref.Name, headers: paramHeaders(schema), taskSupport: support, resources: readable[n.up]}
		r.tools.items = append(r.tools.items, n.def)
	}
	for _, n := range mergeNamed(ups, lists, "prompt", func(l supervisor.Lists) []supervisor.Entry { return l.Prompts }, isObjectDef, log) {
		r.prompts[n.exported] = route{upstream: n.up, name: n.ref.Name, resources: readable[n.up]}
		r.promptList.items = append(r.promptList.items, n.def)
	}
	r.uris = buildURITable(ups, lists, log, &prev.uris)
	return r
}

// emptyRegistry is the registry before the first build: every list
// empty.
func emptyRegistry() *registry {
	r := &registry{routes: map[string]route{}, prompts: map[string]route{}}
	r.tools.member, r.promptList.member = "tools", "prompts"
	r.uris.resources.member, r.uris.templateList.member = "resources", "resourceTemplates"
	return r
}

// named is one tool or prompt with its exported name and its definition
// as clients see it.
type named struct {
	ref      names.Ref
	exported string
	def      json.RawMessage
	up       *supervisor.Upstream
}

// mergeNamed names one kind of entry (what: "tool", "prompt") across the
// upstreams (SPEC §4.1, §4.2): prepare checks (and may repair) each
// definition; the exported name replaces "name" where it differs.
func mergeNamed(ups []*supervisor.Upstream, lists []supervisor.Lists, what string, of func(supervisor.Lists) []supervisor.Entry,
	prepare func(json.RawMessage) (json.RawMessage, error), log *slog.Logger) []named {
	var servers []string
	keys := map[string][]string{}
	defs := map[names.Ref]json.RawMessage{}
	for i, u := range ups {
		servers = append(servers, u.Name())
		for _, e := range of(lists[i]) {
			def, err := prepare(e.Raw)
			if err != nil {
				log.Warn(what+" dropped", "server", u.Name(), what, e.Key, "reason", err.Error())
				continue
			}
			ref := names.Ref{Server: u.Name(), Name: e.Key}
			if _, dup := defs[ref]; dup {
				log.Warn(what+" dropped", "server", u.Name(), what, e.Key, "reason", "the server lists this name twice")
				continue
			}
			defs[ref] = def
			keys[u.Name()] = append(keys[u.Name()], e.Key)
		}
	}
	exported, dropped := names.Assign(servers, keys)
	for _, ref := range dropped {
		log.Warn(what+" dropped", "server", ref.Server, what, ref.Name, "reason", "no unique exported name")
	}
	var out []named
	for i, s := range servers {
		for _, k := range keys[s] {
			ref := names.Ref{Server: s, Name: k}
			name, ok := exported[ref]
			if !ok {
				continue
			}
			def := defs[ref]
			if name != k {
				fields, err := jsonrpc.Fields(def)
				if err != nil {
					log.Warn(what+" dropped", "server", s, what, k, "reason", err.Error())
					continue
				}
				def = jsonrpc.Encode(jsonrpc.Set(fields, "name", jsonrpc.Quote(name)))
				log.Info(what+" renamed", "server", s, what, k, "exported", name)
			}
			out = append(out, named{ref: ref, exported: name, def: def, up: ups[i]})
		}
	}
	return out
}

// isObjectDef accepts a definition that is a JSON object, as it is.
func isObjectDef(def json.RawMessage) (json.RawMessage, error) {
	if t := trimSpace(def); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("definition is not a JSON object")
	}
	return def, nil
}

// repairSchema checks a tool definition. A missing inputSchema, or one
// without "type", gets "type":"object" added; any other inputSchema type,
// or a schema that is not an object, is an error (the tool is dropped).
func repairSchema(def json.RawMessage) (json.RawMessage, error) {
	fields, err := jsonrpc.Fields(def)
	if err != nil {
		return nil, fmt.Errorf("definition is not a JSON object: %w", err)
	}
	schema, ok := jsonrpc.Get(fields, "inputSchema")
	if !ok || string(bytes.TrimSpace(schema)) == "null" {
		return jsonrpc.Encode(jsonrpc.Set(fields, "inputSchema", json.RawMessage(`{"type":"object"}`))), nil
	}
	sfields, err := jsonrpc.Fields(schema)
	if err != nil {
		return nil, fmt.Errorf("inputSchema is not a JSON object")
	}
	typ, ok := jsonrpc.Get(sfields, "type")
	if !ok {
		sfields = append([]jsonrpc.Field{{Key: "type", Value: json.RawMessage(`"object"`)}}, sfields...)
		return jsonrpc.Encode(jsonrpc.Set(fields, "inputSchema", jsonrpc.Encode(sfields))), nil
	}
	if s, _ := jsonrpc.String(typ); s != "object" {
		return nil, fmt.Errorf("inputSchema type is %s, not \"object\"", typ)
	}
	return def, nil
}
