// Package conformance runs the official MCP conformance suites against the
// real mcp-gateway binary: @modelcontextprotocol/conformance 0.1.16 (legacy,
// 2025-11-25) and 0.2.0-alpha.12 (the npm alias conformance-next: the
// 2026-07-28 requirement set, its 2025-11-25 scenarios and the tasks
// extension), pinned in test/package.json. Every server scenario each
// suite lists (its own `list` command) runs, with each of two fixtures
// behind the gateway, one of each era, so that the bridges between the
// eras are tested too (runs_test.go):
//
//   - ./fixture: a legacy stdio server in Go, raw JSON-RPC, no SDK;
//   - test/fixtures/modern-server.mjs: a 2026-07-28 server on the
//     TypeScript SDK v2.
//
// Each suite runs once more with its own era's fixture served over
// Streamable HTTP (the Go fixture's -http, the modern fixture's --http)
// and reached by the gateway at its url (SPEC §5.6, §7.9): the same
// scenarios pass as over stdio.
//
// expected_test.go lists the checks that fail by design, each with its
// reason; a listed check that passes fails the test, so that the list stays
// honest. SCENARIOS.md says what each scenario sends and checks.
//
//	cd test && npm ci        # once
//	go test ./test/conformance/ -v -count=1
//	go test ./test/conformance/ -run 'TestConformance2026/legacy' -v
//
// The suites send no Authorization header, so each gateway gets a small
// reverse proxy in front that adds the bearer token and passes everything
// else (Host, Origin, SSE streams) through unchanged.
//
// Without node or test/node_modules the tests skip, unless CI=true, where
// they fail.
package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// suiteEnv is what every run needs, found and built once (TestMain).
type suiteEnv struct {
	root, node, shim string
	cli016, cliNext  string // the two runners' entry points
	modernFixture    string // test/fixtures/modern-server.mjs
	gatewayBin       string
	fixtureBin       string // ./fixture, built
	missing          string // why the suites cannot run here ("" when they can)
	buildErr         error
}

var env suiteEnv

const (
	buildTimeout    = 5 * time.Minute
	readyTimeout    = 60 * time.Second
	scenarioTimeout = 90 * time.Second
	stopTimeout     = 15 * time.Second
)

func TestMain(m *testing.M) {
	os.Setenv("MCP_GATEWAY_CODE_DIR", "off") // no code API at the default, a system path (SPEC §12.1)
	dir, err := os.MkdirTemp("", "mcp-gateway-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	env = findEnv(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// findEnv locates node and the runners and builds the gateway and the Go
// fixture into dir.
func findEnv(dir string) suiteEnv {
	wd, _ := os.Getwd()
	root := filepath.Join(wd, "..", "..")
	e := suiteEnv{
		root:          root,
		shim:          filepath.Join(root, "test", "conformance", "globsync-shim.mjs"),
		cli016:        filepath.Join(root, "test", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		cliNext:       filepath.Join(root, "test", "node_modules", "conformance-next", "dist", "index.js"),
		modernFixture: filepath.Join(root, "test", "fixtures", "modern-server.mjs"),
		gatewayBin:    filepath.Join(dir, "mcp-gateway"),
		fixtureBin:    filepath.Join(dir, "conformance-fixture"),
	}
	var missing []string
	var err error
	if e.node, err = exec.LookPath("node"); err != nil {
		missing = append(missing, "node is not on PATH")
	}
	for _, p := range []string{e.cli016, e.cliNext, filepath.Join(root, "test", "node_modules", "@modelcontextprotocol", "server", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, "test/node_modules lacks "+p+" (run `cd test && npm ci`)")
		}
	}
	e.missing = strings.Join(missing, "; ")
	if e.missing == "" {
		e.buildErr = goBuild(root, e.gatewayBin, "./cmd/mcp-gateway")
		if e.buildErr == nil {
			e.buildErr = goBuild(root, e.fixtureBin, "./test/conformance/fixture")
		}
	}
	return e
}

// need skips a test when the suites cannot run here (fails under
// CI=true), and fails it when the binaries did not build.
func need(t *testing.T) {
	t.Helper()
	if env.missing != "" {
		msg := "the MCP conformance suites cannot run: " + env.missing
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if env.buildErr != nil {
		t.Fatal(env.buildErr)
	}
}

// requireEnv skips a test unless the environment variable name is "1".
func requireEnv(t *testing.T, name, why string) {
	if os.Getenv(name) != "1" {
		t.Skipf("%s; set %s=1 to run it", why, name)
	}
}

func goBuild(root, out, pkg string) error {
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
