package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// fakeEntry is a catalog entry that runs the fake server as name, with env
// ("K=V") for its behaviour.
func fakeEntry(name string, env ...string) map[string]any {
	return map[string]any{
		"description": "fake server " + name,
		"command":     [][]string{{"/bin/sh", "-c", fakeserver.ShellCommand(append([]string{"MCP_FAKE_NAME=" + name}, env...)...)}},
	}
}

// toolsEnv makes the fake list the named tools (echo among them, so that
// calls work).
func toolsEnv(names ...string) string {
	var tools []map[string]any
	for _, n := range names {
		tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
	}
	b, _ := json.Marshal(tools)
	return "MCP_FAKE_TOOLS=" + string(b)
}

func catalogJSON(t *testing.T, entries map[string]any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeInPlace truncates and rewrites the file, as `>` in a shell does.
func writeInPlace(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeRenameOver writes a temporary file beside path and renames it over
// path, as editors and config tools do.
func writeRenameOver(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".catalog.json.new")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// listChanged opens an MCP session over HTTP with its GET SSE stream and
// returns a channel that receives each notifications/tools/list_changed.
func listChanged(t *testing.T, url, token string) <-chan struct{} {
	t.Helper()
	session := openSession(t, url, token).id

	req, _ := http.NewRequest("GET", url+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		t.Fatalf("GET /mcp: %s", resp.Status)
	}
	t.Cleanup(func() { resp.Body.Close() })
	ch := make(chan struct{}, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "notifications/tools/list_changed") {
				ch <- struct{}{}
			}
		}
	}()
	return ch
}

// catalogEnv launches a gateway whose config names fa and fb, both from a
// catalog file with v1 of each, and returns it with the file's path.
func catalogEnv(t *testing.T) (*env, string) {
	t.Helper()
	e := newEnv(t)
	path := e.path("catalog.json")
	writeInPlace(t, path, catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v1", toolsEnv("echo", "a1")),
		"fb": fakeEntry("fb-v1", toolsEnv("echo", "b1")),
	}))
	e.mustLaunch(`{"fa": {}, "fb": {}}`)
	return e, path
}

// waitRestarted waits until server name runs with a pid other than old.
func (e *env) waitRestarted(name string, old int) int {
	e.t.Helper()
	var pid int
	testwait.For(e.t, 15*time.Second, name+" restarted", func() bool {
		pid = serverPID(e.health(), name)
		return pid != 0 && pid != old
	})
	return pid
}

// stillRuns checks for a while that server name keeps pid.
func (e *env) stillRuns(name string, pid int, d time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if got := serverPID(e.health(), name); got != pid {
			e.t.Fatalf("server %s: pid %d, want %d unchanged", name, got, pid)
		}
		time.Sleep(100 * time.Millisecond) // the check's pace over d: a negative check, nothing to wait for
	}
}

func TestReloadRenameOverRestartsOnlyChanged(t *testing.T) {
	e, path := catalogEnv(t)
	h := e.health()
	pidA, pidB := serverPID(h, "fa"), serverPID(h, "fb")
	if pidA == 0 || pidB == 0 {
		t.Fatalf("servers not running: %v", h)
	}
	notes := listChanged(t, e.url(), "t")

	writeRenameOver(t, path, catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v2", toolsEnv("echo", "a2")), // command and tools changed
		"fb": fakeEntry("fb-v1", toolsEnv("echo", "b1")), // the same
	}))
	e.waitRestarted("fa", pidA)
	select {
	case <-notes:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed on the SSE stream after the reload")
	}
	if got := serverPID(e.health(), "fb"); got != pidB {
		t.Errorf("fb: pid %d, want %d: an unchanged server was restarted", got, pidB)
	}
	if res := mcpCall(t, e.url(), "t", "echo", `{"text":"x"}`); !strings.Contains(res, "x from fa-v2") {
		t.Errorf("call after reload: %s", res)
	}
	// The fake itself answers "unknown tool a2": the call reached fa.
	if res := mcpCall(t, e.url(), "t", "a2", `{}`); strings.Contains(res, "unknown tool: ") {
		t.Errorf("a2, fa's new tool, is not listed: %s", res)
	}
	// One notification for one reload (go-sdk debounces).
	select {
	case <-notes:
		t.Error("a second tools/list_changed for one reload")
	case <-time.After(500 * time.Millisecond):
	}
	log := e.logText()
	for _, want := range []string{"catalog reloaded", "changed=fa", "restarted=fa"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

func TestReloadInPlaceWrite(t *testing.T) {
	e, path := catalogEnv(t)
	h := e.health()
	pidA, pidB := serverPID(h, "fa"), serverPID(h, "fb")
	writeInPlace(t, path, catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v1", toolsEnv("echo", "a1")),
		"fb": fakeEntry("fb-v2", toolsEnv("echo", "b1")), // only the command changed
	}))
	e.waitRestarted("fb", pidB)
	if got := serverPID(e.health(), "fa"); got != pidA {
		t.Errorf("fa: pid %d, want %d unchanged", got, pidA)
	}
	if res := mcpCall(t, e.url(), "t", "fb_echo", `{"text":"x"}`); !strings.Contains(res, "x from fb-v2") {
		t.Errorf("call after reload: %s", res)
	}
}

