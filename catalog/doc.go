// Package catalog owns the named MCP servers a config may ask for by name
// (SPEC §6): the built-in entries embedded in the binary, the template's
// override file (/etc/mcp-gateway/catalog.json by default), the merge of the
// two, the expansion of an entry's {{property}} placeholders into an argv,
// and the watch that reloads the override file (SPEC §6.3).
//
// The file format is the one template maintainers already write for the
// seed's reference gateway: a JSON object keyed by server name, each entry
//
//	{"description": "…",
//	 "command": [["uvx", "arxiv-mcp-server"], ["--storage-path", "{{storagePath}}"]],
//	 "env": {"VAR": "literal or {{property}}"},
//	 "install": [["uv", "tool", "install", "arxiv-mcp-server"]],
//	 "properties": {"storagePath": {"type": "string"},
//	                "paths": {"type": "array", "required": true},
//	                "depth": {"type": "number", "default": 2}}}
package catalog
