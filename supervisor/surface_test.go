package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// The server surface beyond tools: lists at start and on list_changed,
// capabilities, resource subscriptions in either era, logging/setLevel.

const (
	fakePrompts   = `[{"name":"greet","arguments":[{"name":"who","required":true}],"zz":9007199254740993}]`
	fakeResources = `[{"uri":"test://a","name":"a","mimeType":"text/plain"},{"uri":"test://b","name":"b"}]`
	fakeTemplates = `[{"uriTemplate":"test://t/{id}","name":"t"}]`
)

func surfaceEnv(extra map[string]string) map[string]string {
	env := map[string]string{"MCP_FAKE_PROMPTS": fakePrompts, "MCP_FAKE_RESOURCES": fakeResources, "MCP_FAKE_TEMPLATES": fakeTemplates}
	for k, v := range extra {
		env[k] = v
	}
	return env
}

func keys(entries []Entry) string {
	var k []string
	for _, e := range entries {
		k = append(k, e.Key)
	}
	return strings.Join(k, ",")
}

func TestStartListsTheWholeSurface(t *testing.T) {
	for _, modern := range []bool{false, true} {
		env := surfaceEnv(nil)
		env["MCP_FAKE_INSTRUCTIONS"] = "  Call echo to hear yourself.\nOther lines follow."
		if modern {
			env["MCP_FAKE_MODERN"] = "1"
		}
		_, u, _ := fake(t, env)
		if err := u.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		l := u.Lists()
		if got := keys(l.Prompts) + " | " + keys(l.Resources) + " | " + keys(l.Templates); got != "greet | test://a,test://b | test://t/{id}" {
			t.Errorf("modern=%v: lists %s", modern, got)
		}
		// Byte for byte, big integer and unknown field included.
		if diff := cmp.Diff(fakePrompts[1:len(fakePrompts)-1], string(l.Prompts[0].Raw)); diff != "" {
			t.Errorf("modern=%v: prompt definition (-want +got):\n%s", modern, diff)
		}
		st := u.Status()
		if st.Prompts != 1 || st.Resources != 2 || st.Templates != 1 {
			t.Errorf("modern=%v: status counts %d prompts, %d resources, %d templates", modern, st.Prompts, st.Resources, st.Templates)
		}
		want := Capabilities{Tools: true, ToolsListChanged: true, Prompts: true, PromptsListChanged: true, Resources: true,
			ResourcesSubscribe: true, ResourcesListChanged: true, Completions: true, Logging: true}
		if c := u.Capabilities(); c != want {
			t.Errorf("modern=%v: capabilities %+v, want %+v", modern, c, want)
		}
		// Its instructions, else its serverInfo's description (what the
		// modern fake says it in), trimmed, for the code API's INDEX.md
		// (SPEC §12.2).
		wantAbout := "Call echo to hear yourself.\nOther lines follow."
		if got := u.Instructions(); got != wantAbout {
			t.Errorf("modern=%v: instructions %q, want %q", modern, got, wantAbout)
		}
	}
}

func TestListsNotDeclaredAreNotAsked(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "requests")
	_, u, _ := fake(t, map[string]string{"MCP_FAKE_MODERN": "1", "MCP_FAKE_RECORD_FILE": rec})
	if err := u.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, line := range recorded(t, rec) {
		if strings.HasPrefix(line, "prompts/list") || strings.HasPrefix(line, "resources/") {
			t.Errorf("the server declared no prompts or resources, but got %s", line)
		}
	}
}

func TestAFailedOtherListDoesNotFailTheStart(t *testing.T) {
	_, u, log := fake(t, surfaceEnv(map[string]string{"MCP_FAKE_FAIL_LIST": "prompts/list"}))
	if err := u.Start(context.Background()); err != nil {
		t.Fatalf("start: %v", err)
	}
	l := u.Lists()
	if len(l.Prompts) != 0 || len(l.Resources) != 2 || len(l.Tools) == 0 {
		t.Errorf("lists after a failed prompts/list: %d prompts, %d resources, %d tools", len(l.Prompts), len(l.Resources), len(l.Tools))
	}
	contains(t, "log", log.String(), "list failed; the server runs with it empty")
}

func TestListChangedRelistsPromptsAndResources(t *testing.T) {
	for _, modern := range []bool{false, true} {
		env := surfaceEnv(map[string]string{"MCP_FAKE_PROMPTS2": `[]`, "MCP_FAKE_RESOURCES2": `[{"uri":"test://c","name":"c"}]`, "MCP_FAKE_TEMPLATES2": `[]`})
		if modern {
			env["MCP_FAKE_MODERN"] = "1"
		}
		s, u, _ := fake(t, env)
		var mu sync.Mutex
		changed := 0
		s.opts.OnListChanged = func(string) { mu.Lock(); changed++; mu.Unlock() }
		if err := u.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		mustText(t, u, "changeprompts", `{}`)
		testwait.For(t, 0, "the prompts re-listed", func() bool { return len(u.Lists().Prompts) == 0 })
		mustText(t, u, "changeresources", `{}`)
		testwait.For(t, 0, "the resources and templates re-listed", func() bool {
			l := u.Lists()
			return keys(l.Resources) == "test://c" && len(l.Templates) == 0
		})
		mu.Lock()
		if changed < 3 { // the start, then each change
			t.Errorf("modern=%v: OnListChanged called %d times, want at least 3", modern, changed)
		}
		mu.Unlock()
	}
}

