package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// The code API end to end (SPEC §12): the real binary writes the merged
// tools of the real npm servers under --code-dir, and Python and Node
// snippets, run as an agent's code is (a process of their own, the code
// dir on their path, no setup but the token), call them.

// codeDir is where launchEnv's daemons write their code API.
func (g *gateway) codeDir() string { return filepath.Join(g.dir, "code") }

// waitCode waits until the code API at dir is written and ok says it is
// the one wanted.
func waitCode(t *testing.T, dir, what string, ok func(index string) bool) {
	t.Helper()
	testwait.For(t, 45*time.Second, what, func() bool {
		b, err := os.ReadFile(filepath.Join(dir, "INDEX.md"))
		return err == nil && ok(string(b))
	})
}

// logLines is the log the snippets filter: 2,000 lines, 1 in 100 an ERROR.
func logLines() string {
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		level := "INFO"
		if i%100 == 7 {
			level = "ERROR"
		}
		fmt.Fprintf(&b, "2026-12-03T12:%02d:%02d %s request %d served by worker %d in %d ms\n", i/60%60, i%60, level, i, i%8, 3+i%97)
	}
	return b.String()
}

// pySnippet is an agent's code: read a file with one tool, keep its
// ERROR lines, write them with another, remember the count in memory,
// and print one line for the model.
const pySnippet = `import json, sys
from mcp_tools import filesystem, memory

src, dst = sys.argv[1], sys.argv[2]
text = filesystem.read_text_file(path=src)["content"]
errors = [line for line in text.splitlines() if " ERROR " in line]
filesystem.write_file(path=dst, content="\n".join(errors) + "\n")
memory.create_entities(entities=[{"name": "errors", "entityType": "count", "observations": [str(len(errors))]}])
try:
    filesystem.read_text_file(path="/etc/passwd")
    print("no ToolError")
except filesystem.ToolError as e:
    denied = "denied" in str(e) or "outside" in str(e)
print(json.dumps({"lines": len(text.splitlines()), "errors": len(errors), "denied": denied}))
`

// jsSnippet is the same work in Node.
const jsSnippet = `const [dir, src, dst] = process.argv.slice(1);
const fsTools = await import(dir + "/js/filesystem/index.mjs");
const { read_graph } = await import(dir + "/js/memory/index.mjs");
const text = (await fsTools.read_text_file({ path: src })).content;
const errors = text.split("\n").filter((l) => l.includes(" ERROR "));
await fsTools.write_file({ path: dst, content: errors.join("\n") + "\n" });
const graph = await read_graph({});
let denied = false;
try { await fsTools.read_text_file({ path: "/etc/passwd" }); } catch (e) { denied = e instanceof fsTools.ToolError; }
console.log(JSON.stringify({ errors: errors.length, entities: graph.entities.map((e) => e.name), denied }));
`

// runPython runs code as an agent's Python: python3 in a directory of
// its own, the code dir's python/ on PYTHONPATH, env added.
func runPython(t *testing.T, codeDir, code string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("python3", append([]string{"-B", "-c", code}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(append(withoutToken(os.Environ()), "PYTHONPATH="+filepath.Join(codeDir, "python")), env...)
	return runAgent(cmd)
}

// runNode runs code as an agent's Node script (ESM), the code dir its
// first argument.
func runNode(t *testing.T, codeDir, code string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("node", append([]string{"--input-type=module", "-e", code, codeDir}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(withoutToken(os.Environ()), env...)
	return runAgent(cmd)
}

// runAgent runs an agent's script: its stdout, and its stderr after it
// when it fails.
func runAgent(cmd *exec.Cmd) (string, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String() + errb.String(), err
	}
	return out.String(), nil
}

func withoutToken(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "MCP_GATEWAY_TOKEN=") && !strings.HasPrefix(kv, "GATEWAY_ACCESS_TOKEN=") {
			out = append(out, kv)
		}
	}
	return out
}

func needCodeTools(t *testing.T) {
	t.Helper()
	for _, b := range []string{"python3", "node"} {
		if _, err := exec.LookPath(b); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing in CI", b)
			}
			t.Skipf("%s not found", b)
		}
	}
}

