package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// TestSecretsDoNotLeak starts the real binary with a distinctive token and
// envs value, makes calls (one makes the server print both to stderr),
// crashes a server, reloads, then searches every place a secret could be
// left (issue 5).
func TestSecretsDoNotLeak(t *testing.T) {
	const token = "tok-LEAKCHECK-7f3a9c"
	const secret = "envs-LEAKCHECK-b81d2e"
	e := newEnv(t)
	tools := `MCP_FAKE_TOOLS=[{"name":"say","inputSchema":{"type":"object"}},{"name":"env","inputSchema":{"type":"object"}},{"name":"crash","inputSchema":{"type":"object"}}]`
	cfg, _ := json.Marshal(map[string]any{
		"holder": map[string]any{"runCmd": fakeserver.ShellCommand(tools), "envs": map[string]string{"API_KEY": secret}},
		"other":  map[string]any{"runCmd": fakeserver.ShellCommand(tools)},
	})
	if code, _, errOut := e.launch(string(cfg), "GATEWAY_ACCESS_TOKEN="+token); code != 0 {
		t.Fatal(errOut)
	}
	s := openSession(t, e.url(), token)
	for _, c := range [][2]string{
		{"say", `{"text":"printing the token ` + token + ` and the key ` + secret + `"}`},
		{"env", `{}`},
		{"crash", `{}`},
		{"say", `{"text":"after the crash: ` + secret + `"}`},
		{"other_say", `{"text":"hello"}`},
	} {
		if _, err := s.call(c[0], c[1]); err != nil {
			t.Fatalf("%s: %v", c[0], err)
		}
	}
	// Each server gets only its own envs; none gets the token.
	own, _ := s.call("env", `{}`)
	other, _ := s.call("other_env", `{}`)
	if !strings.Contains(own, "API_KEY="+secret) {
		t.Errorf("holder lacks its own envs")
	}
	if strings.Contains(other, secret) || strings.Contains(own+other, token) {
		t.Errorf("envs or token reached the wrong server")
	}
	// A reload with a catalog file that changes nothing for these servers.
	os.WriteFile(e.path("catalog.json"), []byte(`{}`), 0o644)
	e.run(nil, "reload", "--run-dir", e.path("run"))
	testwait.For(t, 10*time.Second, "the reload's log line", func() bool {
		return strings.Contains(e.logText(), `msg="catalog reloaded" trigger="mcp-gateway reload"`)
	})

	search := func(where string, data []byte, needles ...string) {
		for _, n := range needles {
			if strings.Contains(string(data), n) {
				t.Errorf("%s holds %q", where, n)
			}
		}
	}
	log, err := os.ReadFile(e.path("gateway.log"))
	if err != nil || !strings.Contains(string(log), "printing the token [REDACTED] and the key [REDACTED]") {
		t.Errorf("log does not show the masked stderr line (err %v)", err)
	}
	search("the log", log, token, secret)
	daemon := e.daemonPID()
	for _, f := range []string{"cmdline", "environ"} {
		b, _ := os.ReadFile("/proc/" + itoaInt(daemon) + "/" + f)
		search("daemon "+f, b, token, secret)
	}
	kids := descendants(daemon)
	if len(kids) == 0 {
		t.Fatal("no server processes")
	}
	for _, k := range kids {
		b, _ := os.ReadFile("/proc/" + itoaInt(k) + "/environ")
		search("server environ", b, token)
		cmd, _ := os.ReadFile("/proc/" + itoaInt(k) + "/cmdline")
		search("server cmdline", cmd, token)
	}
	_ = filepath.WalkDir(e.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == e.path("token") || path == e.path("gateway.log") || d.Type()&fs.ModeSocket != 0 {
			return nil
		}
		b, _ := os.ReadFile(path)
		search(path, b, token, secret)
		return nil
	})
	_ = syscall.Kill(daemon, syscall.SIGTERM)
}
