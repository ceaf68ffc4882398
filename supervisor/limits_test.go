package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

func TestLargeToolListArrivesIntact(t *testing.T) {
	var tools []string
	for i := range 300 {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%03d","description":%q,"inputSchema":{"type":"object"}}`, i, strings.Repeat("d", 900)))
	}
	list := "[" + strings.Join(tools, ",") + "]"
	file := filepath.Join(t.TempDir(), "tools.json")
	os.WriteFile(file, []byte(list), 0o644)
	_, u, _ := fake(t, map[string]string{"MCP_FAKE_TOOLS_FILE": file})
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := u.Tools()
	if len(got) != 300 || len(list) < 300<<10-40000 {
		t.Fatalf("%d tools from a %d-byte list", len(got), len(list))
	}
	for i, tool := range got {
		if string(tool.Raw) != tools[i] {
			t.Fatalf("tool %d changed:\n%s\n%s", i, tool.Raw, tools[i])
		}
	}
}

func TestResponseOverTheCapFailsOnlyThatCall(t *testing.T) {
	_, u, log := fake(t, nil)
	_, err := u.Call(context.Background(), "tools/call", json.RawMessage(fmt.Sprintf(`{"name":"big","arguments":{"bytes":%d}}`, jsonrpc.DefaultMaxLine+1<<20)), nil)
	if err == nil || !strings.Contains(err.Error(), "larger than the gateway's 64 MiB") {
		t.Fatalf("over-cap call: %v (%T), want a clear error", err, err)
	}
	if got := mustText(t, u, "echo", `{"text":"still here"}`); got != "still here" {
		t.Errorf("next call = %q", got)
	}
	if st := u.Status(); st.Restarts != 0 {
		t.Errorf("the server was restarted (%d): the stream should resume at the next line", st.Restarts)
	}
	contains(t, "log", log.String(), "exceeds the 67108864-byte limit; skipped")
}

func TestEnvironmentKeepsToolingVariables(t *testing.T) {
	_, u, _ := fake(t, nil)
	u.life.baseEnv = []string{"PATH=/usr/local/bin:/usr/bin", "HOME=/root", "LANG=C.UTF-8", "HTTPS_PROXY=http://proxy:3128", "npm_config_cache=/var/cache/npm", "UV_CACHE_DIR=/var/cache/uv", TokenEnv + "=secret-token"}
	env := mustText(t, u, "env", `{}`)
	for _, kv := range []string{"PATH=/usr/local/bin:/usr/bin", "HOME=/root", "LANG=C.UTF-8", "HTTPS_PROXY=http://proxy:3128", "npm_config_cache=/var/cache/npm", "UV_CACHE_DIR=/var/cache/uv"} {
		contains(t, "server environment", env, kv)
	}
	if strings.Contains(env, "secret-token") {
		t.Error("the token reached the server")
	}
}

func TestSecretsAreMaskedInServerStderr(t *testing.T) {
	_, u, log := fake(t, nil)
	u.opts.Log.AddSecrets("hunter2-secret")
	mustText(t, u, "say", `{"text":"the password is hunter2-secret!"}`)
	testwait.For(t, 10*time.Second, "the server's stderr line to reach the log", func() bool { return strings.Contains(log.String(), "the password is") })
	contains(t, "log", log.String(), "the password is [REDACTED]!")
	if strings.Contains(log.String(), "hunter2-secret") {
		t.Error("the secret reached the log")
	}
}

// A server that writes to stdout forever without a newline fails its call
// (and is stopped) instead of hanging it: before, the call never returned
// and the daemon read without end.
func TestEndlessStdoutLineFailsTheCall(t *testing.T) {
	_, u, logBuf := fake(t, map[string]string{"MCP_FAKE_TOOLS": `[{"name":"endless","inputSchema":{"type":"object"}},{"name":"echo","inputSchema":{"type":"object"}}]`})
	done := make(chan error, 1)
	go func() { _, err := callText(t, u, "endless", `{}`); done <- err }()
	select {
	case err := <-done:
		var exit *ExitError
		if !errors.As(err, &exit) {
			t.Errorf("endless call: %v, want the server's exit", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the call still hangs after 60 s")
	}
	if !strings.Contains(logBuf.String(), "with no end in sight; stopping the server") {
		t.Errorf("log lacks the reason:\n%.2000s", logBuf.String())
	}
	if got, err := callText(t, u, "echo", `{"text":"after"}`); err != nil || got != "after" {
		t.Errorf("next call: %q %v", got, err)
	}
}
