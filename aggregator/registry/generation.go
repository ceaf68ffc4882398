package registry

import (
	"encoding/json"

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
	logged     map[string]bool   // the lines its build logged (oncelog.go)
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

// Chosen is what server's entry chose of its lists in this generation;
// the zero Chosen for a server it does not know.
func (r *Generation) Chosen(server string) Chosen { return r.chosen[server] }

// Pinned returns the definitions of the pinned tools (an entry's
// "tools": {"pin": [...]}, SPEC §4.10), as tools/list gives them (named),
// in tools/list's order; each one's Route has Pinned set. The slice is
// the generation's: read it, do not change it.
func (r *Generation) Pinned() []json.RawMessage { return r.pinned }
