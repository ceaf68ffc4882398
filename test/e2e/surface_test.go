package e2e

// The whole server surface through the gateway with parts nobody here
// wrote (SPEC §3.8, §4.8): server-everything's prompts, resources,
// templates, completion and subscriptions with the TypeScript SDK clients
// (v1, and v2 in both eras), two everything servers' collisions with
// go-sdk's client, and the subscription fan-out to three clients, in front
// of a legacy and a modern server.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

const staticDoc = "demo://resource/static/document/features.md"

// everythingConfig is a config with server-everything under each name.
func everythingConfig(t *testing.T, names ...string) string {
	nm := needNPM(t)
	entries := make([]string, len(names))
	for i, n := range names {
		entries[i] = fmt.Sprintf(`%q: {"runCmd": "exec node %s"}`, n, filepath.Join(nm, "mcp-server-everything"))
	}
	return "{" + strings.Join(entries, ", ") + "}"
}

// runClientLines runs a test/client script and returns its JSON lines; a
// non-zero exit fails the test.
func runClientLines(t *testing.T, script string, args ...string) []map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{filepath.Join(root, "test", "client", script)}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n--- stdout ---\n%s\n--- stderr ---\n%s", script, args, err, out, stderr.String())
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%s printed a non-JSON line %q", script, l)
		}
		lines = append(lines, m)
	}
	return lines
}

// The TypeScript SDK clients list and read server-everything's resources
// and templates, get a prompt with arguments, complete an argument, and
// subscribe to a resource and get its update, through the gateway.
func TestEverythingSurfaceTypeScriptClients(t *testing.T) {
	for _, c := range []struct{ name, script, mode string }{{"v1", "mcp-client.mjs", ""}, {"v2-legacy", "modern-client.mjs", "legacy"}, {"v2-modern", "modern-client.mjs", "modern"}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// A gateway each: toggle-subscriber-updates is one switch for
			// the gateway's one connection to the server.
			g := launch(t, t.TempDir(), everythingConfig(t, "everything"))
			args := []string{"--url", g.url, "--token", g.token, "--timeout", "30"}
			if c.mode != "" {
				args = append(args, "--mode", c.mode)
			}
			args = append(args, "--list-prompts", "--get-prompt", "args-prompt", "--args", `{"city":"Paris","state":"TX"}`,
				"--complete-prompt", "completable-prompt", "department", "E",
				"--complete-prompt", "completable-prompt", "name", "A", "--context", `{"department":"Engineering"}`,
				"--list-resources", "--list-templates", "--read", staticDoc, "--read", "demo://resource/dynamic/text/4",
				"--subscribe", staticDoc, "--call", "toggle-subscriber-updates", "--await-update", staticDoc)
			checkSurfaceLines(t, runClientLines(t, c.script, args...))
		})
	}
}

// checkSurfaceLines checks what the steps of TestEverythingSurfaceTypeScriptClients printed.
func checkSurfaceLines(t *testing.T, lines []map[string]any) {
	t.Helper()
	dump, _ := json.MarshalIndent(lines, "", "  ")
	byStep := map[string][]map[string]any{}
	for _, l := range lines {
		byStep[fmt.Sprint(l["step"])] = append(byStep[fmt.Sprint(l["step"])], l)
	}
	has := func(step, want string) {
		t.Helper()
		for _, l := range byStep[step] {
			if b, _ := json.Marshal(l); strings.Contains(string(b), want) {
				return
			}
		}
		t.Errorf("no %s line holds %s:\n%s", step, want, dump)
	}
	has("prompts", `"args-prompt"`)
	has("prompts", `"completable-prompt"`)
	has("prompt", `What's weather in Paris, TX?`)
	has("complete", `"values":["Engineering"]`)
	has("complete", `"values":["Alice"]`)
	has("resources", `"`+staticDoc+`"`)
	has("templates", `"demo://resource/dynamic/text/{resourceId}"`)
	has("read", `"text":"# Everything Server - Features`)
	has("read", `Resource 4: This is a plaintext resource`)
	has("updated", `"uri":"`+staticDoc+`"`)
}

// serverCalls reads the calls of each server from g's /health.
func serverCalls(t *testing.T, g *gateway) map[string]int {
	t.Helper()
	h, _ := getHealth(t, g)
	calls := map[string]int{}
	for _, s := range h.Servers {
		calls[s.Name] = s.Calls
	}
	return calls
}

