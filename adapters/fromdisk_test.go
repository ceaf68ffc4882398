package adapters_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/catalog/pulled"
)

// pull writes what `mcp-gateway pull` leaves for one package spec under
// servers (package pulled's layout and record), with the executable
// bin at rel, and returns the executable's path.
func pull(t *testing.T, servers string, m pulled.Manager, spec, pkg, version, bin, rel string) string {
	t.Helper()
	dir := filepath.Join(servers, string(m), url.PathEscape(spec))
	exec := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(exec), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exec, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec, _ := json.Marshal(pulled.Record{Manager: m, Spec: spec, Package: pkg, Version: version, Bins: map[string]string{bin: rel}})
	if err := os.WriteFile(filepath.Join(dir, pulled.RecordName), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	return exec
}

// resolveIn resolves config against the built-in catalog plus override,
// with servers as the servers dir.
func resolveIn(t *testing.T, servers, override, config string) map[string]adapters.LaunchSpec {
	t.Helper()
	cat := catalog.Builtin()
	if override != "" {
		over, err := catalog.Parse([]byte(override), catalog.SourceTemplate)
		if err != nil {
			t.Fatal(err)
		}
		cat = cat.Merge(over)
	}
	got, _, err := adapters.Parse([]byte(config), adapters.Builtin(cat, adapters.Options{BaseURL: "https://github.com", ServersDir: servers}))
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]adapters.LaunchSpec{}
	for _, s := range got {
		specs[s.Name] = s.Spec
	}
	return specs
}

// A pulled server runs the package's own executable with the entry's
// arguments: no npx, no uvx (SPEC §2.8). The uv half is written from
// uv's documentation and checked here on the resolved spec only.
func TestPulledServersRunFromDisk(t *testing.T) {
	servers := t.TempDir()
	fs := pull(t, servers, pulled.NPM, "@modelcontextprotocol/server-filesystem", "@modelcontextprotocol/server-filesystem", "2026.8.31", "mcp-server-filesystem", "node_modules/.bin/mcp-server-filesystem")
	timeBin := pull(t, servers, pulled.UV, "mcp-server-time", "mcp-server-time", "0.6.2", "mcp-server-time", "bin/mcp-server-time")
	arxiv := pull(t, servers, pulled.UV, "arxiv-mcp-server", "arxiv-mcp-server", "0.3.1", "arxiv-mcp-server", "bin/arxiv-mcp-server")
	// A template's entry written for the reference gateway: npx, a pinned version.
	pinned := pull(t, servers, pulled.NPM, "@acme/notes-mcp@1.4.0", "@acme/notes-mcp", "1.4.0", "notes-mcp", "node_modules/.bin/notes-mcp")
	fetch := pull(t, servers, pulled.UV, "mcp-server-fetch==2025.4.7", "mcp-server-fetch", "2025.4.7", "mcp-server-fetch", "bin/mcp-server-fetch")
	override := `{
	  "notes": {"description": "d", "command": [["npx", "-y", "@acme/notes-mcp@1.4.0"], ["--dir", "{{dir}}"]], "properties": {"dir": {"type": "string"}}},
	  "fetch": {"description": "d", "command": [["uvx", "--from", "mcp-server-fetch==2025.4.7", "mcp-server-fetch"]]}
	}`
	specs := resolveIn(t, servers, override, `{"filesystem": {"paths": ["/data", "/tmp"]}, "time": {}, "arxiv": {"storagePath": "/p"},
	  "notes": {"dir": "/n"}, "fetch": {}, "memory": {}}`)
	for name, want := range map[string][]string{
		"filesystem": {fs, "/data", "/tmp"},
		"time":       {timeBin},
		"arxiv":      {arxiv, "--storage-path", "/p"},
		"notes":      {pinned, "--dir", "/n"},
		"fetch":      {fetch},
		"memory":     {"npx", "-y", "@modelcontextprotocol/server-memory"}, // not pulled: as written
	} {
		got := specs[name]
		if diff := cmp.Diff(want, got.Argv); diff != "" {
			t.Errorf("%s: argv (-want +got):\n%s", name, diff)
		}
		if pulledHere := name != "memory"; (got.Pulled != "") != pulledHere || (got.Prepare != nil) == pulledHere {
			t.Errorf("%s: Pulled %q, Prepare set %v", name, got.Pulled, got.Prepare != nil)
		}
	}
	if p := specs["time"].Pulled; p != "mcp-server-time@0.6.2" {
		t.Errorf("time: Pulled = %q", p)
	}
	// The pull of an unversioned spec is not that of a versioned one.
	other := resolveIn(t, servers, `{"notes": {"description": "d", "command": [["npx", "-y", "@acme/notes-mcp@1.5.0"]]}}`, `{"notes": {}}`)
	if other["notes"].Pulled != "" || other["notes"].Argv[0] != "npx" {
		t.Errorf("another version found the pinned pull: %+v", other["notes"])
	}
}

// A server that was not pulled, offline: its start fails at once, names
// the package, says it was not pre-installed and the registry could not
// be reached, and says how to pull it (SPEC §2.8).
func TestNotPulledAndOfflineFailsFast(t *testing.T) {
	specs := resolveIn(t, t.TempDir(), "", `{"time": {}}`)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	err = specs["time"].Prepare(context.Background(), []string{"PATH=" + fakeRunner(t, "uvx"), "UV_INDEX_URL=http://" + closed + "/simple"}, nil)
	var np *adapters.NotPulledError
	if !errors.As(err, &np) || np.Server != "time" {
		t.Fatalf("Prepare = %v, want a NotPulledError for time", err)
	}
	for _, want := range []string{"mcp-server-time was not pre-installed", "could not be reached", "`mcp-gateway pull time`"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// A server that was not pulled and whose runner is not installed: its
// start says that first, whatever the network, and how to fix it (a pull
// needs the runner's manager too).
func TestNotPulledWithoutRunnerSaysSo(t *testing.T) {
	specs := resolveIn(t, t.TempDir(), "", `{"time": {}}`)
	err := specs["time"].Prepare(context.Background(), []string{"PATH=" + t.TempDir()}, nil)
	if err == nil {
		t.Fatal("Prepare succeeded without uvx on PATH")
	}
	var np *adapters.NotPulledError
	if errors.As(err, &np) {
		t.Errorf("Prepare = %v: the registry was blamed, not the missing runner", err)
	}
	for _, want := range []string{"uvx is not installed", "install uv in the template", "`mcp-gateway pull time`"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// fakeRunner is a directory holding an executable named name, for a PATH.
func fakeRunner(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
