package toolsearch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// The gateway's own tools in search mode (SPEC §4.10). Their names are
// reserved: a server's tool of the same name is exported prefixed.
const (
	SearchToolsName = "search_tools"
	CallToolName    = "call_tool"
)

// maxServerEnum bounds the server names listed in search_tools' schema,
// so that the search-mode list stays under 2 KB (SPEC §4.10) whatever
// the config: past it the names are left out, not cut.
const maxServerEnum = 640

// SearchToolsDefinition returns search_tools' definition, as tools/list
// gives it, for a gateway of tools tools from servers (in server order):
// the count tells the agent what it searches, and the names, when they
// fit in maxServerEnum bytes, are the enum of "server".
func SearchToolsDefinition(tools int, servers []string) []byte {
	serverProp := `{"type":"string","description":"Only this server's tools."}`
	if len(servers) > 0 {
		names, _ := json.Marshal(servers)
		if len(names) <= maxServerEnum {
			serverProp = `{"type":"string","description":"Only this server's tools.","enum":` + string(names) + `}`
		}
	}
	desc := fmt.Sprintf("Find the tools for a task among this gateway's %d tools from %d servers, which are not listed here. "+
		"Say what you want to do in plain words, e.g. \"open a pull request\" or \"directions from Paris to Lyon\". "+
		"The best matches come back best first, each with its full definition (inputSchema) in structuredContent; "+
		"run one with call_tool. If none fits, search again with other words.", tools, len(servers))
	return []byte(`{"name":"search_tools","title":"Search tools","description":` + string(quote(desc)) +
		`,"inputSchema":{"type":"object","properties":{` +
		`"query":{"type":"string","description":"What you want to do, or words from a tool's name."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":50,"default":8,"description":"How many tools at most."},` +
		`"server":` + serverProp + `},"required":["query"]},` +
		`"annotations":{"readOnlyHint":true,"openWorldHint":false}}`)
}

// CallToolDefinition is call_tool's definition, as tools/list gives it.
var CallToolDefinition = []byte(`{"name":"call_tool","title":"Call a tool",` +
	`"description":"Run a tool that search_tools found: its exact name, and arguments that match its inputSchema. ` +
	`The answer is that tool's own result.",` +
	`"inputSchema":{"type":"object","properties":{` +
	`"name":{"type":"string","description":"The tool's name, as search_tools gave it."},` +
	`"arguments":{"type":"object","description":"The tool's arguments, as its inputSchema describes them."}},` +
	`"required":["name"]}}`)

// ErrInvalid marks an error in the arguments of search_tools or
// call_tool: the caller answers -32602 (invalid params) with its message.
var ErrInvalid = errors.New("invalid params")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// SearchArgs reads search_tools' arguments (a JSON object, or nothing):
// query, a string of at most MaxQuery characters (required); limit, a
// positive integer (optional; above MaxLimit it is MaxLimit); server, a
// string (optional). Errors wrap ErrInvalid.
func SearchArgs(arguments json.RawMessage) (Query, error) {
	var q Query
	arguments = bytes.TrimSpace(arguments)
	if len(arguments) == 0 || arguments[0] != '{' {
		return q, invalid(`search_tools: want arguments {"query": "what you want to do"}`)
	}
	query, ok := jsonrpc.Member(arguments, "query")
	if !ok {
		return q, invalid(`search_tools: "query" is required: say what you want to do`)
	}
	if err := json.Unmarshal(query, &q.Text); err != nil || query[0] != '"' {
		return q, invalid(`search_tools: "query" must be a string`)
	}
	if n := utf8.RuneCountInString(q.Text); n > MaxQuery {
		return q, invalid(`search_tools: "query" is %d characters, at most %d: say what you want to do in a few words`, n, MaxQuery)
	}
	if limit, ok := jsonrpc.Member(arguments, "limit"); ok && string(limit) != "null" {
		var f float64
		if err := json.Unmarshal(limit, &f); err != nil || f != math.Trunc(f) || f < 1 {
			return q, invalid(`search_tools: "limit" must be a positive integer (at most %d)`, MaxLimit)
		}
		q.Limit = int(min(f, MaxLimit))
	}
	if server, ok := jsonrpc.Member(arguments, "server"); ok && string(server) != "null" {
		if err := json.Unmarshal(server, &q.Server); err != nil || server[0] != '"' {
			return q, invalid(`search_tools: "server" must be a string, a server's name`)
		}
	}
	return q, nil
}

// CallParams turns the params of a tools/call of call_tool into the
// params of a direct tools/call of the tool it names (SPEC §4.10): name
// and arguments are taken from call_tool's arguments, every other member
// (_meta, task, fields this gateway does not know) is kept byte for byte,
// and the inner arguments reach the tool as the agent wrote them. It
// returns the tool's name too. Errors wrap ErrInvalid.
func CallParams(params []byte) (name string, direct []byte, err error) {
	args, ok := jsonrpc.Member(params, "arguments")
	if args = bytes.TrimSpace(args); !ok || len(args) == 0 || args[0] != '{' {
		return "", nil, invalid(`call_tool: want arguments {"name": "<tool>", "arguments": {...}}`)
	}
	rawName, ok := jsonrpc.Member(args, "name")
	if !ok || json.Unmarshal(rawName, &name) != nil || bytes.TrimSpace(rawName)[0] != '"' || name == "" {
		return "", nil, invalid(`call_tool: "name" must be the name of a tool, as search_tools gave it`)
	}
	if name == CallToolName || name == SearchToolsName {
		return "", nil, invalid(`call_tool: %s is called directly, not through call_tool`, name)
	}
	edit := jsonrpc.Edit{Key: "arguments"} // none given: the tool gets none
	if inner, ok := jsonrpc.Member(args, "arguments"); ok && strings.TrimSpace(string(inner)) != "null" {
		if inner = bytes.TrimSpace(inner); inner[0] != '{' {
			return "", nil, invalid(`call_tool: "arguments" must be an object, the tool's arguments`)
		}
		edit.Value = inner
	}
	direct, err = jsonrpc.SetMembers(params, jsonrpc.Edit{Key: "name", Value: jsonrpc.Quote(name)}, edit)
	if err != nil {
		return "", nil, fmt.Errorf("%w: call_tool: %w", ErrInvalid, err)
	}
	return name, direct, nil
}
