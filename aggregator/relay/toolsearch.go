package relay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcp-gateway/mcp-gateway/aggregator/record"
	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/aggregator/toolsearch"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is tool search (SPEC §4.10): which tools/list a caller gets
// (the whole list, or search mode's search_tools, call_tool and the
// pinned tools), and the gateway's answers to its own two tools. Package
// toolsearch ranks; this file meets it with the registry's generation
// and the call spine.
//
// Nothing here runs on the path of a tools/call of an exported name: the
// gateway's own tools are reached only where Router.ToolName finds no route
// (own), and their names are reserved in the merge, so that no
// server's tool shadows them. A call_tool becomes, before anything else
// reads it, the direct tools/call it names (toolsearch.CallParams): it
// then takes the spine as that call (progress, cancellation,
// server-to-client requests in both eras, tasks, the result's bytes),
// and its record names the real tool. Both tools answer in either mode:
// a client that listed them before the mode changed (auto, past the
// threshold) can still call them.

// Router routes requests over the registry's generation served now, and
// holds tool search's setting and its parts per generation
// (toolsearch.go). One serves every front of a Gateway.
type Router struct {
	reg       *registry.Registry
	mode      ToolSearch // HTTPOptions.ToolSearch
	threshold int        // HTTPOptions.ToolSearchThreshold; 0: DefaultToolSearchThreshold
	search    searchCache
}

// NewRouter makes the router over reg, with tool search's setting mode
// and auto's threshold (0: DefaultToolSearchThreshold).
func NewRouter(reg *registry.Registry, mode ToolSearch, threshold int) *Router {
	return &Router{reg: reg, mode: mode, threshold: threshold}
}

// ToolSearch is the gateway's tool-search setting (SPEC §4.10,
// --tool-search): off (tools/list is whole unless the client asks for
// search mode), on, or auto (search mode while the merged list holds
// more than the threshold's tools). The zero value is off.
type ToolSearch string

// The tool-search settings.
const (
	ToolSearchOff  ToolSearch = "off"
	ToolSearchOn   ToolSearch = "on"
	ToolSearchAuto ToolSearch = "auto"
)

// DefaultToolSearchThreshold is auto's threshold: search mode when the
// merged list holds more tools than this (SPEC §4.10).
const DefaultToolSearchThreshold = 64

// ParseToolSearch reads --tool-search's value: off, on or auto.
func ParseToolSearch(s string) (ToolSearch, error) {
	switch v := ToolSearch(s); v {
	case ToolSearchOff, ToolSearchOn, ToolSearchAuto:
		return v, nil
	}
	return "", fmt.Errorf("parse tool search %q: want off, on or auto", s)
}

// ToolsChoice is what a client asked of tools/list with /mcp's query
// parameter tools (SPEC §4.10): nothing (the gateway's setting decides),
// all, or search. A legacy session keeps its initialize's; a modern
// request carries its own.
type ToolsChoice uint8

const (
	ToolsUnchosen ToolsChoice = iota
	ToolsAll
	ToolsSearch
)

// ToolsQuery reads the query parameter tools of a request to /mcp: all,
// search, or absent; any other value is 400 with -32602.
func ToolsQuery(r *http.Request) (ToolsChoice, *wire.HTTPError) {
	if r.URL.RawQuery == "" {
		return ToolsUnchosen, nil
	}
	switch v := r.URL.Query().Get("tools"); v {
	case "":
		return ToolsUnchosen, nil
	case "all":
		return ToolsAll, nil
	case "search":
		return ToolsSearch, nil
	default:
		return ToolsUnchosen, wire.BadRequest(jsonrpc.CodeInvalidParams,
			"Invalid params: query parameter tools="+strconv.Quote(v)+": want tools=all (every tool in tools/list) or tools=search (search_tools and call_tool)")
	}
}

// searching reports whether a caller who chose c gets search mode's
// tools/list from gen: its choice, else the gateway's setting.
func (r *Router) searching(gen *registry.Generation, c ToolsChoice) bool {
	switch c {
	case ToolsAll:
		return false
	case ToolsSearch:
		return true
	}
	switch r.mode {
	case ToolSearchOn:
		return true
	case ToolSearchAuto:
		tools, _, _, _ := gen.Counts()
		threshold := r.threshold
		if threshold <= 0 {
			threshold = DefaultToolSearchThreshold
		}
		return tools > threshold
	}
	return false
}

// ToolsPage is one page of tools/list for a caller who chose c: search
// mode's one page (a cursor is -32602: that list has no second page),
// or the merged list's.
func (r *Router) ToolsPage(c ToolsChoice, cursor string) (json.RawMessage, error) {
	gen := r.reg.Load()
	if !r.searching(gen, c) {
		l, _ := gen.List("tools/list")
		return l.Page(cursor)
	}
	if cursor != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid cursor"}
	}
	return r.search.of(gen).list, nil
}

// searchCache holds search mode's parts for the generation served last:
// built once per generation (SPEC §4.5), when search mode first needs
// them, never per call.
type searchCache struct {
	mu  sync.Mutex // serialises builds
	cur atomic.Pointer[searchParts]
}

