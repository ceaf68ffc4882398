package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// npmBin is the example adapter, built once by TestMain.
var npmBin string

func TestMain(m *testing.M) {
	if os.Getenv(Handshake.MagicCookieKey) != "" {
		if fake, ok := fakes[filepath.Base(os.Args[0])]; ok {
			fake()
			os.Exit(0)
		}
	}
	dir, err := os.MkdirTemp("", "adapter-plugin-test-")
	if err != nil {
		panic(err)
	}
	npmBin = filepath.Join(dir, "npm")
	build := exec.Command("go", "build", "-o", npmBin, "github.com/mcp-gateway/mcp-gateway/examples/adapters/npm")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the example adapter: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// adapterDir makes an adapters dir holding the named fakes (links to this
// test binary) and, for "npm", the example adapter.
func adapterDir(t *testing.T, names ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range names {
		target := self
		if name == "npm" {
			target = npmBin
		} else if _, ok := fakes[name]; !ok {
			t.Fatalf("no fake %q", name)
		}
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// logLines is a Log that keeps what it gets.
type logLines struct {
	mu sync.Mutex
	l  []string
}

func (l *logLines) Line(source, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, "["+source+"] "+text)
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.l, "\n")
}

// noLeftovers fails if a child of this process, or any process running
// this test binary or the example adapter, is still there.
func noLeftovers(t *testing.T) {
	t.Helper()
	self, _ := os.Executable()
	me := os.Getpid()
	// go-plugin's Kill has returned, so each adapter has been reaped; the
	// loop only covers the kernel catching up with a group kill.
	var left []string
	if !testwait.Until(2*time.Second, func() bool {
		left = nil
		procs, _ := filepath.Glob("/proc/[0-9]*")
		for _, p := range procs {
			pid, _ := strconv.Atoi(filepath.Base(p))
			if pid == me {
				continue
			}
			stat, err := os.ReadFile(filepath.Join(p, "stat"))
			if err != nil {
				continue
			}
			// pid (comm) state ppid …; comm may hold spaces.
			fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
			exe, _ := os.Readlink(filepath.Join(p, "exe"))
			if (len(fields) > 1 && fields[1] == strconv.Itoa(me)) || exe == self || exe == npmBin {
				cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
				left = append(left, fmt.Sprintf("pid %d (%s, state %s)", pid, strings.ReplaceAll(string(cmdline), "\x00", " "), fields[0]))
			}
		}
		return len(left) == 0
	}) {
		t.Fatalf("processes left running: %s", strings.Join(left, "; "))
	}
}

func builtins() []adapters.Adapter {
	return adapters.Builtin(catalog.Builtin(), adapters.Options{BaseURL: "https://github.com", ServersDir: "/nonexistent"})
}

func load(t *testing.T, dir string, timeout time.Duration, env []string) ([]adapters.Adapter, func(), *logLines, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	log := &logLines{}
	list, closeAll, err := Load(ctx, dir, env, log)
	if closeAll == nil {
		t.Fatal("Load returned a nil closeAll")
	}
	return list, closeAll, log, err
}

func TestNPMExample(t *testing.T) {
	dir := adapterDir(t, "npm")
	list, closeAll, log, err := load(t, dir, 20*time.Second, []string{"PATH=" + os.Getenv("PATH")})
	if err != nil {
		t.Fatal(err)
	}
	defer noLeftovers(t)
	defer closeAll()
	if len(list) != 1 || list[0].Kind() != "adapter:npm" {
		t.Fatalf("adapters %v, want one of kind adapter:npm", list)
	}
	all := append(builtins(), list...)

	servers, warns, err := adapters.Parse([]byte(`{"npm/@modelcontextprotocol/server-everything":{}}`), all)
	if err != nil || len(warns) > 0 {
		t.Fatalf("Parse: %v (warnings %v)", err, warns)
	}
	want := adapters.LaunchSpec{
		Kind:    "adapter:npm",
		Argv:    []string{"npx", "-y", "@modelcontextprotocol/server-everything"},
		Install: [][]string{{"npm", "exec", "--yes", "--package=@modelcontextprotocol/server-everything", "--", "true"}},
	}
	if diff := cmp.Diff(want, servers[0].Spec, cmpSpec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}

	servers, warns, err = adapters.Parse([]byte(`{"npm/left-pad@1.3.0":{"args":["stdio","--port","0"],"envs":{"API_KEY":"k-12345"},"extra":1}}`), all)
	if err != nil {
		t.Fatal(err)
	}
	want = adapters.LaunchSpec{
		Kind:    "adapter:npm",
		Argv:    []string{"npx", "-y", "left-pad@1.3.0", "stdio", "--port", "0"},
		Env:     map[string]string{"API_KEY": "k-12345"},
		Secrets: []string{"k-12345"},
		Install: [][]string{{"npm", "exec", "--yes", "--package=left-pad@1.3.0", "--", "true"}},
	}
	if diff := cmp.Diff(want, servers[0].Spec, cmpSpec); diff != "" {
		t.Errorf("spec with args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`server "npm/left-pad@1.3.0": unknown property "extra" ignored`}, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	_, _, err = adapters.Parse([]byte(`{"npm/-rf": {}, "npm/x": {"args": "oops"}}`), all)
	for _, want := range []string{`server "npm/-rf": key must be "npm/<package>"`, `server "npm/x": args: want an array of strings`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("invalid entries: error %v, want %q", err, want)
		}
	}

	_, _, err = adapters.Parse([]byte(`{"nosuchthing": {}}`), all)
	if want := `"npm/<package>" with optional {"args": [...]} to run npx -y <package> <args…> (adapter npm)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("unknown server: error %v, want it to list %q", err, want)
	}
	// github/ stays the built-in's.
	if servers, _, err := adapters.Parse([]byte(`{"github/a/b": {"runCmd": "x"}}`), all); err != nil || servers[0].Spec.Kind != "github" {
		t.Errorf("github/a/b: %v, %+v", err, servers)
	}
	closeAll()
	// go-plugin's own messages stay out of the log at its default level.
	if got := log.String(); strings.Contains(got, "plugin address") || strings.Contains(got, "[DEBUG]") {
		t.Errorf("log has go-plugin debug lines:\n%s", got)
	}
}

var cmpSpec = cmp.Comparer(func(a, b func(context.Context, []string, io.Writer) error) bool {
	return (a == nil) == (b == nil)
})

func TestContract(t *testing.T) {
	dir := adapterDir(t, "fake")
	list, closeAll, log, err := load(t, dir, 20*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer noLeftovers(t)
	defer closeAll()
	all := append(builtins(), list...)

	servers, warns, err := adapters.Parse([]byte(`{"fake/srv": {"runCmd": "ignored", "envs": {"TOKEN": "s3cret-value"}, "p": [1]}}`), all)
	if err != nil {
		t.Fatal(err)
	}
	// runCmd claims the entry for the command adapter first: built-ins
	// take precedence over a prefix.
	if servers[0].Spec.Kind != "command" {
		t.Errorf("kind %q, want command (built-ins first)", servers[0].Spec.Kind)
	}

	servers, warns, err = adapters.Parse([]byte(`{"fake/srv": {"envs": {"TOKEN": "s3cret-value"}, "p": [1]}}`), all)
	if err != nil {
		t.Fatal(err)
	}
	want := adapters.LaunchSpec{
		Kind:    "adapter:fake",
		Argv:    []string{"srv", "arg"},
		Env:     map[string]string{"FROM_ADAPTER": "1", "TOKEN": "s3cret-value"}, // the entry's envs win
		Dir:     "/tmp",
		Secrets: []string{"s3cret-value"},
		Install: [][]string{{"true", "srv"}},
	}
	if diff := cmp.Diff(want, servers[0].Spec, cmpSpec); diff != "" {
		t.Errorf("spec (-want +got):\n%s", diff)
	}
	slices.Sort(warns)
	if diff := cmp.Diff([]string{`server "fake/srv": saw property p`, `server "fake/srv": saw token [REDACTED]`}, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	_, warns, err = adapters.Parse([]byte(`{"fake/bad": {"envs": {"TOKEN": "s3cret-value"}}}`), all)
	wantErr := "server \"fake/bad\": first problem\nserver \"fake/bad\": second problem, token [REDACTED]"
	if err == nil || err.Error() != wantErr {
		t.Errorf("error:\n%v\nwant:\n%s", err, wantErr)
	}
	if diff := cmp.Diff([]string{`server "fake/bad": a warning`}, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}

	_, _, err = adapters.Parse([]byte(`{"nosuchthing": {}}`), all)
	if want := `"fake/…" (adapter fake)`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("unknown server: error %v, want it to list %q", err, want)
	}

	// What the adapter writes to os.Stderr after Serve travels on go-plugin's
	// gRPC stdio stream, which nothing can wait for: a line still in flight
	// when the adapter is stopped is lost. Wait for it, generously.
	testwait.Until(5*time.Second, func() bool { return strings.Contains(log.String(), "resolving fake/srv") })
	closeAll()
	got := log.String()
	for _, want := range []string{"[adapter:fake] fake adapter starting", "[adapter:fake] resolving fake/srv"} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	_, _, err = list[0].Resolve("fake/x", adapters.Entry{})
	if err == nil || !strings.Contains(err.Error(), "stopped") || !strings.Contains(err.Error(), filepath.Join(dir, "fake")) {
		t.Errorf("resolve after closeAll: %v", err)
	}
}

// TestForeignAdapter speaks to an adapter written to the documented
// protocol alone. Without go-plugin's controller service its shutdown takes
// go-plugin's 2 s grace before the kill.
func TestForeignAdapter(t *testing.T) {
	list, closeAll, _, err := load(t, adapterDir(t, "foreign"), 20*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	servers, warns, err := adapters.Parse([]byte(`{"py/mcp-server-time": {"a": 1, "b": 2}}`), append(builtins(), list...))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"uvx", "mcp-server-time"}, servers[0].Spec.Argv); diff != "" {
		t.Errorf("argv (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`server "py/mcp-server-time": entry has 2 fields`}, warns); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	t0 := time.Now()
	closeAll()
	t.Logf("closeAll took %s", time.Since(t0))
	noLeftovers(t)
}

func TestEnvironmentIsExactlyTheGivenOne(t *testing.T) {
	t.Setenv("GATEWAY_ACCESS_TOKEN", "must-not-leak")
	list, closeAll, _, err := load(t, adapterDir(t, "env"), 20*time.Second, []string{"GIVEN=yes"})
	if err != nil {
		t.Fatal(err)
	}
	defer noLeftovers(t)
	defer closeAll()
	spec, _, err := list[0].Resolve("env/x", adapters.Entry{})
	if err != nil {
		t.Fatal(err)
	}
	env := strings.Join(spec.Argv, "\n")
	if !strings.Contains(env, "GIVEN=yes") || strings.Contains(env, "must-not-leak") || strings.Contains(env, "HOME=") {
		t.Errorf("adapter environment:\n%s", env)
	}
}

func TestBrokenAdapters(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		want    string
	}{
		{"crash", 20 * time.Second, `it exited before its handshake (exit status 3); its output ended: "adapter crash: boom"`},
		{"hang", 1500 * time.Millisecond, "no handshake within 1.5s"},
		{"garbage", 20 * time.Second, "bad handshake: Unrecognized remote plugin message: hello, I am not an adapter"},
		{"badcookie", 20 * time.Second, "it exited before its handshake (exit status 1); its output ended: \"This binary is a plugin."},
		{"v2", 20 * time.Second, "bad handshake: incompatible API version with plugin. Plugin version: 2, Client versions: [1]"},
		{"noprefix", 20 * time.Second, "it declares no key prefixes"},
		{"badpre", 20 * time.Second, `prefix "no slash": want a prefix ending with "/"`},
		{"github", 20 * time.Second, `prefix "github/acme/" overlaps the built-in "github/" keys`},
		{"certline", 20 * time.Second, "bad handshake: "},
		{"mute", 3 * time.Second, "no answer in time"},
		{"describe-garbage", 20 * time.Second, "invalid response: json: cannot unmarshal string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := adapterDir(t, tc.name, "fake")
			t0 := time.Now()
			list, _, _, err := load(t, dir, tc.timeout, nil)
			if err == nil {
				t.Fatalf("no error; adapters %v", list)
			}
			t.Logf("error: %v", err)
			if !strings.Contains(err.Error(), filepath.Join(dir, tc.name)) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant one naming %s and saying %q", err, filepath.Join(dir, tc.name), tc.want)
			}
			if strings.Contains(err.Error(), filepath.Join(dir, "fake")) {
				t.Errorf("error blames the good adapter too: %v", err)
			}
			if d := time.Since(t0); d > tc.timeout+3*time.Second {
				t.Errorf("Load took %s", d)
			}
			noLeftovers(t)
		})
	}
}

func TestPrefixClaimedTwice(t *testing.T) {
	dir := adapterDir(t, "dup-a", "dup-b", "nested")
	_, _, _, err := load(t, dir, 20*time.Second, nil)
	t.Logf("error: %v", err)
	a, b, n := filepath.Join(dir, "dup-a"), filepath.Join(dir, "dup-b"), filepath.Join(dir, "nested")
	for _, want := range []string{
		fmt.Sprintf(`prefix "npm/" is claimed twice: by adapters %s and %s`, a, b),
		fmt.Sprintf(`prefix "npm/@corp/" of adapter %s overlaps prefix "npm/" of adapter %s`, n, a),
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error:\n%v\nwant it to say %q", err, want)
		}
	}
	noLeftovers(t)
}

func TestResolveFailures(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		timeout   time.Duration
		want      string
	}{
		{"crash-resolve", "cr/x", 20 * time.Second, "resolve: it exited (exit status 2)"},
		{"hang-resolve", "hr/x", 2 * time.Second, "resolve: no answer in time: context deadline exceeded"},
		{"badspec", "bs/x", 20 * time.Second, "resolve: invalid launch spec: argv is empty"},
		{"nonjson", "nj/x", 20 * time.Second, "resolve: invalid response: invalid character '<'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := adapterDir(t, tc.name)
			list, closeAll, _, err := load(t, dir, tc.timeout, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = adapters.Parse(fmt.Appendf(nil, `{%q: {}}`, tc.key), append(builtins(), list...))
			t.Logf("error: %v", err)
			want := fmt.Sprintf("server %q: adapter %s: %s", tc.key, filepath.Join(dir, tc.name), tc.want)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error:\n%v\nwant:\n%s", err, want)
			}
			closeAll()
			noLeftovers(t)
		})
	}
}

func TestBadSpecDetails(t *testing.T) {
	_, err := checkSpec(resolveResponse{Argv: []string{"x", "a\x00b"}, Dir: "rel", Env: map[string]string{"BAD NAME": "v"}, Install: [][]string{{}}})
	for _, want := range []string{"argv has a NUL byte", `dir "rel" is not absolute`, `variable name "BAD NAME"`, "install step 1 is empty"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkSpec: %v, want %q", err, want)
		}
	}
}

func TestDiscovery(t *testing.T) {
	list, closeAll, _, err := load(t, filepath.Join(t.TempDir(), "missing"), time.Second, nil)
	if err != nil || len(list) != 0 {
		t.Errorf("missing dir: %v, %v", list, err)
	}
	closeAll()

	dir := adapterDir(t, "fake")
	os.WriteFile(filepath.Join(dir, "README"), []byte("not executable"), 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden"), []byte("#!/bin/sh\nexit 1\n"), 0o755)
	os.Mkdir(filepath.Join(dir, "subdir"), 0o755)
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling"))
	log := &logLines{}
	paths, err := discover(dir, log)
	if diff := cmp.Diff([]string{filepath.Join(dir, "fake")}, paths); err != nil || diff != "" {
		t.Errorf("discover: %v (-want +got):\n%s", err, diff)
	}
	// Each skipped entry but the dotfile says why.
	for _, want := range []string{"[adapter:README] skipped: not executable (mode -rw-r--r--)", "[adapter:subdir] skipped: not a regular file", "[adapter:dangling] skipped: "} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
	if strings.Contains(log.String(), ".hidden") {
		t.Errorf("log names the dotfile:\n%s", log.String())
	}

	// A file that cannot be executed is an error naming it.
	os.WriteFile(filepath.Join(dir, "notabinary"), []byte("\x7fELF garbage"), 0o755)
	_, _, _, err = load(t, dir, 5*time.Second, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "notabinary")+": cannot run it: ") {
		t.Errorf("not a binary: %v", err)
	}
	noLeftovers(t)
}

// TestWire runs the service in-process (go-plugin's TestPluginGRPCConn)
// and checks the JSON an adapter in another language would see.
func TestWire(t *testing.T) {
	rec := &recorder{resolve: []byte(`{"argv":["a"],"warnings":["w"]}`)}
	client, server := goplugin.TestPluginGRPCConn(t, false, goplugin.PluginSet{pluginName: &testPlugin{srv: rec}})
	defer client.Close()
	defer server.Stop()
	raw, err := client.Dispense(pluginName)
	if err != nil {
		t.Fatal(err)
	}
	rpc := raw.(*rpcClient)
	run := "echo hi"
	e := adapters.Entry{RunCmd: &run, Envs: map[string]string{"A": "b"}, Props: map[string]json.RawMessage{"args": json.RawMessage(`["x"]`)}}
	resp, err := rpc.resolve(context.Background(), "npm/x", encodeEntry(e))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(resolveResponse{Argv: []string{"a"}, Warnings: []string{"w"}}, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	want := `{"protocol":1,"key":"npm/x","entry":{"args":["x"],"envs":{"A":"b"},"runCmd":"echo hi"}}`
	if diff := cmp.Diff(want, string(rec.got)); diff != "" {
		t.Errorf("request bytes (-want +got):\n%s", diff)
	}
	back, err := decodeEntry(mustObject(t, rec.got))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e, back); diff != "" {
		t.Errorf("entry round trip (-want +got):\n%s", diff)
	}
}

// testPlugin serves srv and dispenses our client, in one process.
type testPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	srv service
}

func (p *testPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	s.RegisterService(&serviceDesc, p.srv)
	return nil
}

func (p *testPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &rpcClient{conn: c}, nil
}

type recorder struct {
	got, resolve []byte
}

func (r *recorder) handle(method string, in []byte) ([]byte, error) {
	if method == "Resolve" {
		r.got = in
		return r.resolve, nil
	}
	return []byte(`{"protocol":1,"prefixes":["npm/"]}`), nil
}

func mustObject(t *testing.T, req []byte) map[string]json.RawMessage {
	var r resolveRequest
	if err := json.Unmarshal(req, &r); err != nil {
		t.Fatal(err)
	}
	return r.Entry
}

// splitterLog is a Log that also chooses where long lines are split, as
// the gateway's log does.
type splitterLog struct{ logLines }

func (*splitterLog) HoldBack() int                    { return 0 }
func (*splitterLog) Cut(window string, limit int) int { return limit }

// An adapter's output is split where the gateway's log allows, as a
// server's is: before, the adapter loader had its own splitter, which
// could cut through a secret the log masks.
func TestOutputUsesTheLogsSplitter(t *testing.T) {
	log := &splitterLog{}
	if w := (&output{log: log}).stream(); w.Split != log {
		t.Errorf("stream splits with %v, want the log", w.Split)
	}
	if w := (&output{log: &logLines{}}).stream(); w.Split != nil {
		t.Errorf("stream over a plain Log splits with %v, want nil", w.Split)
	}
}
