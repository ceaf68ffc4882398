// Package testbin serves the test packages that run the gateway from
// outside, as a user would (test/e2e, test/chaos): it builds the binary
// once per package and finds the npm packages pinned in test/package.json.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Root is the repository's root: the nearest directory above the working
// directory (a test's package directory) that holds go.mod; the working
// directory itself if none does.
func Root() string {
	wd, _ := os.Getwd()
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return wd
		}
	}
}

// Main is a TestMain's body: it builds ./cmd/mcp-gateway into a temporary
// directory named from prefix, sets *bin to the binary, turns code mode
// off for the gateways the tests start without --code-dir (its default is
// a system path, SPEC §12.1), runs m, and removes the directory. It
// returns m's exit code, or 1 when the build fails (its output on stderr).
func Main(m *testing.M, prefix string, bin *string) int {
	os.Setenv("MCP_GATEWAY_CODE_DIR", "off")
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	*bin = filepath.Join(dir, "mcp-gateway")
	build := exec.Command("go", "build", "-o", *bin, "./cmd/mcp-gateway")
	build.Dir = Root()
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// NodeModules returns test/node_modules, or skips t when its servers are
// not installed; under CI=true their absence fails t instead, so that no
// test can vanish there.
func NodeModules(t testing.TB) string {
	t.Helper()
	nm := filepath.Join(Root(), "test", "node_modules")
	if _, err := os.Stat(filepath.Join(nm, ".bin", "mcp-server-everything")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("test/node_modules is missing in CI: run `cd test && npm ci`")
		}
		t.Skip("test/node_modules missing: run `make npm`")
	}
	return nm
}