// Two everything servers behind one gateway: both servers' prompts under
// distinct names; a URI both list read from the first, with the log line;
// template URIs and the links in a server's tool results read back from
// the server they came from (which server served shows in /health's
// calls).
func TestEverythingCollisions(t *testing.T) {
	g := launch(t, t.TempDir(), everythingConfig(t, "alpha", "beta"))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := goSDKSession(t, ctx, g)
	served := func(what string, do func() error) string {
		t.Helper()
		before := serverCalls(t, g)
		if err := do(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		after := serverCalls(t, g)
		var by []string
		for _, s := range []string{"alpha", "beta"} {
			if after[s] > before[s] {
				by = append(by, s)
			}
		}
		return strings.Join(by, ",")
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	for _, want := range []string{"args-prompt", "beta_args-prompt", "simple-prompt", "beta_simple-prompt"} {
		if !slices.Contains(names, want) {
			t.Errorf("prompts/list %v lacks %s", names, want)
		}
	}
	for name, server := range map[string]string{"args-prompt": "alpha", "beta_args-prompt": "beta"} {
		var text string
		by := served("get "+name, func() error {
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"city": "Oslo"}})
			if err == nil && len(res.Messages) > 0 {
				if tc, ok := res.Messages[0].Content.(*mcp.TextContent); ok {
					text = tc.Text
				}
			}
			return err
		})
		if by != server || text != "What's weather in Oslo?" {
			t.Errorf("prompts/get %s: served by %q with %q, want %s's", name, by, text, server)
		}
	}
	read := func(uri string) string {
		t.Helper()
		return served("read "+uri, func() error { _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); return err })
	}
	if by := read(staticDoc); by != "alpha" {
		t.Errorf("a URI both list was served by %q, want the first in server order", by)
	}
	log, _ := os.ReadFile(filepath.Join(g.dir, "gateway.log"))
	if line := `resource listed by two servers; the first in server order serves it" resource=` + staticDoc + ` server=alpha also=beta`; !strings.Contains(string(log), line) {
		t.Errorf("the log lacks %q", line)
	}
	if by := read("demo://resource/dynamic/text/5"); by != "alpha" {
		t.Errorf("a template URI no result carried was served by %q, want alpha (the first template that matches)", by)
	}
	call := func(tool string, args map[string]any) {
		t.Helper()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args}); err != nil {
			t.Fatalf("call %s: %v", tool, err)
		}
	}
	call("beta_get-resource-links", map[string]any{"count": 2}) // blob/1, text/2
	call("beta_get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 7})
	for _, uri := range []string{"demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2", "demo://resource/dynamic/text/7"} {
		if by := read(uri); by != "beta" {
			t.Errorf("%s, from beta's result, was served by %q", uri, by)
		}
	}
	call("get-resource-links", map[string]any{"count": 3}) // alpha's: blob/1, text/2, blob/3
	for _, uri := range []string{"demo://resource/dynamic/blob/1", "demo://resource/dynamic/blob/3"} {
		if by := read(uri); by != "alpha" {
			t.Errorf("%s, from alpha's result since, was served by %q", uri, by)
		}
	}
}

// Three clients (two legacy sessions, one modern listen) on one URI: one
// upstream subscription, three updates, and the upstream subscription
// ended only once the last client left; with a legacy server
// (server-everything) and a modern one (the modern fixture) behind.
func TestSubscriptionFanOut(t *testing.T) {
	t.Run("legacy-server", func(t *testing.T) {
		t.Parallel()
		g := launch(t, t.TempDir(), everythingConfig(t, "everything"))
		count := logCounter(g, "Received Subscribe Resource request for URI: "+staticDoc, "Received Unsubscribe Resource request: "+staticDoc)
		fanOut(t, g, staticDoc, "toggle-subscriber-updates", `{}`, count)
	})
	t.Run("modern-server", func(t *testing.T) {
		t.Parallel()
		needNPM(t)
		fixture := filepath.Join(root, "test", "fixtures", "modern-server.mjs")
		g := launch(t, t.TempDir(), fmt.Sprintf(`{"modern": {"runCmd": "exec node %s"}}`, fixture))
		const uri = "test://watched-resource"
		count := logCounter(g, "modern-fixture: listen [0-9]+ subscribes "+regexp.QuoteMeta(uri), "modern-fixture: cancelled [0-9]+")
		fanOut(t, g, uri, "test_trigger_resource_update", `{"uri":"`+uri+`"}`, count)
	})
}

// logCounter counts the upstream subscribes and unsubscribes in g's log,
// by the lines (regular expressions) the server writes for each.
func logCounter(g *gateway, subscribe, unsubscribe string) func() (int, int) {
	subRE, unsubRE := regexp.MustCompile(subscribe), regexp.MustCompile(unsubscribe)
	return func() (int, int) {
		b, _ := os.ReadFile(filepath.Join(g.dir, "gateway.log"))
		return len(subRE.FindAll(b, -1)), len(unsubRE.FindAll(b, -1))
	}
}

// fanOut runs test/client/fanout.mjs step by step against g and checks the
// upstream subscriptions between the steps.
func fanOut(t *testing.T, g *gateway, uri, trigger, triggerArgs string, count func() (subs, unsubs int)) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(root, "test", "client", "fanout.mjs"), "--url", g.url, "--token", g.token,
		"--uri", uri, "--trigger", trigger, "--trigger-args", triggerArgs)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("fanout.mjs: %v\n%s", err, stderr.String())
		}
	}()
	lines := bufio.NewScanner(stdout)
	step := func(want string) {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("fanout.mjs ended before %q: %v\n%s", want, lines.Err(), stderr.String())
		}
		if !strings.Contains(lines.Text(), want) {
			t.Fatalf("fanout.mjs: %s, want %s\n%s", lines.Text(), want, stderr.String())
		}
	}
	subscribed := func(wantUnsubs int, when string) {
		t.Helper()
		if subs, unsubs := count(); subs != 1 || unsubs != wantUnsubs {
			t.Errorf("%s: %d upstream subscriptions and %d unsubscriptions, want 1 and %d", when, subs, unsubs, wantUnsubs)
		}
	}
	step(`{"step":"subscribed"}`)
	testwait.For(t, 0, "the upstream subscription", func() bool { s, _ := count(); return s >= 1 })
	subscribed(0, "three clients subscribed")
	fmt.Fprintln(stdin, "next")
	step(`{"step":"updated","clients":["a","b","c"]}`)
	subscribed(0, "after the updates")
	for _, who := range []string{`"client":"a"`, `"client":"b"`} {
		fmt.Fprintln(stdin, "next")
		step(who)
		subscribed(0, who+" left")
	}
	fmt.Fprintln(stdin, "next")
	step(`"client":"c"`)
	testwait.For(t, 0, "the upstream subscription to end", func() bool { _, u := count(); return u >= 1 })
	subscribed(1, "the last client left")
}
