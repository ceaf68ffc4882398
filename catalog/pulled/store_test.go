package pulled

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeNPM installs as `npm install --prefix <dir> <spec>` would: the
// package's package.json under node_modules, its bins linked into
// node_modules/.bin. bins is the package.json "bin" value, raw.
func fakeNPM(version, bins string, links ...string) Exec {
	return func(_ context.Context, dir string, _ []string, argv []string, out io.Writer) error {
		if argv[0] != "npm" || argv[1] != "install" || argv[2] != "--prefix" || argv[3] != dir {
			return fmt.Errorf("unexpected command %q", argv)
		}
		spec := argv[len(argv)-1]
		name := (Run{Manager: NPM, Spec: spec}).Package()
		pkg := filepath.Join(dir, "node_modules", name)
		if err := os.MkdirAll(filepath.Join(dir, "node_modules", ".bin"), 0o755); err != nil {
			return err
		}
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			return err
		}
		manifest := fmt.Sprintf(`{"name":%q,"version":%q,"bin":%s}`, name, version, bins)
		if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(manifest), 0o644); err != nil {
			return err
		}
		for _, l := range links {
			if err := os.WriteFile(filepath.Join(dir, "node_modules", ".bin", l), []byte("#!/bin/sh\n"), 0o755); err != nil {
				return err
			}
		}
		fmt.Fprintln(out, "added 1 package")
		return nil
	}
}

// fakeUV installs as uv's documentation says `uv tool install` does
// (the tool's executables into UV_TOOL_BIN_DIR) and lists as `uv tool
// list` prints ("name vX.Y" then "- exe" lines).
func fakeUV(t *testing.T, version string, exes ...string) Exec {
	return func(_ context.Context, _ string, env []string, argv []string, out io.Writer) error {
		get := lookup(env)
		binDir, toolDir := get("UV_TOOL_BIN_DIR"), get("UV_TOOL_DIR")
		if binDir == "" || toolDir == "" {
			t.Errorf("uv ran without UV_TOOL_BIN_DIR and UV_TOOL_DIR: %q", argv)
		}
		switch strings.Join(argv[:3], " ") {
		case "uv tool install":
			name := (Run{Manager: UV, Spec: argv[3]}).Package()
			_ = os.MkdirAll(filepath.Join(toolDir, name), 0o755)
			_ = os.MkdirAll(binDir, 0o755)
			for _, e := range exes {
				if err := os.WriteFile(filepath.Join(binDir, e), []byte("#!/bin/sh\n"), 0o755); err != nil {
					return err
				}
			}
			return nil
		case "uv tool list":
			fmt.Fprintf(out, "other-tool v9.9\n- other\nMCP_Server.Time v%s\n", version)
			for _, e := range exes {
				fmt.Fprintf(out, "- %s\n", e)
			}
			return nil
		}
		return fmt.Errorf("unexpected command %q", argv)
	}
}

func TestInstallNPMAndLookup(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	run, _ := Parse([]string{"npx", "-y", "@modelcontextprotocol/server-memory"})
	if _, ok := s.Lookup(run); ok {
		t.Fatal("found before any pull")
	}
	var out strings.Builder
	rec, err := s.Install(context.Background(), run, InstallOptions{Out: &out, Exec: fakeNPM("2026.8.31", `"dist/index.js"`, "server-memory")})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != "2026.8.31" || rec.Package != "@modelcontextprotocol/server-memory" || rec.Bins["server-memory"] != "node_modules/.bin/server-memory" {
		t.Errorf("record = %+v", rec)
	}
	if !strings.Contains(out.String(), "added 1 package") {
		t.Errorf("npm's output did not reach Out: %q", out.String())
	}
	p, ok := s.Lookup(run)
	want := filepath.Join(s.Dir, "npm", "@modelcontextprotocol%2Fserver-memory", "node_modules", ".bin", "server-memory")
	if !ok || p.Executable != want || p.Record.Version != "2026.8.31" {
		t.Errorf("Lookup = %+v, %v; want exec %s", p, ok, want)
	}
	// Another spec of the same package is another install.
	if _, ok := s.Lookup(Run{Manager: NPM, Spec: "@modelcontextprotocol/server-memory@2026.8.31"}); ok {
		t.Error("a versioned spec found the unversioned spec's install")
	}
	// The record's paths are relative: the servers dir may move.
	moved := filepath.Join(t.TempDir(), "servers")
	if err := os.Rename(s.Dir, moved); err != nil {
		t.Fatal(err)
	}
	if p, ok := (Store{Dir: moved}).Lookup(run); !ok || !strings.HasPrefix(p.Executable, moved) {
		t.Errorf("after a move: %+v, %v", p, ok)
	}
}

