package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var (
	root       string // the repo root
	gatewayBin string // built once for every test here
)

func TestMain(m *testing.M) {
	wd, _ := os.Getwd()
	root = filepath.Join(wd, "..", "..")
	os.Setenv("MCP_GATEWAY_CODE_DIR", "off") // no code API at the default, a system path (SPEC §12.1)
	dir, err := os.MkdirTemp("", "mcp-gateway-chaos-test-")
	if err != nil {
		panic(err)
	}
	gatewayBin = filepath.Join(dir, "mcp-gateway")
	build := exec.Command("go", "build", "-o", gatewayBin, "./cmd/mcp-gateway")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needNPM returns test/node_modules, or skips without it (fails in CI).
func needNPM(t *testing.T) string {
	t.Helper()
	nm := filepath.Join(root, "test", "node_modules")
	if _, err := os.Stat(filepath.Join(nm, ".bin", "mcp-server-everything")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("test/node_modules is missing in CI: run `cd test && npm ci`")
		}
		t.Skip("test/node_modules missing: run `make npm`")
	}
	return nm
}
