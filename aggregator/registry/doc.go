// Package registry owns what the gateway serves over its servers (SPEC
// §3.8, §4.1, §4.2, §4.4, §4.5, §4.8): the merged, named tools and
// prompts and where each leads (a Route), the merged resources and
// resource templates and the rules that say which server a URI belongs
// to, the pages clients read them in, what the gateway advertises, and
// the resource subscriptions fanned out to one upstream subscription per
// URI. It reads only the servers' lists and capabilities
// (supervisor.Upstream) and never calls a server but to subscribe.
//
// A Registry serves one immutable Generation at a time; Rebuild swaps it
// whole and says which lists changed.
//
// Each server's entry chooses what of its lists is served (SPEC §4.9):
// a tool or prompt it leaves out is in no list and has no Route, so that
// a call of it is -32602 as for a name nobody offers; a renamed one is
// listed, and routed, under its new name, its Route.Name the server's
// own. For tool search (§4.10), Route.Pinned says an exported tool is
// pinned, and Generation.Pinned gives the pinned tools' definitions in
// tools/list order; Generation.Chosen(server) is what the entry made of
// the server's lists (exported counts, unmatched names). Its files:
//
//	registry.go      Registry, the live one: Load, Rebuild, Owner
//	generation.go    a Generation and its reads (Tool, Prompt, Template,
//	                 List, Chosen, Pinned), Route
//	merge.go         the merge: names (§4.1, §4.2, package names), schema
//	                 repair (§4.4), what is dropped and logged
//	oncelog.go       each line of a merge logged once, not at every merge
//	chosen.go        each entry's "tools" and "prompts" (§4.9, package
//	                 choice) applied to its lists; Chosen, what /health shows
//	                 of it; Pinned, the tools search mode lists (§4.10)
//	lists.go         List and its pages (MCP Pagination, PageSize), ListKind
//	                 (the lists whose changes clients hear of, §4.5)
//	resources.go     resources and templates, and a URI's owner: listed,
//	                 remembered, matched by a template (RFC 6570)
//	memory.go        Memory: the URIs results carried to one client
//	capabilities.go  Offered: the capabilities the gateway advertises and
//	                 the methods it serves
//	subscriptions.go Subscriptions: one upstream subscription per (server,
//	                 URI), updates to exactly its Subscribers
package registry
