package realtools

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Tool is one tool of a real server.
type Tool struct {
	Server string // the server's name, as a config key would give it: "github", "google-maps"
	Name   string // the tool's name, as the server gives it
	// Definition is the tool object as the server sent it in tools/list,
	// byte for byte.
	Definition json.RawMessage
}

// server is one reference server and how to start it with what it needs
// to list its tools: dummy credentials, a directory, a database URL.
type server struct {
	name string
	bin  string   // in test/node_modules/.bin
	args []string // "{dir}" is replaced by a scratch directory
	env  []string
	// http: the server speaks Streamable HTTP on $PORT at /mcp. The
	// everything server lists its tools that depend on the client's
	// capabilities only there: over stdio it registers them before it
	// has read initialize.
	http bool
}

// servers are in config-key order (SPEC §4.1), the order Load returns.
var servers = []server{
	{name: "brave-search", bin: "mcp-server-brave-search", env: []string{"BRAVE_API_KEY=x"}},
	{name: "everything", bin: "mcp-server-everything", args: []string{"streamableHttp"}, http: true},
	{name: "filesystem", bin: "mcp-server-filesystem", args: []string{"{dir}"}},
	{name: "github", bin: "mcp-server-github", env: []string{"GITHUB_PERSONAL_ACCESS_TOKEN=x"}},
	{name: "gitlab", bin: "mcp-server-gitlab", env: []string{"GITLAB_PERSONAL_ACCESS_TOKEN=x", "GITLAB_API_URL=http://127.0.0.1:9/api/v4"}},
	{name: "google-maps", bin: "mcp-server-google-maps", env: []string{"GOOGLE_MAPS_API_KEY=x"}},
	{name: "memory", bin: "mcp-server-memory", env: []string{"MEMORY_FILE_PATH={dir}/memory.jsonl"}},
	{name: "pdf", bin: "mcp-pdf-server", args: []string{"--stdio"}},
	{name: "postgres", bin: "mcp-server-postgres", args: []string{"postgresql://127.0.0.1:9/none"}},
	{name: "sequential-thinking", bin: "mcp-server-sequential-thinking", env: []string{"DISABLE_THOUGHT_LOGGING=true"}},
	{name: "slack", bin: "mcp-server-slack", env: []string{"SLACK_BOT_TOKEN=x", "SLACK_TEAM_ID=x"}},
}

// initialize declares every capability a client may have, so that a
// server lists the tools that need one.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}},` +
	`"tasks":{"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}}},` +
	`"clientInfo":{"name":"realtools","version":"0"}}}`

// listParams are tools/list's params for the page after cursor.
func listParams(cursor string) string {
	if cursor == "" {
		return "{}"
	}
	c, _ := json.Marshal(cursor)
	return `{"cursor":` + string(c) + `}`
}

// page adds the tools of one tools/list result to tools, and returns the
// next page's cursor ("" at the end).
func (s server) page(tools []Tool, result json.RawMessage) ([]Tool, string, error) {
	var page struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.Unmarshal(result, &page); err != nil {
		return nil, "", fmt.Errorf("tools/list: %w", err)
	}
	for _, def := range page.Tools {
		var named struct{ Name string }
		if err := json.Unmarshal(def, &named); err != nil || named.Name == "" {
			return nil, "", fmt.Errorf("tools/list: a tool without a name: %.200s", def)
		}
		tools = append(tools, Tool{Server: s.name, Name: named.Name, Definition: slices.Clone(def)})
	}
	return tools, page.NextCursor, nil
}
