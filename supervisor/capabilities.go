package supervisor

import (
	"encoding/json"
	"strings"
)

// Capabilities is what a server declared it offers, in initialize's
// result (legacy) or server/discover's (modern), as far as the gateway
// acts on it (MCP 2025-11-25 and 2026-07-28 ServerCapabilities): which
// lists to ask for (SPEC §3.8), which list changes it announces, whether
// it takes resource subscriptions (§4.8), completion and logging. A
// capability is declared when its member is an object (null or absent:
// not).
type Capabilities struct {
	Tools, ToolsListChanged                             bool
	Prompts, PromptsListChanged                         bool
	Resources, ResourcesSubscribe, ResourcesListChanged bool
	Completions, Logging                                bool
}

// parseCapabilities reads a ServerCapabilities object; anything it
// cannot read declares nothing.
func parseCapabilities(raw json.RawMessage) Capabilities {
	type flags struct {
		ListChanged bool `json:"listChanged"`
		Subscribe   bool `json:"subscribe"`
	}
	var c struct {
		Tools       *flags           `json:"tools"`
		Prompts     *flags           `json:"prompts"`
		Resources   *flags           `json:"resources"`
		Completions *json.RawMessage `json:"completions"`
		Logging     *json.RawMessage `json:"logging"`
	}
	_ = json.Unmarshal(raw, &c)
	var caps Capabilities
	if c.Tools != nil {
		caps.Tools, caps.ToolsListChanged = true, c.Tools.ListChanged
	}
	if c.Prompts != nil {
		caps.Prompts, caps.PromptsListChanged = true, c.Prompts.ListChanged
	}
	if c.Resources != nil {
		caps.Resources, caps.ResourcesSubscribe, caps.ResourcesListChanged = true, c.Resources.Subscribe, c.Resources.ListChanged
	}
	caps.Completions = isObject(c.Completions)
	caps.Logging = isObject(c.Logging)
	return caps
}

// instructionsOf is what a server says to read first: its instructions,
// else the description in its serverInfo (MCP Implementation), trimmed;
// "" when neither.
func instructionsOf(instructions string, serverInfo json.RawMessage) string {
	if s := strings.TrimSpace(instructions); s != "" {
		return s
	}
	var info struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(serverInfo, &info)
	return strings.TrimSpace(info.Description)
}

func isObject(raw *json.RawMessage) bool { return raw != nil && len(*raw) > 0 && (*raw)[0] == '{' }