// Deleting the file removes its entries; a server with no built-in entry
// to fall back on keeps running on its last command, with a warning.
func TestReloadDeleteKeepsServers(t *testing.T) {
	e, path := catalogEnv(t)
	h := e.health()
	pidA, pidB := serverPID(h, "fa"), serverPID(h, "fb")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	testwait.For(t, 10*time.Second, "the warnings in the log", func() bool {
		log := e.logText()
		return strings.Contains(log, "no longer resolves") && strings.Contains(log, "server=fa") && strings.Contains(log, "server=fb")
	})
	e.stillRuns("fa", pidA, time.Second)
	if got := serverPID(e.health(), "fb"); got != pidB {
		t.Errorf("fb: pid %d, want %d", got, pidB)
	}
	if res := mcpCall(t, e.url(), "t", "echo", `{"text":"x"}`); !strings.Contains(res, "x from fa-v1") {
		t.Errorf("call after the file was deleted: %s", res)
	}
	// The file created again, with fa changed: picked up.
	writeInPlace(t, path, catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v3", toolsEnv("echo", "a1")),
		"fb": fakeEntry("fb-v1", toolsEnv("echo", "b1")),
	}))
	e.waitRestarted("fa", pidA)
	if got := serverPID(e.health(), "fb"); got != pidB {
		t.Errorf("fb: pid %d, want %d", got, pidB)
	}
}

// A removed override falls back to the built-in entry of that name.
func TestReloadRemovedOverrideFallsBackToBuiltin(t *testing.T) {
	e := newEnv(t)
	path := e.path("catalog.json")
	writeInPlace(t, path, catalogJSON(t, map[string]any{"time": fakeEntry("time-override")}))
	// A short start timeout bounds the built-in's start, should uvx exist.
	e.mustLaunch(`{"time": {}}`, "--startup-timeout", "10s")
	if res := mcpCall(t, e.url(), "t", "echo", `{"text":"x"}`); !strings.Contains(res, "x from time-override") {
		t.Fatalf("call: %s", res)
	}
	writeInPlace(t, path, []byte(`{}`))
	testwait.For(t, 30*time.Second, "the reload to the built-in time", func() bool {
		return strings.Contains(e.logText(), "updated=time")
	})
	if strings.Contains(e.logText(), "no longer resolves") {
		t.Error("time did not fall back to its built-in entry")
	}
}

// An invalid file is logged and changes nothing; a later valid one is
// picked up.
func TestReloadInvalidThenValid(t *testing.T) {
	e, path := catalogEnv(t)
	h := e.health()
	pidA, pidB := serverPID(h, "fa"), serverPID(h, "fb")
	for i, bad := range []string{
		`{"fa": `,                               // bad JSON
		`{"fa": {"description": "no command"}}`, // a bad entry
	} {
		writeInPlace(t, path, []byte(bad))
		testwait.For(t, 10*time.Second, "the error in the log", func() bool {
			return strings.Count(e.logText(), "catalog reload failed") > i
		})
	}
	log := e.logText()
	for _, want := range []string{"last good catalog stays in force", "command is empty"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	// `reload` says so too, and fails.
	code, _, errOut := e.ctl("reload")
	if code == 0 || !strings.Contains(errOut, "last good catalog stays in force") {
		t.Errorf("reload of an invalid file: exit %d, %q", code, errOut)
	}
	e.stillRuns("fa", pidA, 500*time.Millisecond)
	if got := serverPID(e.health(), "fb"); got != pidB {
		t.Errorf("fb restarted by an invalid file")
	}
	if res := mcpCall(t, e.url(), "t", "echo", `{"text":"x"}`); !strings.Contains(res, "x from fa-v1") {
		t.Errorf("call with an invalid file: %s", res)
	}

	writeInPlace(t, path, catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v2", toolsEnv("echo", "a1")),
		"fb": fakeEntry("fb-v1", toolsEnv("echo", "b1")),
	}))
	e.waitRestarted("fa", pidA)
	if got := serverPID(e.health(), "fb"); got != pidB {
		t.Errorf("fb: pid %d, want %d", got, pidB)
	}
}

// The file, and its directory, created after the daemon started.
func TestReloadFileCreatedLater(t *testing.T) {
	e := newEnv(t)
	path := e.path("later/etc/catalog.json")
	e.mustLaunch(fakeConfig(map[string][]string{"a": nil}), "--catalog-file", path)
	pidA := serverPID(e.health(), "a")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeRenameOver(t, path, catalogJSON(t, map[string]any{"fz": fakeEntry("fz")}))
	testwait.For(t, 10*time.Second, "the reload in the log", func() bool {
		return strings.Contains(e.logText(), "added=fz")
	})
	if got := serverPID(e.health(), "a"); got != pidA {
		t.Errorf("a: pid %d, want %d", got, pidA)
	}
	// `catalog` reads the same file and shows the entry as the template's.
	code, out, _ := e.run(nil, "catalog", "--catalog-file", path)
	if code != 0 || !strings.Contains(out, "fz") {
		t.Errorf("catalog: exit %d, %s", code, out)
	}
}

