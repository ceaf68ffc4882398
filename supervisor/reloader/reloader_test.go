package reloader

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

func TestMain(m *testing.M) {
	if fakeserver.Enabled() {
		os.Exit(fakeserver.Main())
	}
	os.Exit(m.Run())
}

// fakeSpec is the launch spec of a fake server whose echo says "from name".
func fakeSpec(name string) adapters.LaunchSpec {
	return adapters.LaunchSpec{Kind: "command", Argv: fakeserver.Argv(), Env: map[string]string{"MCP_FAKE": "1", "MCP_FAKE_NAME": name}}
}

// fakes returns a started supervisor over fake servers, one per spec.
func fakes(t *testing.T, servers ...adapters.Server) *supervisor.Supervisor {
	t.Helper()
	s := supervisor.New(servers, supervisor.Options{
		Log:          logfile.New(io.Discard),
		StartTimeout: 20 * time.Second,
		Stop:         proc.StopTimeouts{CloseWait: time.Second, TermWait: time.Second},
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.StartAll(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// mustText calls a tool and returns its first text content.
func mustText(t *testing.T, u *supervisor.Upstream, tool, args string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := u.Call(ctx, "tools/call", json.RawMessage(`{"name":"`+tool+`","arguments":`+args+`}`), nil)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
		t.Fatalf("call %s: bad result %s: %v", tool, res, err)
	}
	return r.Content[0].Text
}

// descAdapter resolves a key to a fake server named "<key>-<description>"
// of the key's catalog entry, so that a catalog change is a spec change.
type descAdapter struct{ cat *catalog.Catalog }

func (descAdapter) Kind() string                       { return "command" } // as fakeSpec
func (descAdapter) Claims(string, adapters.Entry) bool { return true }
func (a descAdapter) Resolve(key string, _ adapters.Entry) (adapters.LaunchSpec, []string, error) {
	e, ok := a.cat.Lookup(key)
	if !ok {
		return adapters.LaunchSpec{}, nil, errors.New("not in the catalog")
	}
	return fakeSpec(key + "-" + e.Description), nil, nil
}

func writeCatalog(t *testing.T, path string, descs map[string]string) {
	t.Helper()
	doc := map[string]any{}
	for name, d := range descs {
		doc[name] = map[string]any{"description": d, "command": [][]string{{"x"}}}
	}
	b, _ := json.Marshal(doc)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The Reloader resolves every server again through Config.Resolve, restarts
// only those whose spec changed, keeps one that no longer resolves, and
// leaves the last good catalog in force when the file is invalid (SPEC §6.3).
func TestReloaderAppliesCatalogChanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "catalog.json")
	writeCatalog(t, path, map[string]string{"fa": "v1", "fb": "v1"})
	s := fakes(t,
		adapters.Server{Name: "fa", Spec: fakeSpec("fa-v1")},
		adapters.Server{Name: "fb", Spec: fakeSpec("fb-v1")})
	cat, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	config, err := adapters.DecodeConfig([]byte(`{"fa": {}, "fb": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	var reloaded atomic.Int32
	rl := New(s, Options{
		CatalogFile: path, Config: config, Catalog: cat,
		Adapters: func(cat *catalog.Catalog) ([]adapters.Adapter, func(), error) {
			return []adapters.Adapter{descAdapter{cat}}, func() {}, nil
		},
		OnReloaded: func() { reloaded.Add(1) },
	})
	fa, _ := s.Upstream("fa")
	fb, _ := s.Upstream("fb")
	pidA := fa.Status().PID
	reload := func(trigger Trigger, want Result) {
		t.Helper()
		res, err := rl.Reload(context.Background(), trigger)
		if err != nil {
			t.Fatalf("Reload: %v", err)
		}
		if diff := cmp.Diff(&want, res, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(ServerError{}, "Error")); diff != "" {
			t.Errorf("Reload (-want +got):\n%s", diff)
		}
	}

	writeCatalog(t, path, map[string]string{"fa": "v1", "fb": "v2"})
	reload(TriggerFile, Result{Changed: []string{"fb"}, Updated: []string{"fb"}, Restarted: []string{"fb"}})
	if got := mustText(t, fb, "echo", `{"text":"x"}`); got != "x from fb-v2" {
		t.Errorf("fb after reload: %q, want x from fb-v2", got)
	}
	if pid := fa.Status().PID; pid != pidA {
		t.Errorf("fa restarted (pid %d, was %d) although its entry did not change", pid, pidA)
	}
	if n := reloaded.Load(); n != 1 {
		t.Errorf("OnReloaded called %d times, want 1", n)
	}

	// The file touched, nothing changed: nothing is resolved again.
	reload(TriggerFile, Result{})
	if n := reloaded.Load(); n != 1 {
		t.Errorf("OnReloaded called %d times after a no-op reload, want 1", n)
	}

	// fa's entry gone: fa keeps running on its last spec.
	writeCatalog(t, path, map[string]string{"fb": "v2"})
	reload(TriggerFile, Result{Removed: []string{"fa"}, Kept: []ServerError{{Server: "fa"}}})
	if got := mustText(t, fa, "echo", `{"text":"x"}`); got != "x from fa-v1" {
		t.Errorf("fa after its entry went: %q, want x from fa-v1", got)
	}

	// An invalid file changes nothing.
	if err := os.WriteFile(path, []byte(`{"fb": `), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := rl.Reload(context.Background(), TriggerCommand); err == nil || !strings.Contains(err.Error(), "last good catalog") {
		t.Errorf("Reload of an invalid file: %v, want an error saying the last good catalog stays", err)
	}
}
