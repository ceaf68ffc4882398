package codeapi

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Tests of the generated tree (SPEC §12.2, §12.4, §12.5): it compiles with
// the real python3, node and tsc, whatever the names and schemas.

// fixture reads a testdata file of servers: [{name, description, tools:
// [definition, ...]}], each tool's exported name its definition's "name".
func fixture(t testing.TB, name string) []Server {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return serversOf(t, b)
}

func serversOf(t testing.TB, b []byte) []Server {
	t.Helper()
	var raw []struct {
		Name        string            `json:"name"`
		Description string            `json:"description"`
		Tools       []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	var out []Server
	for _, s := range raw {
		srv := Server{Name: s.Name, Description: s.Description}
		for _, def := range s.Tools {
			var n struct{ Name string }
			if err := json.Unmarshal(def, &n); err != nil {
				t.Fatal(err)
			}
			srv.Tools = append(srv.Tools, Tool{Name: n.Name, Definition: def})
		}
		out = append(out, srv)
	}
	return out
}

// repoRoot is the repository's root (for test/node_modules).
func repoRoot(t testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

// need skips a test without the tools it runs (CI has them all).
func need(t testing.TB, bins ...string) {
	t.Helper()
	for _, b := range bins {
		if _, err := exec.LookPath(b); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing in CI", b)
			}
			t.Skipf("%s not found", b)
		}
	}
}

func tscPath(t testing.TB) string {
	t.Helper()
	p := filepath.Join(repoRoot(t), "test", "node_modules", ".bin", "tsc")
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("test/node_modules is missing in CI: run `cd test && npm ci`")
		}
		t.Skip("test/node_modules missing: run `make npm`")
	}
	return p
}

// checkCompiles runs every generated file through its compiler: python3
// -m py_compile (and ast.parse at Python 3.8's grammar), node --check,
// and tsc --noEmit --strict over the .d.ts, then imports every server's
// package in both languages.
func checkCompiles(t *testing.T, dir string) {
	t.Helper()
	need(t, "python3", "node")
	tsc := tscPath(t)
	var py, mjs, dts []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			t.Fatal(err)
		case strings.HasSuffix(p, ".py"):
			py = append(py, p)
		case strings.HasSuffix(p, ".mjs"):
			mjs = append(mjs, p)
		case strings.HasSuffix(p, ".d.ts"):
			dts = append(dts, p)
		}
		return nil
	})
	if len(py) == 0 || len(mjs) == 0 || len(dts) == 0 {
		t.Fatalf("no files: %d .py, %d .mjs, %d .d.ts", len(py), len(mjs), len(dts))
	}
	script := `import ast, py_compile, sys, tempfile
tmp = tempfile.mkdtemp()
for i, p in enumerate(sys.argv[1:]):
    py_compile.compile(p, cfile=tmp + "/%d.pyc" % i, doraise=True)
    with open(p, encoding="utf-8") as f:
        ast.parse(f.read(), p, feature_version=(3, 8))
`
	run(t, exec.Command("python3", append([]string{"-c", script}, py...)...))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for _, f := range mjs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if out, err := exec.Command("node", "--check", f).CombinedOutput(); err != nil {
				t.Errorf("node --check %s: %v\n%s", f, err, out)
			}
		}()
	}
	wg.Wait()
	run(t, exec.Command(tsc, append([]string{"--noEmit", "--strict", "--lib", "es2020", "--target", "es2020"}, dts...)...))
	// Import every package: names resolve, nothing runs a type.
	imports := "import sys\nsys.path.insert(0, sys.argv[1] + '/python')\nimport importlib, os, mcp_tools\n" +
		"for s in sorted(os.listdir(sys.argv[1] + '/python/mcp_tools')):\n" +
		"    if not s.startswith('_'):\n        m = importlib.import_module('mcp_tools.' + s)\n        assert all(callable(getattr(m, n)) for n in m.__all__)\n"
	run(t, exec.Command("python3", "-B", "-c", imports, dir))
	js := `const fs = await import("node:fs");
const dir = process.argv[1];
for (const s of fs.readdirSync(dir + "/js").filter((s) => !s.endsWith(".mjs"))) {
  const m = await import(dir + "/js/" + s + "/index.mjs");
  for (const [k, v] of Object.entries(m)) if (typeof v !== "function") throw new Error(s + "." + k + " is not a function");
}`
	run(t, exec.Command("node", "--input-type=module", "-e", js, dir))
}

func run(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args[:min(len(cmd.Args), 3)], " "), err, out)
	}
	return string(out)
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func TestHostileFixtureCompiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "code")
	in := Input{Servers: fixture(t, "hostile.json"), URL: "http://127.0.0.1:1/mcp", TokenFile: "/nonexistent/token"}
	if err := Write(dir, in); err != nil {
		t.Fatal(err)
	}
	checkCompiles(t, dir)
	checkSizes(t, dir, in)
}

// checkSizes checks SPEC §12.5's bound on every tool's files.
func checkSizes(t *testing.T, dir string, in Input) {
	t.Helper()
	for _, s := range layoutOf(in.Servers) {
		for _, tl := range s.tools {
			if !identRE.MatchString(tl.file) || !identRE.MatchString(s.ident) {
				t.Errorf("identifiers %q/%q", s.ident, tl.file)
			}
			for _, f := range []string{"python/mcp_tools/" + s.ident + "/" + tl.file + ".py", "js/" + s.ident + "/" + tl.file + ".mjs", "js/" + s.ident + "/" + tl.file + ".d.ts"} {
				fi, err := os.Stat(filepath.Join(dir, f))
				if err != nil {
					t.Errorf("%s: %v", f, err)
					continue
				}
				if fi.Size() > int64(tl.size+sizeSlack) {
					t.Errorf("%s is %d bytes, over its definition's %d + 1.5 KB", f, fi.Size(), tl.size)
				}
			}
		}
	}
}

// layoutOf is layout with nothing rendered before, its servers only.
func layoutOf(in []Server) []*serverOut {
	servers, _ := layout(in, nil)
	return servers
}