func TestLookupChoosesTheExecutable(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	run := Run{Manager: NPM, Spec: "@scope/tools"}
	exec := fakeNPM("1.0.0", `{"tools":"a.js","tools-admin":"b.js"}`, "tools", "tools-admin")
	if _, err := s.Install(context.Background(), run, InstallOptions{Exec: exec}); err != nil {
		t.Fatal(err)
	}
	for bin, want := range map[string]string{"": "tools", "tools-admin": "tools-admin"} {
		p, ok := s.Lookup(Run{Manager: NPM, Spec: "@scope/tools", Bin: bin})
		if !ok || filepath.Base(p.Executable) != want {
			t.Errorf("bin %q: %+v, %v; want %s", bin, p, ok, want)
		}
	}
	if _, ok := s.Lookup(Run{Manager: NPM, Spec: "@scope/tools", Bin: "nosuch"}); ok {
		t.Error("found an executable the package does not provide")
	}
	// Several executables, none named after the package: the pull fails
	// and says which there are, and nothing is left.
	amb := Run{Manager: NPM, Spec: "multi"}
	_, err := s.Install(context.Background(), amb, InstallOptions{Exec: fakeNPM("2.0.0", `{"x":"x.js","y":"y.js"}`, "x", "y")})
	if err == nil || !strings.Contains(err.Error(), `provides x, y, none named "multi"`) {
		t.Errorf("ambiguous executables: %v", err)
	}
	if _, err := os.Stat(s.PackageDir(NPM, "multi")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed pull left its directory: %v", err)
	}
}

func TestInterruptedInstallIsNotPulled(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	run := Run{Manager: NPM, Spec: "pkg"}
	if _, err := s.Install(context.Background(), run, InstallOptions{Exec: fakeNPM("1.0.0", `"i.js"`, "pkg")}); err != nil {
		t.Fatal(err)
	}
	// The record goes: what is left is an install that never finished.
	if err := os.Remove(filepath.Join(s.PackageDir(NPM, "pkg"), RecordName)); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Lookup(run); ok {
		t.Error("an install without its record counts as pulled")
	}
	// A failing install replaces an earlier whole one, and leaves nothing.
	if _, err := s.Install(context.Background(), run, InstallOptions{Exec: fakeNPM("1.0.0", `"i.js"`, "pkg")}); err != nil {
		t.Fatal(err)
	}
	boom := func(context.Context, string, []string, []string, io.Writer) error { return errors.New("exit status 1") }
	if _, err := s.Install(context.Background(), run, InstallOptions{Exec: boom}); err == nil || !strings.Contains(err.Error(), "run npm install --prefix") {
		t.Errorf("failed install: %v", err)
	}
	if _, ok := s.Lookup(run); ok {
		t.Error("found after a failed re-pull")
	}
	// A record for another spec (a hand-made directory) is not taken.
	dir := s.PackageDir(NPM, "other")
	_ = os.MkdirAll(dir, 0o755)
	_ = write(dir, Record{Manager: NPM, Spec: "pkg", Package: "pkg", Bins: map[string]string{"pkg": "x"}})
	if _, ok := s.Lookup(Run{Manager: NPM, Spec: "other"}); ok {
		t.Error("took a record written for another spec")
	}
}

// uv is not installable here: this runs the documented behaviour against
// a stand-in (fakeUV), as docs/templates.md says.
func TestInstallUV(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	run, _ := Parse([]string{"uvx", "mcp-server-time", "--local-timezone", "UTC"})
	rec, err := s.Install(context.Background(), run, InstallOptions{Env: []string{"PATH=/bin"}, Exec: fakeUV(t, "0.6.2", "mcp-server-time")})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Version != "0.6.2" || rec.Bins["mcp-server-time"] != "bin/mcp-server-time" {
		t.Errorf("record = %+v", rec)
	}
	p, ok := s.Lookup(run)
	if !ok || p.Executable != filepath.Join(s.Dir, "uv", "mcp-server-time", "bin", "mcp-server-time") {
		t.Errorf("Lookup = %+v, %v", p, ok)
	}
	// A tool whose executable is not named after it needs --from: a
	// command naming the package alone fails at pull, and says why.
	other := Run{Manager: UV, Spec: "mcp-server-time@0.6.2"}
	_, err = s.Install(context.Background(), other, InstallOptions{Exec: fakeUV(t, "0.6.2", "time-server")})
	if err == nil || !strings.Contains(err.Error(), `none named "mcp-server-time"`) {
		t.Errorf("executable named otherwise: %v", err)
	}
}

func TestToolList(t *testing.T) {
	out := "black v24.2.0\n- black\n- blackd\nmcp-server-fetch v2025.4.7 (/opt/tools/mcp-server-fetch)\n- mcp-server-fetch (/opt/bin/mcp-server-fetch)\n"
	v, exes := toolList(out, "MCP_server_fetch")
	if v != "2025.4.7" || !slices.Equal(exes, []string{"mcp-server-fetch"}) {
		t.Errorf("toolList = %q, %q", v, exes)
	}
	if v, exes := toolList(out, "black"); v != "24.2.0" || len(exes) != 2 {
		t.Errorf("black: %q, %q", v, exes)
	}
	if v, _ := toolList(out, "absent"); v != "" {
		t.Errorf("absent: %q", v)
	}
}

// The real servers' package.json names one executable, not after the
// package: npx runs it, and so does a pulled start.
func TestTheOnlyExecutableIsTheOwn(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	run := Run{Manager: NPM, Spec: "@modelcontextprotocol/server-memory"}
	if _, err := s.Install(context.Background(), run, InstallOptions{Exec: fakeNPM("1.0.0", `{"mcp-server-memory":"dist/index.js"}`, "mcp-server-memory")}); err != nil {
		t.Fatal(err)
	}
	if p, ok := s.Lookup(run); !ok || filepath.Base(p.Executable) != "mcp-server-memory" {
		t.Errorf("Lookup = %+v, %v", p, ok)
	}
}