// checkTreeSafe checks SPEC §12.1's rules over the tree at dir: readable
// by all (files 0644, directories 0755) and no token in any file.
func checkTreeSafe(t *testing.T, dir, token string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		want := os.FileMode(0o644)
		if d.IsDir() {
			want = 0o755 | os.ModeDir
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
		if !d.IsDir() {
			n++
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(token)) {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
	if err != nil || n < 10 {
		t.Fatalf("walk %s: %v (%d files)", dir, err, n)
	}
}

// TestCodeSnippetsCallRealServers: the tree of filesystem, memory and
// everything is written at ready, is safe, and a Python and a Node
// snippet do real work through it: the Python one with the token from
// the token file (code running as root), the Node one with
// MCP_GATEWAY_TOKEN (code of another user), which a wrong value refuses.
func TestCodeSnippetsCallRealServers(t *testing.T) {
	needCodeTools(t)
	g := startGateway(t)
	code := g.codeDir()
	waitCode(t, code, "the code API of three servers", func(index string) bool {
		return strings.Contains(index, "## filesystem:") && strings.Contains(index, "## memory:") && strings.Contains(index, "## everything:")
	})
	checkTreeSafe(t, code, g.token)
	var conf struct{ URL, TokenFile string }
	b, _ := os.ReadFile(filepath.Join(code, "gateway.json"))
	if err := json.Unmarshal(b, &conf); err != nil || conf.URL != g.url || conf.TokenFile != filepath.Join(g.dir, "token") {
		t.Errorf("gateway.json %s (%v): want url %s and the token file", b, err, g.url)
	}

	data := filepath.Join(g.dir, "data")
	src := filepath.Join(data, "app.log")
	os.WriteFile(src, []byte(logLines()), 0o644)
	out, err := runPython(t, code, pySnippet, nil, src, filepath.Join(data, "errors-py.log"))
	if err != nil {
		t.Fatalf("python snippet: %v\n%s", err, out)
	}
	if strings.TrimSpace(out) != `{"lines": 2000, "errors": 20, "denied": true}` {
		t.Errorf("python snippet printed %q", out)
	}
	got, _ := os.ReadFile(filepath.Join(data, "errors-py.log"))
	if n := strings.Count(string(got), " ERROR "); n != 20 || strings.Count(string(got), "\n") != 20 {
		t.Errorf("errors-py.log has %d ERROR lines:\n%s", n, got)
	}

	out, err = runNode(t, code, jsSnippet, []string{"MCP_GATEWAY_TOKEN=" + g.token}, src, filepath.Join(data, "errors-js.log"))
	if err != nil {
		t.Fatalf("node snippet: %v\n%s", err, out)
	}
	if strings.TrimSpace(out) != `{"errors":20,"entities":["errors"],"denied":true}` {
		t.Errorf("node snippet printed %q", out)
	}
	if js, _ := os.ReadFile(filepath.Join(data, "errors-js.log")); !bytes.Equal(js, got) {
		t.Errorf("the two snippets wrote different files")
	}
	out, err = runNode(t, code, jsSnippet, []string{"MCP_GATEWAY_TOKEN=wrong"}, src, filepath.Join(data, "x.log"))
	if err == nil || !strings.Contains(out, "HTTP 401") {
		t.Errorf("a wrong MCP_GATEWAY_TOKEN: %v\n%s", err, out)
	}

	modelBytes(t, g, code, src)
}

// modelBytes measures what reaches the model for the Python snippet's
// work done two ways (docs/code.md has the figures): through tools/call,
// the tool definitions (tools/list), the file's text in read_text_file's
// result, the filtered lines in write_file's arguments and its result;
// through code, INDEX.md and the two tools' files it reads, the snippet
// it writes and what the snippet prints.
func modelBytes(t *testing.T, g *gateway, code, src string) {
	t.Helper()
	list := modernCall(t, g, "tools/list", "", `{}`)
	read := modernCall(t, g, "tools/call", "read_text_file", fmt.Sprintf(`{"name":"read_text_file","arguments":{"path":%q}}`, src))
	var text string
	var r struct {
		StructuredContent struct{ Content string } `json:"structuredContent"`
	}
	if err := json.Unmarshal(read, &r); err != nil || r.StructuredContent.Content == "" {
		t.Fatalf("read_text_file: %v %.200s", err, read)
	}
	text = r.StructuredContent.Content
	var errs []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, " ERROR ") {
			errs = append(errs, l)
		}
	}
	args, _ := json.Marshal(map[string]any{"name": "write_file", "arguments": map[string]string{"path": filepath.Join(filepath.Dir(src), "errors-mcp.log"), "content": strings.Join(errs, "\n") + "\n"}})
	write := modernCall(t, g, "tools/call", "write_file", string(args))
	mcpDefs, mcpWork := len(list), len(read)+len(args)+len(write)

	index, _ := os.ReadFile(filepath.Join(code, "INDEX.md"))
	readPy, _ := os.ReadFile(filepath.Join(code, "python/mcp_tools/filesystem/read_text_file.py"))
	writePy, _ := os.ReadFile(filepath.Join(code, "python/mcp_tools/filesystem/write_file.py"))
	out, err := runPython(t, code, pySnippet, nil, src, filepath.Join(filepath.Dir(src), "errors-py2.log"))
	if err != nil {
		t.Fatalf("python snippet: %v\n%s", err, out)
	}
	codeDefs, codeWork := len(index)+len(readPy)+len(writePy), len(pySnippet)+len(out)
	t.Logf("bytes to the model: tools/call: definitions %d + work %d = %d; code: INDEX.md and 2 tool files %d + snippet and its output %d = %d (%.1f%%)",
		mcpDefs, mcpWork, mcpDefs+mcpWork, codeDefs, codeWork, codeDefs+codeWork, 100*float64(codeDefs+codeWork)/float64(mcpDefs+mcpWork))
	if codeDefs+codeWork >= (mcpDefs+mcpWork)/4 {
		t.Errorf("code: %d bytes to the model, not under a quarter of tools/call's %d", codeDefs+codeWork, mcpDefs+mcpWork)
	}
}

