package codeapi

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Input is what the code API is made of: the merged tool list, in server
// order (config-key order, SPEC §4.1) and each server's tools in its
// order, and where the runtime reaches the daemon.
//
// Its JSON form (the control socket's answer to `code`) has the members
// servers, url and tokenFile.
type Input struct {
	Servers []Server `json:"servers"`
	// URL is the daemon's MCP endpoint as the sandbox's code reaches it
	// on loopback, e.g. "http://127.0.0.1:50005/mcp" (SPEC §12.3).
	URL string `json:"url"`
	// TokenFile is the token file's path (SPEC §2.5), read by the runtime
	// at call time when MCP_GATEWAY_TOKEN is not set. The token itself is
	// never an input: the tree holds no secret (SPEC §12.1).
	TokenFile string `json:"tokenFile"`
}

// Server is one server of the merged list.
type Server struct {
	Name string `json:"name"` // its config key
	// Description is its instructions, or else its description; INDEX.md
	// shows the first line.
	Description string `json:"description,omitempty"`
	Tools       []Tool `json:"tools"`
}

// Tool is one tool as clients see it: its exported name (SPEC §4.2) and
// its definition as tools/list gives it, raw.
type Tool struct {
	Name       string          `json:"name"`
	Definition json.RawMessage `json:"definition"`
}

// tool is a definition's parts the generator uses, read in one scan.
type tool struct {
	name        string // exported name
	description string
	input       schema // inputSchema (the zero schema when absent)
	output      schema // outputSchema
	hasOutput   bool
	headers     []mcpheader.Param // x-mcp-header parameters (SPEC §3.10)
	size        int               // the definition's bytes
	file        string            // its file's stem and its function's name (an identifier)
	serverName  string            // its server's config key
	key         string            // its renderKey
}

// serverOut is one server as the generator lays it out.
type serverOut struct {
	name, ident, description string
	tools                    []*tool
}

// readTool reads a definition. One that is not a valid JSON object is
// read as a tool with no description and an empty schema: it still gets
// its files.
func readTool(t Tool) tool {
	out := tool{name: t.Name, size: len(t.Definition)}
	if !jsonrpc.Valid(t.Definition) {
		return out
	}
	_ = jsonrpc.Members(t.Definition, func(k, v []byte) bool {
		switch {
		case jsonrpc.KeyIs(k, "description"):
			out.description, _ = jsonrpc.Text(v)
		case jsonrpc.KeyIs(k, "inputSchema"):
			out.input = newSchema(v)
			out.headers = mcpheader.Params(v)
		case jsonrpc.KeyIs(k, "outputSchema"):
			out.output, out.hasOutput = newSchema(v), isObject(v)
		}
		return true
	})
	return out
}
