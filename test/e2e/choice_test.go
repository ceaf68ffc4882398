package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An entry's "tools" (SPEC §4.9) on real npm servers, seen by go-sdk's
// client: memory with a deny glob and a rename, everything with an array
// that names a tool it does not offer.
func TestToolsChoiceOnRealServers(t *testing.T) {
	nm := needNPM(t)
	dir := t.TempDir()
	catalog := fmt.Sprintf(`{"memory": {"description": "pinned", "command": [["node", %q]], "env": {"MEMORY_FILE_PATH": %q}}}`,
		filepath.Join(nm, "mcp-server-memory"), filepath.Join(dir, "memory.jsonl"))
	os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(catalog), 0o644)
	config := fmt.Sprintf(`{"memory": {"tools": {"deny": ["delete_*"], "rename": {"create_entities": "remember"}}},
		"everything": {"runCmd": "exec node %s", "tools": ["echo", "no_such_tool"]}}`, filepath.Join(nm, "mcp-server-everything"))
	g := launch(t, dir, config)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := goSDKSession(t, ctx, g)
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "remember") || !slices.Contains(names, "echo") || !slices.Contains(names, "read_graph") {
		t.Errorf("tools %v lack remember, echo or read_graph", names)
	}
	for _, n := range names {
		if strings.HasPrefix(n, "delete_") || n == "create_entities" || n == "add" || n == "everything_echo" {
			t.Errorf("tools %v hold %s, which the entries leave out", names, n)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{
		"entities": []any{map[string]any{"name": "Ada", "entityType": "person", "observations": []any{"engines"}}}}})
	if err != nil || res.IsError {
		t.Fatalf("remember: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_graph", Arguments: map[string]any{}})
	if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "engines") {
		t.Errorf("read_graph after remember: %v %+v", err, res)
	}
	for _, left := range []string{"delete_entities", "create_entities"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: left, Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), `unknown tool: "`+left+`"`) {
			t.Errorf("call of left-out %s: %v, want the error of an unknown tool", left, err)
		}
	}
	_, raw := getHealth(t, g)
	var h struct {
		Servers []struct {
			Name          string   `json:"name"`
			Tools         int      `json:"tools"`
			ToolsExported int      `json:"toolsExported"`
			Unmatched     []string `json:"unmatched"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(raw), &h); err != nil || len(h.Servers) != 2 {
		t.Fatalf("/health: %v %s", err, raw)
	}
	ev, mem := h.Servers[0], h.Servers[1]
	if ev.ToolsExported != 1 || ev.Tools < 5 || len(ev.Unmatched) != 1 || !strings.Contains(ev.Unmatched[0], `"no_such_tool"`) {
		t.Errorf("/health everything: %+v", ev)
	}
	if mem.ToolsExported != mem.Tools-3 || len(mem.Unmatched) != 0 {
		t.Errorf("/health memory: %+v, want 3 of its tools left out", mem)
	}
}