// modernCall makes one MCP 2026-07-28 request (as the runtime does) and
// returns its result, raw.
func modernCall(t *testing.T, g *gateway, method, name, params string) json.RawMessage {
	t.Helper()
	var p map[string]json.RawMessage
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		t.Fatal(err)
	}
	p["_meta"] = json.RawMessage(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"}}`)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	req, _ := http.NewRequest("POST", g.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+g.token)
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "text/event-stream") {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "data:") && strings.Contains(line, `"id":1`) {
				b = []byte(strings.TrimSpace(strings.TrimPrefix(line, "data:")))
			}
		}
	}
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(b, &m); err != nil || m.Result == nil {
		t.Fatalf("%s %s: HTTP %d %v %.300s", method, name, resp.StatusCode, err, b)
	}
	return m.Result
}

// TestCodeFollowsACatalogReload: a catalog change that gives a server
// other tools changes the files (SPEC §12.1): memory's entry now runs
// sequential-thinking, and its tools' files follow; filesystem's stay.
func TestCodeFollowsACatalogReload(t *testing.T) {
	needCodeTools(t)
	nm := needNPM(t)
	g := startGateway(t)
	code := g.codeDir()
	waitCode(t, code, "memory's tools in the code API", func(index string) bool { return strings.Contains(index, "## memory:") })
	if _, err := os.Stat(filepath.Join(code, "python/mcp_tools/memory/create_entities.py")); err != nil {
		t.Fatal(err)
	}
	fsBefore, _ := os.ReadFile(filepath.Join(code, "js/filesystem/read_text_file.mjs"))
	catalog := fmt.Sprintf(`{
	  "memory": {"description": "pinned", "command": [["node", %q]]},
	  "filesystem": {"description": "pinned", "command": [["node", %q], ["{{paths}}"]], "properties": {"paths": {"type": "array", "required": true}}}
	}`, filepath.Join(nm, "mcp-server-sequential-thinking"), filepath.Join(nm, "mcp-server-filesystem"))
	if err := os.WriteFile(filepath.Join(g.dir, "catalog.json"), []byte(catalog), 0o644); err != nil {
		t.Fatal(err)
	}
	// The watcher reloads on the change; the files follow the new list.
	waitCode(t, code, "memory's new tools in the code API", func(index string) bool {
		_, err := os.Stat(filepath.Join(code, "python/mcp_tools/memory/sequentialthinking.py"))
		return err == nil && strings.Contains(index, "## memory: 1 tool")
	})
	if _, err := os.Stat(filepath.Join(code, "python/mcp_tools/memory/create_entities.py")); !os.IsNotExist(err) {
		t.Errorf("create_entities.py is still there after the reload (%v)", err)
	}
	if fsAfter, _ := os.ReadFile(filepath.Join(code, "js/filesystem/read_text_file.mjs")); !bytes.Equal(fsBefore, fsAfter) || len(fsAfter) == 0 {
		t.Errorf("filesystem's files changed with memory's reload")
	}
	out, err := runPython(t, code, "from mcp_tools import memory\nprint(memory.__all__)", nil)
	if err != nil || strings.TrimSpace(out) != "['sequentialthinking']" {
		t.Errorf("the new memory package: %v %s", err, out)
	}
}