// updates records OnResourceUpdated's calls as "server uri params".
type updates struct {
	mu  sync.Mutex
	got []string
}

func (u *updates) on(server, uri string, params json.RawMessage) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.got = append(u.got, server+" "+uri+" "+string(params))
}

func (u *updates) take() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	got := u.got
	u.got = nil
	return got
}

func TestSubscribeLegacyServer(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "requests")
	s, u, _ := fake(t, surfaceEnv(map[string]string{"MCP_FAKE_RECORD_FILE": rec}))
	var ups updates
	s.opts.OnResourceUpdated = ups.on
	ctx := context.Background()
	if err := u.Subscribe(ctx, "test://a"); err != nil {
		t.Fatal(err)
	}
	if err := u.Subscribe(ctx, "test://a"); err != nil { // again: nothing more upstream
		t.Fatal(err)
	}
	mustText(t, u, "touch", `{"uri":"test://a"}`)
	if got := ups.take(); len(got) != 1 || got[0] != `fake test://a {"uri":"test://a"}` {
		t.Errorf("updates = %q", got)
	}
	// A new run is subscribed again as it starts.
	if _, err := callText(t, u, "crash", `{}`); !errors.Is(err, ErrExited) {
		t.Fatalf("crash: %v", err)
	}
	mustText(t, u, "touch", `{"uri":"test://a"}`) // restarts it first
	if got := ups.take(); len(got) != 1 {
		t.Errorf("updates after a restart = %q, want one", got)
	}
	u.Unsubscribe(ctx, "test://a")
	mustText(t, u, "touch", `{"uri":"test://a"}`)
	if got := ups.take(); len(got) != 0 {
		t.Errorf("updates after unsubscribing = %q", got)
	}
	var subs []string
	for _, line := range recorded(t, rec) {
		if strings.HasPrefix(line, "resources/") {
			subs = append(subs, line)
		}
	}
	want := []string{`resources/subscribe {"uri":"test://a"}`, `resources/subscribe {"uri":"test://a"}`, `resources/unsubscribe {"uri":"test://a"}`}
	if diff := cmp.Diff(want, subs); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestSubscribeModernServer(t *testing.T) {
	cancels := filepath.Join(t.TempDir(), "cancels")
	s, u, rec := modernFake(t, surfaceEnv(map[string]string{"MCP_FAKE_CANCEL_FILE": cancels}))
	var ups updates
	s.opts.OnResourceUpdated = ups.on
	ctx := context.Background()
	for _, uri := range []string{"test://a", "test://b"} {
		if err := u.Subscribe(ctx, uri); err != nil {
			t.Fatal(err)
		}
	}
	mustText(t, u, "touch", `{"uri":"test://b"}`)
	got := ups.take()
	if len(got) != 1 || !strings.HasPrefix(got[0], "fake test://b ") {
		t.Errorf("updates = %q, want one for test://b", got)
	}
	var listens []string
	for _, line := range recorded(t, rec) {
		if strings.HasPrefix(line, "subscriptions/listen ") && strings.Contains(line, "resourceSubscriptions") {
			listens = append(listens, line)
		}
	}
	if len(listens) != 2 || !strings.Contains(listens[0], `"resourceSubscriptions":["test://a"]`) {
		t.Errorf("resource listens = %q, want one per URI", listens)
	}
	u.Unsubscribe(ctx, "test://b")
	testwait.For(t, 0, "the listen of test://b cancelled", func() bool {
		b, _ := os.ReadFile(cancels)
		return strings.Contains(string(b), `"requestId"`)
	})
	mustText(t, u, "touch", `{"uri":"test://b"}`)
	if got := ups.take(); len(got) != 0 {
		t.Errorf("updates after unsubscribing = %q", got)
	}
}

func TestSubscribeRefusedByAModernServer(t *testing.T) {
	_, u, _ := modernFake(t, surfaceEnv(map[string]string{"MCP_FAKE_NO_SUBSCRIBE": "1"}))
	err := u.Subscribe(context.Background(), "test://a")
	if err == nil || !strings.Contains(err.Error(), "did not agree") {
		t.Errorf("subscribe = %v, want the server's refusal", err)
	}
}

func TestSetLogLevelReachesLegacyServersOnly(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "requests")
	_, u, _ := fake(t, map[string]string{"MCP_FAKE_RECORD_FILE": rec})
	_, m, mrec := modernFake(t, nil)
	for _, up := range []*Upstream{u, m} {
		if err := up.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		up.SetLogLevel(context.Background(), "error")
	}
	// A new run gets it as it starts.
	if _, err := callText(t, u, "crash", `{}`); !errors.Is(err, ErrExited) {
		t.Fatalf("crash: %v", err)
	}
	mustText(t, u, "echo", `{"text":"x"}`)
	if got := strings.Count(strings.Join(recorded(t, rec), "\n"), `logging/setLevel {"level":"error"}`); got != 2 {
		t.Errorf("the legacy server got logging/setLevel %d times, want once per run (2)", got)
	}
	for _, line := range recorded(t, mrec) {
		if strings.HasPrefix(line, "logging/setLevel") {
			t.Errorf("the modern server got %s", line)
		}
	}
}
