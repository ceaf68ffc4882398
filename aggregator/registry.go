package aggregator

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/mcp-gateway/mcp-gateway/aggregator/names"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// PageSize is how many tools one tools/list page holds; the rest follow
// through nextCursor (SPEC §3.8).
const PageSize = 500

// route is where an exported tool name leads.
type route struct {
	upstream *supervisor.Upstream
	tool     string        // original name
	headers  []paramHeader // its x-mcp-header parameters (headers.go)
	// taskSupport is the definition's execution.taskSupport ("optional",
	// "required", "forbidden" or ""), SPEC §4.7.
	taskSupport string
}

// registry is one immutable generation of the merged tool list.
type registry struct {
	routes map[string]route
	tools  []json.RawMessage // exported definitions, in order
}

// buildRegistry merges the upstreams' tools (in config-key order). Each
// definition is the server's, byte for byte, except its "name" and a
// minimal schema repair (SPEC §4.4); tools that cannot be served are
// dropped with a log line.
func buildRegistry(ups []*supervisor.Upstream, log *slog.Logger) *registry {
	var servers []string
	lists := map[string][]string{}
	defs := map[names.Ref]json.RawMessage{}
	byName := map[string]*supervisor.Upstream{}
	for _, u := range ups {
		servers = append(servers, u.Name())
		byName[u.Name()] = u
		for _, t := range u.Tools() {
			def, err := repairSchema(t.Raw)
			if err != nil {
				log.Warn("tool dropped", "server", u.Name(), "tool", t.Key, "reason", err.Error())
				continue
			}
			key := names.Ref{Server: u.Name(), Name: t.Key}
			if _, dup := defs[key]; dup {
				log.Warn("tool dropped", "server", u.Name(), "tool", t.Key, "reason", "the server lists this name twice")
				continue
			}
			defs[key] = def
			lists[u.Name()] = append(lists[u.Name()], t.Key)
		}
	}
	exported, dropped := names.Assign(servers, lists)
	for _, ref := range dropped {
		log.Warn("tool dropped", "server", ref.Server, "tool", ref.Name, "reason", "no unique exported name")
	}
	r := &registry{routes: make(map[string]route, len(exported))}
	for _, s := range servers {
		for _, t := range lists[s] {
			ref := names.Ref{Server: s, Name: t}
			name, ok := exported[ref]
			if !ok {
				continue
			}
			def := defs[ref]
			if name != t {
				fields, err := jsonrpc.Fields(def)
				if err != nil {
					log.Warn("tool dropped", "server", s, "tool", t, "reason", err.Error())
					continue
				}
				def = jsonrpc.Encode(jsonrpc.Set(fields, "name", jsonrpc.Quote(name)))
				log.Info("tool renamed", "server", s, "tool", t, "exported", name)
			}
			schema, _ := jsonrpc.Member(def, "inputSchema")
			exec, _ := jsonrpc.Member(def, "execution")
			support, _ := jsonrpc.Text(mustMember(exec, "taskSupport"))
			r.routes[name] = route{upstream: byName[s], tool: t, headers: paramHeaders(schema), taskSupport: support}
			r.tools = append(r.tools, def)
		}
	}
	return r
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

// page renders one tools/list result: {"tools":[…],"nextCursor":"…"}.
func (r *registry) page(cursor string) (json.RawMessage, error) {
	start := 0
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err == nil {
			start, err = strconv.Atoi(string(b))
		}
		if err != nil || start < 0 || start > len(r.tools) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
		}
	}
	end := min(start+PageSize, len(r.tools))
	n := 16
	for _, t := range r.tools[start:end] {
		n += len(t) + 1
	}
	b := make([]byte, 0, n+64)
	b = append(b, `{"tools":[`...)
	for i, t := range r.tools[start:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, t...)
	}
	b = append(b, ']')
	if end < len(r.tools) {
		b = append(b, `,"nextCursor":"`...)
		b = append(b, base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))...)
		b = append(b, '"')
	}
	return append(b, '}'), nil
}
