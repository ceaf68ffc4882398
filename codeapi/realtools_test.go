package codeapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/names"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// The real tool set: the npm reference servers pinned in test/package.json,
// their tools/list collected over stdio and merged as the gateway merges
// them (config-key order, SPEC §4.1–4.2 names). testdata/realtools.json
// keeps the merged list, so that the compile, size and benchmark tests
// need no server; TestRealToolsCollected checks it against the servers
// (go test -run TestRealToolsCollected -update rewrites it).

var update = flag.Bool("update", false, "rewrite testdata/realtools.json from the npm servers")

// realServer is one entry of the real set: its binary in
// test/node_modules/.bin and its arguments. filesystem is configured
// twice, as a sandbox with two roots would be: 113 tools in all, 14 of
// them exported prefixed.
var realServerSet = map[string][]string{
	"brave-search":        {"mcp-server-brave-search"},
	"everything":          {"mcp-server-everything", "stdio"},
	"filesystem":          {"mcp-server-filesystem", "{tmp}"},
	"filesystem-tmp":      {"mcp-server-filesystem", "{tmp}"},
	"github":              {"mcp-server-github"},
	"gitlab":              {"mcp-server-gitlab"},
	"google-maps":         {"mcp-server-google-maps"},
	"memory":              {"mcp-server-memory"},
	"pdf":                 {"mcp-pdf-server", "--stdio"},
	"postgres":            {"mcp-server-postgres", "postgresql://127.0.0.1:1/none"},
	"sequential-thinking": {"mcp-server-sequential-thinking"},
	"slack":               {"mcp-server-slack"},
}

// collectReal starts each server, reads its instructions and tools, and
// merges them; it returns the merged list and the bytes of the tools/list
// result the gateway would give for it.
func collectReal(t *testing.T) []Server {
	bin := filepath.Join(repoRoot(t), "test", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "mcp-server-everything")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("test/node_modules is missing in CI")
		}
		t.Skip("test/node_modules missing: run `make npm`")
	}
	keys := make([]string, 0, len(realServerSet))
	for k := range realServerSet {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tmp := t.TempDir()
	type listed struct {
		instructions string
		tools        []json.RawMessage
		names        []string
	}
	lists := map[string]listed{}
	toolNames := map[string][]string{}
	for _, k := range keys {
		argv := append([]string{filepath.Join(bin, realServerSet[k][0])}, realServerSet[k][1:]...)
		for i := range argv {
			argv[i] = strings.ReplaceAll(argv[i], "{tmp}", tmp)
		}
		instr, tools := stdioList(t, k, argv, tmp)
		l := listed{instructions: instr, tools: tools}
		for _, def := range tools {
			n, _ := jsonrpc.Member(def, "name")
			s, _ := jsonrpc.Text(n)
			l.names = append(l.names, s)
		}
		lists[k], toolNames[k] = l, l.names
	}
	exported, dropped := names.Assign(keys, toolNames)
	if len(dropped) > 0 {
		t.Fatalf("dropped %v", dropped)
	}
	var out []Server
	for _, k := range keys {
		s := Server{Name: k, Description: lists[k].instructions}
		for i, def := range lists[k].tools {
			name := exported[names.Ref{Server: k, Name: lists[k].names[i]}]
			if name != lists[k].names[i] {
				def, _ = jsonrpc.Replace(def, "name", jsonrpc.Quote(name))
			}
			s.Tools = append(s.Tools, Tool{Name: name, Definition: def})
		}
		out = append(out, s)
	}
	return out
}

