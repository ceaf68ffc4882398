package realtools

import (
	"encoding/json"
	"testing"
)

func TestLoad(t *testing.T) {
	tools := Load(t)
	if len(tools) < 100 {
		t.Errorf("%d tools, want at least 100", len(tools))
	}
	perServer := map[string]int{}
	for i, tool := range tools {
		perServer[tool.Server]++
		if i > 0 && tools[i-1].Server > tool.Server {
			t.Errorf("tool %d: server %s after %s: want name order", i, tool.Server, tools[i-1].Server)
		}
		var def struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(tool.Definition, &def); err != nil || def.Name != tool.Name || len(def.InputSchema) == 0 {
			t.Errorf("tool %d (%s/%s): definition %.100s", i, tool.Server, tool.Name, tool.Definition)
		}
	}
	for _, s := range servers {
		if perServer[s.name] == 0 {
			t.Errorf("server %s listed no tools", s.name)
		}
	}
	t.Logf("%d tools from %d servers: %v", len(tools), len(perServer), perServer)
}
