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
// whole and says which lists changed. Its files:
//
//	registry.go      Registry (the live one: Load, Rebuild, Owner), a
//	                 Generation's reads (Tool, Prompt, Template, List), Route
//	merge.go         the merge: names (§4.1, §4.2, package names), schema
//	                 repair (§4.4), what is dropped and logged
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