// `reload` re-reads the file at once and says what it restarted.
func TestReloadCommand(t *testing.T) {
	e, path := catalogEnv(t)
	pidA := serverPID(e.health(), "fa")
	writeInPlace(t, path, catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v2", toolsEnv("echo", "a1")),
		"fb": fakeEntry("fb-v1", toolsEnv("echo", "b1")),
	}))
	code, out, errOut := e.ctl("reload")
	if code != 0 {
		t.Fatalf("reload: exit %d: %s", code, errOut)
	}
	t.Logf("reload:\n%s", out)
	// The watcher may have been first; then reload found nothing left to do
	// and the log holds the restart.
	if !strings.Contains(out, "restarted fa") {
		if !strings.Contains(out, "nothing restarted") || !strings.Contains(e.logText(), "restarted=fa") {
			t.Errorf("reload output:\n%s", out)
		}
	} else if !strings.Contains(out, "changed fa") {
		t.Errorf("reload output lacks the changed entry:\n%s", out)
	}
	if got := serverPID(e.health(), "fa"); got == pidA || got == 0 {
		t.Errorf("fa: pid %d after reload, was %d", got, pidA)
	}
	// Nothing changed: every key is there, with an empty list.
	code, out, _ = e.ctl("reload", "--json")
	var res map[string][]any
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res) != 7 {
		t.Errorf("second reload --json: exit %d, %s (%v); want 7 keys", code, out, err)
	}
	for k, v := range res {
		if v == nil || len(v) != 0 {
			t.Errorf("second reload --json: %s is %v, want []", k, v)
		}
	}
}

// A change made while the servers were starting (before the watcher ran)
// is caught up with once the gateway is ready.
func TestReloadChangeDuringStartup(t *testing.T) {
	e := newEnv(t)
	path := e.path("catalog.json")
	writeInPlace(t, path, catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v1", "MCP_FAKE_START_DELAY=1500"),
		"fb": fakeEntry("fb-v1"),
	}))
	// Written once the daemon has resolved the catalog and is starting the
	// servers (fa takes 1.5 s), so before it is ready.
	v2 := catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v1", "MCP_FAKE_START_DELAY=1500"),
		"fb": fakeEntry("fb-v2"),
	})
	written := make(chan error, 1)
	go func() {
		// Until, not For: this goroutine may not fail the test.
		if !testwait.Until(15*time.Second, func() bool { return strings.Contains(e.logText(), "starting servers") }) {
			written <- errors.New(`the log did not say "starting servers" within 15 s`)
			return
		}
		written <- os.WriteFile(path, v2, 0o644)
	}()
	e.mustLaunch(`{"fa": {}, "fb": {}}`)
	select {
	case err := <-written:
		if err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatal("the gateway was ready before the catalog changed: nothing was tested")
	}
	testwait.For(t, 15*time.Second, "fb on its new command", func() bool {
		return strings.Contains(mcpCall(t, e.url(), "t", "fb_echo", `{"text":"x"}`), "x from fb-v2")
	})
	if strings.Contains(e.logText(), "updated=fa") {
		t.Error("fa restarted although its entry did not change")
	}
}

// listenChanged opens a 2026-07-28 subscriptions/listen stream and
// returns a channel that receives each notifications/tools/list_changed
// tagged with the subscription's id.
func listenChanged(t *testing.T, url, token string) <-chan struct{} {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		t.Fatalf("subscriptions/listen: %s", resp.Status)
	}
	t.Cleanup(func() { resp.Body.Close() })
	acked := make(chan struct{})
	ch := make(chan struct{}, 16)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			switch line := sc.Text(); {
			case strings.Contains(line, "notifications/subscriptions/acknowledged"):
				close(acked)
			case strings.Contains(line, "notifications/tools/list_changed") && strings.Contains(line, `"io.modelcontextprotocol/subscriptionId":"sub"`):
				ch <- struct{}{}
			}
		}
	}()
	select {
	case <-acked:
	case <-time.After(10 * time.Second):
		t.Fatal("subscriptions/listen was not acknowledged within 10 s")
	}
	return ch
}

// A modern client's listen stream learns of a reload that changed the
// tool list, as a legacy session's GET stream does (SPEC §4.5).
func TestReloadReachesListenStreams(t *testing.T) {
	e, path := catalogEnv(t)
	pidA := serverPID(e.health(), "fa")
	notes := listenChanged(t, e.url(), "t")
	writeRenameOver(t, path, catalogJSON(t, map[string]any{
		"fa": fakeEntry("fa-v2", toolsEnv("echo", "a2")),
		"fb": fakeEntry("fb-v1", toolsEnv("echo", "b1")),
	}))
	e.waitRestarted("fa", pidA)
	select {
	case <-notes:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed on the listen stream after the reload")
	}
}