// stdioList initialises one server over stdio (legacy) and lists its
// tools, every page.
func stdioList(t *testing.T, name string, argv []string, dir string) (string, []json.RawMessage) {
	t.Helper()
	cmd := exec.Command("node", argv...)
	cmd.Dir = dir
	// Placeholder credentials: the servers list their tools without using them.
	cmd.Env = append(os.Environ(), "GITHUB_PERSONAL_ACCESS_TOKEN=unused", "GITLAB_PERSONAL_ACCESS_TOKEN=unused",
		"GOOGLE_MAPS_API_KEY=unused", "BRAVE_API_KEY=unused", "SLACK_BOT_TOKEN=unused", "SLACK_TEAM_ID=unused",
		"MEMORY_FILE_PATH="+filepath.Join(dir, "memory.jsonl"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	defer func() {
		_ = cmd.Process.Kill()
		<-done
	}()
	go func() { _ = cmd.Wait(); close(done) }()
	timer := time.AfterFunc(60*time.Second, func() { _ = cmd.Process.Kill() }) // a hung server fails the test, never hangs it
	defer timer.Stop()
	lines := bufio.NewReaderSize(stdout, 1<<20)
	send := func(s string) { _, _ = stdin.Write([]byte(s + "\n")) }
	await := func(id string) json.RawMessage {
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("%s: no answer to %s: %v", name, id, err)
			}
			m, err := jsonrpc.Decode(bytes.TrimSpace(line))
			if err != nil || string(m.ID) != id {
				continue
			}
			if m.Error != nil {
				t.Fatalf("%s: %s", name, m.Error)
			}
			return m.Result
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"codeapi-test","version":"1"}}}`)
	init := await("1")
	var instr string
	if v, ok := jsonrpc.Member(init, "instructions"); ok {
		instr, _ = jsonrpc.Text(v)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	var tools []json.RawMessage
	cursor := ""
	for page := 2; ; page++ {
		params := `{}`
		if cursor != "" {
			c, _ := json.Marshal(cursor)
			params = `{"cursor":` + string(c) + `}`
		}
		id := itoa(page)
		send(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list","params":` + params + `}`)
		res := await(id)
		var r struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &r); err != nil {
			t.Fatalf("%s: tools/list: %v", name, err)
		}
		tools = append(tools, r.Tools...)
		if cursor = r.NextCursor; cursor == "" {
			return instr, tools
		}
	}
}

type realFile struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Tools       []json.RawMessage `json:"tools"`
}

func TestRealToolsCollected(t *testing.T) {
	need(t, "node")
	servers := collectReal(t)
	var file []realFile
	for _, s := range servers {
		rf := realFile{Name: s.Name, Description: s.Description}
		for _, tl := range s.Tools {
			rf.Tools = append(rf.Tools, tl.Definition)
		}
		file = append(file, rf)
	}
	b, err := json.MarshalIndent(file, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "realtools.json")
	if *update {
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, _ := os.ReadFile(path)
	if !bytes.Equal(bytes.TrimSpace(old), b) {
		t.Errorf("%s differs from what the pinned servers list: run go test ./codeapi -run TestRealToolsCollected -update", path)
	}
}

// toolsListBytes is the size of a tools/list result of the whole merged
// list, as the gateway sends it (SPEC §12.5's measure).
func toolsListBytes(servers []Server) int {
	n := len(`{"tools":[]}`)
	for _, s := range servers {
		for _, tl := range s.Tools {
			n += len(tl.Definition) + 1
		}
	}
	return n - 1
}

func TestRealToolsCompile(t *testing.T) {
	servers := fixture(t, "realtools.json")
	tools := 0
	for _, s := range servers {
		tools += len(s.Tools)
	}
	if tools < 100 {
		t.Fatalf("the real set has %d tools, fewer than 100", tools)
	}
	dir := filepath.Join(t.TempDir(), "code")
	in := Input{Servers: servers, URL: "http://127.0.0.1:1/mcp", TokenFile: "/etc/mcp-gateway/.token"}
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	checkCompiles(t, dir)
	checkSizes(t, dir, in)
	index, _ := os.ReadFile(filepath.Join(dir, "INDEX.md"))
	list := toolsListBytes(servers)
	t.Logf("%d tools: INDEX.md %d bytes, tools/list %d bytes (%.1f %%)", tools, len(index), list, 100*float64(len(index))/float64(list))
	if len(index)*10 > list {
		t.Errorf("INDEX.md is %d bytes, over 10 %% of tools/list's %d (SPEC §12.5)", len(index), list)
	}
}