// searchParts is search mode over one generation.
type searchParts struct {
	gen  *registry.Generation
	ix   *toolsearch.Index
	list json.RawMessage // tools/list's result: {"tools":[search_tools, call_tool, the pinned…]}
}

// of returns the parts for gen, building them if the last ones are of
// another generation.
func (c *searchCache) of(gen *registry.Generation) *searchParts {
	if p := c.cur.Load(); p != nil && p.gen == gen {
		return p
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.cur.Load(); p != nil && p.gen == gen {
		return p
	}
	p := buildSearch(gen)
	c.cur.Store(p)
	return p
}

// buildSearch indexes gen's exported tools, in list order (server order,
// SPEC §4.1), and renders search mode's tools/list.
func buildSearch(gen *registry.Generation) *searchParts {
	l, _ := gen.List("tools/list")
	defs := l.Items()
	tools := make([]toolsearch.Tool, 0, len(defs))
	for _, def := range defs {
		name, _ := jsonrpc.Text(jsonrpc.Value(def, "name"))
		rt, ok := gen.Tool(name)
		if !ok {
			continue
		}
		tools = append(tools, toolsearch.Tool{Server: rt.Upstream.Name(), Name: name, Definition: def})
	}
	ix := toolsearch.New(tools)
	servers, _ := ix.Servers()
	list := []byte(`{"tools":[`)
	list = append(list, toolsearch.SearchToolsDefinition(len(tools), servers)...)
	list = append(list, ',')
	list = append(list, toolsearch.CallToolDefinition...)
	for _, def := range gen.Pinned() { // an entry's "tools": {"pin": [...]}, in list order (SPEC §4.10)
		list = append(list, ',')
		list = append(list, def...)
	}
	list = append(list, "]}"...)
	return &searchParts{gen: gen, ix: ix, list: list}
}

// Own is Router.ToolName's "error" for a tools/call of search_tools,
// which the gateway answers itself: the fronts answer result() as the
// call's result; a front that only probes the route (the modern front's
// modernTasks.call and dropLegacy) pays nothing for the search.
type Own struct {
	Name string // the gateway's tool: search_tools
	q    toolsearch.Query
	ix   *toolsearch.Index
}

// Result is search_tools' CallToolResult (toolsearch.Result).
func (a *Own) Result() json.RawMessage { return toolsearch.Result(a.q, a.ix.Search(a.q)) }

func (a *Own) Error() string { return "tools/call " + a.Name + ": answered by the gateway" }

// OwnOf reports whether a routing error is the gateway's own answer: a
// nil check on a routed call's path, nothing more.
func OwnOf(err error) (*Own, bool) {
	if err == nil {
		return nil, false
	}
	a, ok := err.(*Own)
	return a, ok
}

// own routes a tools/call of a name no server exports: call_tool
// becomes the direct call of the tool it names (params rewritten, the
// route that tool's; -32602 as for a direct call when nobody exports
// it), search_tools is answered here (ownAnswer), anything else is
// -32602.
func (r *Router) own(gen *registry.Generation, name string, params json.RawMessage) (Call, error) {
	switch name {
	case toolsearch.CallToolName:
		real, direct, err := toolsearch.CallParams(params)
		if err != nil {
			return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: invalidParams(err)}
		}
		rt, ok := gen.Tool(real)
		if !ok { // the call line names the tool asked for (unnamed)
			return Call{Name: real}, unknownTool(real)
		}
		return Call{Method: "tools/call", Name: real, Route: rt, Params: direct, Via: toolsearch.CallToolName}, nil
	case toolsearch.SearchToolsName:
		args, _ := jsonrpc.Member(params, "arguments")
		q, err := toolsearch.SearchArgs(args)
		if err != nil {
			return Call{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: invalidParams(err)}
		}
		return Call{}, &Own{Name: name, q: q, ix: r.search.of(gen).ix}
	}
	return Call{}, unknownTool(name)
}

// invalidParams is the message of -32602 for toolsearch's err (which
// wraps toolsearch.ErrInvalid, whose own words it does not repeat).
func invalidParams(err error) string {
	return "Invalid params: " + strings.TrimPrefix(err.Error(), toolsearch.ErrInvalid.Error()+": ")
}

// Unnamed records, for a routing error, the tool a call_tool asked for
// that nobody exports: its call line names that tool, as a direct call's
// does, not call_tool (SPEC §4.10, §11.1).
func Unnamed(rec *record.Record, c Call, err error) {
	if err != nil && c.Name != "" {
		rec.Routed(c.Name, "", "")
	}
}

// unknownTool is the answer to a tools/call of a name nobody exports.
func unknownTool(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool: %q", name)}
}

// ParamHeaders are the route's x-mcp-header parameters whose
// Mcp-Param-{Name} headers a modern client must send (SPEC §3.10): none
// for a call through call_tool, whose client saw only call_tool's
// schema. The server still gets its headers: the supervisor sets them
// from the arguments.
func (c *Call) ParamHeaders() []mcpheader.Param {
	if c.Via != "" {
		return nil
	}
	return c.Route.Headers
}
