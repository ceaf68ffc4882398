package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// TestCodeDir: with --code-dir the tree is written after ready, holds the
// daemon's real URL and the token file's path (never the token), and the
// servers have MCP_GATEWAY_CODE_DIR (SPEC §7.1, §12.1); with off, nothing
// is written and the servers have no such variable, even when the
// launcher's environment had one.
func TestCodeDir(t *testing.T) {
	const token = "tok-CODECHECK-41c9"
	tools := `MCP_FAKE_TOOLS=[{"name":"env","inputSchema":{"type":"object"}},{"name":"class","description":"A Python keyword.","inputSchema":{"type":"object","properties":{"from":{"type":"string"}}}}]`
	cfg, _ := json.Marshal(map[string]any{"a": map[string]any{"runCmd": fakeserver.ShellCommand(tools)}})

	e := newEnv(t)
	if code, _, errOut := e.launch(string(cfg), "GATEWAY_ACCESS_TOKEN="+token); code != 0 {
		t.Fatal(errOut)
	}
	var conf struct{ URL, TokenFile string }
	testwait.For(t, 10*time.Second, "gateway.json", func() bool {
		b, err := os.ReadFile(e.path("code/gateway.json"))
		return err == nil && json.Unmarshal(b, &conf) == nil
	})
	if conf.URL != e.url()+"/mcp" || conf.TokenFile != e.path("token") {
		t.Errorf("gateway.json: %+v, want %s/mcp and %s", conf, e.url(), e.path("token"))
	}
	if _, err := os.Stat(e.path("code/python/mcp_tools/a/class_.py")); err != nil {
		t.Errorf("the keyword tool's file: %v", err)
	}
	_ = filepath.WalkDir(e.path("code"), func(p string, d os.DirEntry, err error) error {
		if b, _ := os.ReadFile(p); err == nil && !d.IsDir() && strings.Contains(string(b), token) {
			t.Errorf("%s holds the token", p)
		}
		return nil
	})
	if doc := e.statusJSON(); doc.CodeDir != e.path("code") {
		t.Errorf("status: codeDir %q, want %s", doc.CodeDir, e.path("code"))
	}
	s := openSession(t, e.url(), token)
	if env, err := s.call("env", `{}`); err != nil || !strings.Contains(env, "MCP_GATEWAY_CODE_DIR="+e.path("code")) {
		t.Errorf("the server's environment lacks MCP_GATEWAY_CODE_DIR (%v): %.300s", err, env)
	}

	off := newEnv(t)
	if code, _, errOut := off.launchFlags(string(cfg), []string{"--code-dir", "off"}, "GATEWAY_ACCESS_TOKEN="+token, "MCP_GATEWAY_CODE_DIR=/somewhere"); code != 0 {
		t.Fatal(errOut)
	}
	s = openSession(t, off.url(), token)
	if env, err := s.call("env", `{}`); err != nil || strings.Contains(env, "MCP_GATEWAY_CODE_DIR") {
		t.Errorf("code mode off, the server's environment (%v): %.300s", err, env)
	}
	if _, err := os.Stat(off.path("code")); !os.IsNotExist(err) {
		t.Errorf("code mode off wrote %s (%v)", off.path("code"), err)
	}
}
