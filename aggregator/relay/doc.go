// Package relay is the spine of every request the gateway relays to the
// server that owns what it names, in either era (SPEC §4.3, §4.4, §4.8):
// route, check, call, result. Its values are what the fronts hand each
// other: a Call on its way (its route, params, the Peer it carries), and
// the Outcome it comes back with. It never answers a client: the fronts
// (legacy sessions, modern requests, the bridge, the task runner) render
// what it returns.
//
//	call.go        Call, Check (the progressToken rule), Do, AwaitDetached,
//	               Outcome: the result or error as the client gets it
//	route.go       Router's routes: a tools/call by exported name, prompts/get,
//	               resources/read, completion/complete; StateKey
//	toolsearch.go  Router, NewRouter and tool search at the spine (SPEC
//	               §4.10): ToolSearch, the caller's ToolsChoice, ToolsPage,
//	               the gateway's own tools
//	               (call_tool becomes its direct call, search_tools is Own)
//	client.go      what a call's client may be asked and told: ClientCan,
//	               CapabilityOf, LogLevels, LogPasses
package relay