// TestCodeOut: `mcp-gateway code --out DIR` writes the running daemon's
// tree, which compiles (py_compile, node --check, tsc --noEmit) and calls
// the daemon; without a daemon it fails and says so.
// (codeapi's tests run node --check on every file of the real tool set.)
func TestCodeOut(t *testing.T) {
	needCodeTools(t)
	tsc := filepath.Join(needNPM(t), "tsc")
	g := startGateway(t)
	out := filepath.Join(t.TempDir(), "tree")
	res, err := exec.Command(gatewayBin, "code", "--out", out, "--run-dir", filepath.Join(g.dir, "run")).CombinedOutput()
	if err != nil || !strings.Contains(string(res), "wrote ") || !strings.Contains(string(res), "of 3 servers") {
		t.Fatalf("code --out: %v\n%s", err, res)
	}
	checkTreeSafe(t, out, g.token)
	var py, mjs, dts []string
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		switch filepath.Ext(p) {
		case ".py":
			py = append(py, p)
		case ".mjs":
			mjs = append(mjs, p)
		case ".ts":
			dts = append(dts, p)
		}
		return nil
	})
	script := "import py_compile, sys, tempfile\nd = tempfile.mkdtemp()\nfor i, p in enumerate(sys.argv[1:]):\n    py_compile.compile(p, cfile='%s/%d.pyc' % (d, i), doraise=True)\n"
	if b, err := exec.Command("python3", append([]string{"-c", script}, py...)...).CombinedOutput(); err != nil {
		t.Errorf("py_compile: %v\n%s", err, b)
	}
	// Importing a module compiles it: one node for every .mjs.
	imports := "for (const f of process.argv.slice(1)) await import(f);"
	if b, err := exec.Command("node", append([]string{"--input-type=module", "-e", imports}, mjs...)...).CombinedOutput(); err != nil {
		t.Errorf("node import: %v\n%s", err, b)
	}
	// In the tree, away from test/node_modules/@types, as a user's tsc would be.
	tscCmd := exec.Command(tsc, append([]string{"--noEmit", "--strict", "--lib", "es2020", "--target", "es2020"}, dts...)...)
	tscCmd.Dir = out
	if b, err := tscCmd.CombinedOutput(); err != nil {
		t.Errorf("tsc --noEmit: %v\n%s", err, b)
	}
	sum, err := runPython(t, out, "from mcp_tools import everything\nprint(everything.get_sum(a=2, b=3))", []string{"MCP_GATEWAY_TOKEN=" + g.token})
	if err != nil || !strings.Contains(sum, "5") {
		t.Errorf("a call through the --out tree: %v %s", err, sum)
	}

	res, err = exec.Command(gatewayBin, "code", "--out", out, "--run-dir", filepath.Join(t.TempDir(), "run")).CombinedOutput()
	if code := exitCode(err); code != 1 || !strings.Contains(string(res), "no gateway is running") {
		t.Errorf("code --out with no daemon: exit %d\n%s", code, res)
	}
}

func exitCode(err error) int {
	if x, ok := err.(*exec.ExitError); ok {
		return x.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}
