package registry

import (
	"encoding/json"
	"log/slog"
	"sync/atomic"

	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Route is where an exported name (a tool's, a prompt's) or a URI leads:
// the server, and its own name for it.
type Route struct {
	Upstream *supervisor.Upstream
	// Name is the original name upstream (a tool's or a prompt's); for a
	// URI, the URI itself (never rewritten, SPEC §4.8).
	Name    string
	Headers []mcpheader.Param // a tool's x-mcp-header parameters (SPEC §3.10)
	// TaskSupport is a tool definition's execution.taskSupport
	// ("optional", "required", "forbidden" or ""), SPEC §4.7.
	TaskSupport string
	// Resources says the server offers resources, so that a URI its
	// result carries can be read back from it: only then is the result
	// scanned for one (Memory), and a tools-only server's calls pay
	// nothing for it.
	Resources bool
	// Pinned says the tool's entry pins it (SPEC §4.10: "tools": {"pin":
	// [...]}): search mode lists it beside the gateway's own tools.
	Pinned bool
}

// Registry is what the gateway serves over its upstreams, in config-key
// order: one immutable Generation at a time, swapped whole by Rebuild.
// Its methods are safe for concurrent use.
type Registry struct {
	ups    []*supervisor.Upstream
	byName map[string]*supervisor.Upstream
	log    *slog.Logger
	cur    atomic.Pointer[Generation]
}

// New is the registry over ups, every list empty until the first Rebuild.
func New(ups []*supervisor.Upstream, log *slog.Logger) *Registry {
	r := &Registry{ups: ups, byName: map[string]*supervisor.Upstream{}, log: log}
	for _, u := range ups {
		r.byName[u.Name()] = u
	}
	r.cur.Store(empty())
	return r
}

// Load returns the generation served now.
func (r *Registry) Load() *Generation { return r.cur.Load() }

// Rebuild merges the upstreams' current lists into a new generation,
// serves it, and returns the kinds of list that changed (SPEC §4.5), in
// ListKind order. Callers serialise Rebuilds.
func (r *Registry) Rebuild() []ListKind {
	prev := r.cur.Load()
	next := build(r.ups, r.log, prev)
	r.cur.Store(next)
	var changed []ListKind
	for _, c := range []struct {
		same bool
		kind ListKind
	}{{prev.tools.Same(next.tools), ListTools}, {prev.promptList.Same(next.promptList), ListPrompts}, {prev.uris.same(&next.uris), ListResources}} {
		if !c.same {
			changed = append(changed, c.kind)
		}
	}
	return changed
}

// Owner is the server a URI belongs to for the client whose memory is
// mem (nil: none), or nil: listed, then remembered, then the first
// matching template (resources.go).
func (r *Registry) Owner(uri string, mem *Memory) *supervisor.Upstream {
	return r.cur.Load().uris.owner(uri, mem, func(name string) *supervisor.Upstream { return r.byName[name] })
}

// Generation is one immutable generation of what the gateway serves: the
// merged tools and prompts (named, SPEC §4.1, §4.2, each in a namespace
// of its own), resources and resource templates (resources.go), each in
// config-key order and then in each server's order.
type Generation struct {
	routes     map[string]Route // exported tool name → route
	tools      List
	prompts    map[string]Route // exported prompt name → route
	promptList List
	uris       uriTable          // resources and templates (resources.go)
	pinned     []json.RawMessage // the pinned tools' definitions, in tools' order (chosen.go)
	chosen     map[string]Chosen // server → what its entry chose (chosen.go)
}

// empty is the generation before the first build: every list empty.
func empty() *Generation {
	r := &Generation{routes: map[string]Route{}, prompts: map[string]Route{}}
	r.tools.member, r.promptList.member = "tools", "prompts"
	r.uris.resources.member, r.uris.templateList.member = "resources", "resourceTemplates"
	return r
}

// Tool is the route of an exported tool name.
func (r *Generation) Tool(name string) (Route, bool) {
	rt, ok := r.routes[name]
	return rt, ok
}

// Prompt is the route of an exported prompt name.
func (r *Generation) Prompt(name string) (Route, bool) {
	rt, ok := r.prompts[name]
	return rt, ok
}

// Template is the server that lists a resource template by its
// uriTemplate text (completion's ref/resource), or nil.
func (r *Generation) Template(text string) *supervisor.Upstream { return r.uris.byText[text] }

// List returns the merged list a list method pages through: tools/list,
// prompts/list, resources/list, resources/templates/list.
func (r *Generation) List(method string) (List, bool) {
	switch method {
	case "tools/list":
		return r.tools, true
	case "prompts/list":
		return r.promptList, true
	case "resources/list":
		return r.uris.resources, true
	case "resources/templates/list":
		return r.uris.templateList, true
	}
	return List{}, false
}

// Counts is how many tools, prompts, resources and resource templates
// the generation serves.
func (r *Generation) Counts() (tools, prompts, resources, templates int) {
	return len(r.tools.items), len(r.promptList.items), len(r.uris.resources.items), len(r.uris.templateList.items)
}
