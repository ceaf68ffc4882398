package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
)

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
	return fakeSpec(key+"-"+e.Description, nil), nil, nil
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
	s := fakes(t, nil,
		adapters.Server{Name: "fa", Spec: fakeSpec("fa-v1", nil)},
		adapters.Server{Name: "fb", Spec: fakeSpec("fb-v1", nil)})
	cat, err := catalog.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	config, err := adapters.DecodeConfig([]byte(`{"fa": {}, "fb": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	var reloaded atomic.Int32
	rl := s.NewReloader(ReloaderOptions{
		CatalogFile: path, Config: config, Catalog: cat,
		Adapters: func(cat *catalog.Catalog) ([]adapters.Adapter, func(), error) {
			return []adapters.Adapter{descAdapter{cat}}, func() {}, nil
		},
		OnReloaded: func() { reloaded.Add(1) },
	})
	fa, _ := s.Upstream("fa")
	fb, _ := s.Upstream("fb")
	pidA := fa.Status().PID
	reload := func(trigger Trigger, want ReloadResult) {
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
	reload(TriggerFile, ReloadResult{Changed: []string{"fb"}, Updated: []string{"fb"}, Restarted: []string{"fb"}})
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
	reload(TriggerFile, ReloadResult{})
	if n := reloaded.Load(); n != 1 {
		t.Errorf("OnReloaded called %d times after a no-op reload, want 1", n)
	}

	// fa's entry gone: fa keeps running on its last spec.
	writeCatalog(t, path, map[string]string{"fb": "v2"})
	reload(TriggerFile, ReloadResult{Removed: []string{"fa"}, Kept: []ServerError{{Server: "fa"}}})
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
