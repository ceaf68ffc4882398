package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
	"github.com/mcp-gateway/mcp-gateway/aggregator/names"
	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// build merges the upstreams' lists (in config-key order). Each
// definition is the server's, byte for byte, except a tool's or prompt's
// "name" and a tool's minimal schema repair (SPEC §4.4); entries that
// cannot be served are dropped with a log line. prev is the generation it
// replaces: what it logged already is not logged again (oncelog.go).
func build(ups []*supervisor.Upstream, log *slog.Logger, prev *Generation) *Generation {
	lists := make([]supervisor.Lists, len(ups))
	readable := map[*supervisor.Upstream]bool{}
	picks := make([]picked, len(ups))
	for i, u := range ups {
		picks[i] = pick(u) // before Lists: a server that has listed once has its lists (chosen.go)
		lists[i] = u.Lists()
		readable[u] = u.Capabilities().Resources
	}
	r := empty()
	once, logged := onceLogger(log, prev.logged)
	r.logged = logged
	tools := mergeNamed(ups, lists, "tool", func(l supervisor.Lists) []supervisor.Entry { return l.Tools },
		func(i int) choice.Choice { return picks[i].tools }, repairSchema, once)
	for _, n := range tools {
		schema, _ := jsonrpc.Member(n.def, "inputSchema")
		exec, _ := jsonrpc.Member(n.def, "execution")
		support, _ := jsonrpc.Text(jsonrpc.Value(exec, "taskSupport"))
		pinned := n.choice.Pinned(n.ref.Name)
		r.routes[n.exported] = Route{Upstream: n.up, Name: n.ref.Name, Headers: mcpheader.Params(schema), TaskSupport: support, Resources: readable[n.up], Pinned: pinned}
		r.tools.items = append(r.tools.items, n.def)
		if pinned {
			r.pinned = append(r.pinned, n.def)
		}
	}
	prompts := mergeNamed(ups, lists, "prompt", func(l supervisor.Lists) []supervisor.Entry { return l.Prompts },
		func(i int) choice.Choice { return picks[i].prompts }, isObjectDef, once)
	for _, n := range prompts {
		r.prompts[n.exported] = Route{Upstream: n.up, Name: n.ref.Name, Resources: readable[n.up]}
		r.promptList.items = append(r.promptList.items, n.def)
	}
	r.chosen = report(ups, lists, picks, tools, prompts, once)
	r.uris = buildURITable(ups, lists, once)
	return r
}

// mergeNamed names one kind of entry (what: "tool", "prompt") across the
// upstreams (SPEC §4.1, §4.2, §4.9): choose is the i-th upstream's choice
// of that kind, which leaves entries out and renames them before the
// names meet the other servers'; prepare checks (and may repair) each
// definition; the exported name replaces "name" where it differs.
func mergeNamed(ups []*supervisor.Upstream, lists []supervisor.Lists, what string, of func(supervisor.Lists) []supervisor.Entry,
	choose func(int) choice.Choice, prepare func(json.RawMessage) (json.RawMessage, error), log *slog.Logger) []named {
	var servers []string
	keys := map[string][]string{}  // server → the names Assign gets (chosen.go: chosenKeys), in the server's order
	orig := map[names.Ref]string{} // Assign's ref → the server's own name
	defs := map[names.Ref]json.RawMessage{}
	for i, u := range ups {
		servers = append(servers, u.Name())
		c := choose(i)
		seen := map[string]bool{}
		var kept []supervisor.Entry
		for _, e := range of(lists[i]) {
			if _, ok := c.Export(e.Key); !ok {
				continue // left out by the entry (SPEC §4.9): counted on /health
			}
			def, err := prepare(e.Raw)
			if err != nil {
				log.Warn(what+" dropped", "server", u.Name(), what, e.Key, "reason", err.Error())
				continue
			}
			if seen[e.Key] {
				log.Warn(what+" dropped", "server", u.Name(), what, e.Key, "reason", "the server lists this name twice")
				continue
			}
			seen[e.Key] = true
			defs[names.Ref{Server: u.Name(), Name: e.Key}] = def
			kept = append(kept, e)
		}
		for _, k := range chosenKeys(u.Name(), what, c, kept, log) {
			ref := names.Ref{Server: u.Name(), Name: k.key}
			if by, dup := orig[ref]; dup { // only a prefixed name meeting the server's own tool of that name
				log.Warn(what+" dropped", "server", u.Name(), what, k.orig, "reason", "no unique exported name: "+what+" "+by+" asks for "+k.key+" too")
				continue
			}
			orig[ref] = k.orig
			keys[u.Name()] = append(keys[u.Name()], k.key)
		}
	}
	exported, dropped := names.AssignReserved(servers, keys, reserved[what])
	for _, ref := range dropped {
		log.Warn(what+" dropped", "server", ref.Server, what, orig[ref], "reason", "no unique exported name")
	}
	var out []named
	for i, s := range servers {
		for _, k := range keys[s] {
			ref := names.Ref{Server: s, Name: k}
			name, ok := exported[ref]
			if !ok {
				continue
			}
			o := orig[ref]
			def := defs[names.Ref{Server: s, Name: o}]
			if name != o {
				fields, err := jsonrpc.Fields(def)
				if err != nil {
					log.Warn(what+" dropped", "server", s, what, o, "reason", err.Error())
					continue
				}
				def = jsonrpc.Encode(jsonrpc.Set(fields, "name", jsonrpc.Quote(name)))
				log.Info(what+" renamed", "server", s, what, o, "exported", name)
			}
			asked := ""
			if to, _ := choose(i).Export(o); to != o {
				asked = to
			}
			out = append(out, named{ref: names.Ref{Server: s, Name: o}, exported: name, def: def, up: ups[i], choice: choose(i), asked: asked})
		}
	}
	return out
}

// isObjectDef accepts a definition that is a JSON object, as it is.
func isObjectDef(def json.RawMessage) (json.RawMessage, error) {
	if t := jsonrpc.TrimLeft(def); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("definition is not a JSON object")
	}
	return def, nil
}

// repairSchema checks a tool definition. A missing inputSchema, or one
// without "type", gets "type":"object" added; any other inputSchema type,
// or a schema that is not an object, is an error (the tool is dropped), as
// are x-mcp-header names no HTTP request can carry (mcpheader.Check).
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
	// x-mcp-header names no request can carry: a modern client was asked
	// for an Mcp-Param header it cannot send, and a conforming one
	// leaves the tool out anyway (MCP 2026-07-28).
	if err := mcpheader.Check(mcpheader.Params(schema)); err != nil {
		return nil, fmt.Errorf("inputSchema: %w", err)
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
