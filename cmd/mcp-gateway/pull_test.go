package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/internal/testgit"
)

// pullMain runs `mcp-gateway pull args...` in-process.
func pullMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(append([]string{"pull"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// writePullCatalog writes a catalog override file and returns its path.
func writePullCatalog(t *testing.T, entries map[string]catalog.Entry) string {
	t.Helper()
	b, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "catalog.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPullCatalogRunsInstallSteps(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"fake-installer installing $1\"\n[ \"$1\" = broken ] && exit 3\ntouch \"$MARKER_DIR/$1\"\n"
	if err := os.WriteFile(filepath.Join(bin, "fake-installer"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	markers := t.TempDir()
	t.Setenv("MARKER_DIR", markers)
	cat := writePullCatalog(t, map[string]catalog.Entry{
		"fake": {Description: "a fake server", Command: [][]string{{"fake-server"}},
			Install: [][]string{{"fake-installer", "pkg-a"}, {"fake-installer", "pkg-b"}}},
		"broken": {Description: "fails to install", Command: [][]string{{"fake-server"}},
			Install: [][]string{{"fake-installer", "broken"}, {"fake-installer", "never"}}},
	})

	code, out, errOut := pullMain("--catalog-file", cat, "fake")
	if code != 0 {
		t.Fatalf("pull fake: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{"pull fake: fake-installer pkg-a\n", "fake-installer installing pkg-a\n", "pull fake: fake-installer pkg-b\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, m := range []string{"pkg-a", "pkg-b"} {
		if _, err := os.Stat(filepath.Join(markers, m)); err != nil {
			t.Errorf("marker %s: %v", m, err)
		}
	}

	// The first failure stops the pull and is named; later servers do not run.
	os.RemoveAll(filepath.Join(markers, "pkg-a"))
	code, out, errOut = pullMain("--catalog-file", cat, "broken", "fake")
	if code != 1 {
		t.Fatalf("pull broken fake: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, want := range []string{`pull broken: step 1 of 2 (fake-installer broken)`, "exit status 3"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(out, "never") || strings.Contains(out, "pull fake") {
		t.Errorf("pull went on after the failure:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(markers, "pkg-a")); err == nil {
		t.Error("fake was installed after broken failed")
	}
}

func TestPullUnknownName(t *testing.T) {
	cat := writePullCatalog(t, map[string]catalog.Entry{})
	code, out, errOut := pullMain("--catalog-file", cat, "nosuch")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// The same listing as config validation gives.
	_, _, want := adapters.Parse([]byte(`{"nosuch": {}}`), adapters.Builtin(catalog.Builtin(), adapters.Options{}))
	if want == nil || !strings.Contains(errOut, want.Error()) {
		t.Errorf("stderr does not hold the config error %q:\n%s", want, errOut)
	}
	for _, name := range []string{"time", "filesystem", "github/<owner>/<repo>", "runCmd"} {
		if !strings.Contains(errOut, name) {
			t.Errorf("stderr does not list %q:\n%s", name, errOut)
		}
	}

	if code, _, errOut := pullMain("--catalog-file", cat); code != 2 {
		t.Errorf("pull with no names: exit %d, want 2\n%s", code, errOut)
	}
	if code, _, errOut := pullMain("--catalog-file", cat, "--install", "make", "time"); code != 2 {
		t.Errorf("pull --install of a catalog name: exit %d, want 2\n%s", code, errOut)
	}
}

func TestPullGitHubPreClones(t *testing.T) {
	srv := gitRepoServer(t)
	t.Setenv("GITHUB_TOKEN", "")
	t.Setenv("GH_TOKEN", "")

	servers := t.TempDir()
	cat := writePullCatalog(t, map[string]catalog.Entry{})
	// Flags after the name, as a Dockerfile would write it.
	code, out, errOut := pullMain("--catalog-file", cat, "--servers-dir", servers, "--github-url", srv.URL,
		"github/acme/hello", "--install", "cat README.md > built.txt; echo built")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	t.Logf("stdout:\n%s", out)
	dir := filepath.Join(servers, "github", "acme", "hello")
	if got, err := os.ReadFile(filepath.Join(dir, "built.txt")); err != nil || string(got) != "hello\n" {
		t.Errorf("built.txt = %q, %v; want the README", got, err)
	}
	for _, want := range []string{"pull github/acme/hello: clone into " + dir, "cloning " + srv.URL + "/acme/hello.git", "built\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}

	// A missing repository fails non-zero and names it.
	code, out, errOut = pullMain("--catalog-file", cat, "--servers-dir", servers, "--github-url", srv.URL, "github/acme/missing")
	if code != 1 || !strings.Contains(errOut, "acme/missing") {
		t.Errorf("pull of a missing repository: exit %d, want 1 naming it\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// A stalled install step ends with a clear error at --timeout, instead of
// hanging a template build.
func TestPullTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cat := writePullCatalog(t, map[string]catalog.Entry{
		"stall": {Description: "never finishes installing", Command: [][]string{{"x"}},
			Install: [][]string{{"/bin/sh", "-c", "sleep 601 & echo $! > " + pidFile + "; sleep 600"}}},
	})
	done := make(chan struct{})
	var code int
	var errOut string
	go func() {
		defer close(done)
		code, _, errOut = pullMain("--catalog-file", cat, "--timeout", "500ms", "stall")
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("pull still runs 30 s into a 500ms timeout")
	}
	if code != 1 || !strings.Contains(errOut, "pull stall: timed out after 500ms (raise --timeout)") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	// The step's whole process group went with it.
	b, _ := os.ReadFile(pidFile)
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || !waitExit(t, pid, 5*time.Second) {
		t.Errorf("the install step's background process (%q) outlived the timeout", b)
	}
}

// gitRepoServer serves a bare repository acme/hello.git (a README.md) with
// git http-backend, for the github adapter; it skips the test without git
// (fails under CI=true).
func gitRepoServer(t *testing.T) *httptest.Server {
	t.Helper()
	gitBin := testgit.Bin(t) // skips without git, but fails under CI=true
	root, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", work},
		{"-C", work, "add", "-A"},
		{"-C", work, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "initial"},
		{"clone", "-q", "--bare", work, filepath.Join(root, "acme", "hello.git")},
	} {
		cmd := exec.Command(gitBin, args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	srv := httptest.NewServer(&cgi.Handler{
		Path: gitBin, Args: []string{"http-backend"}, Stderr: io.Discard,
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + root},
	})
	t.Cleanup(srv.Close)
	return srv
}

// fakeNPMScript is an npm on PATH that installs as `npm install --prefix
// DIR … SPEC` does (the package's package.json, its bin linked into
// node_modules/.bin) and logs every command it is given to $NPM_LOG.
const fakeNPMScript = `#!/bin/sh
echo "npm $*" >> "$NPM_LOG"
[ "$1" = install ] || exit 0
prefix=$3
for spec; do :; done
name=${spec%@*}
[ -z "$name" ] && name=$spec
mkdir -p "$prefix/node_modules/$name" "$prefix/node_modules/.bin"
printf '{"name":"%s","version":"4.5.6","bin":{"fake-server":"index.js"}}' "$name" > "$prefix/node_modules/$name/package.json"
printf '#!/bin/sh\n' > "$prefix/node_modules/.bin/fake-server"
chmod +x "$prefix/node_modules/.bin/fake-server"
`

// An entry that runs a package through npx is pulled into the servers
// dir and recorded, in place of the install step that only installs that
// package; its other steps run, in order (SPEC §6.5). `catalog` then
// shows the version, and the config resolves to the pulled executable.
func TestPullInstallsAPackageEntry(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(fakeNPMScript), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	npmLog := filepath.Join(t.TempDir(), "npm.log")
	t.Setenv("NPM_LOG", npmLog)
	cat := writePullCatalog(t, map[string]catalog.Entry{
		"pkgd": {Description: "a package server", Command: [][]string{{"npx", "-y", "fake-pkg@4"}, {"--dir", "{{dir}}"}},
			Properties: map[string]catalog.Property{"dir": {Type: "string"}},
			Install:    [][]string{{"/bin/sh", "-c", "echo before >> $NPM_LOG"}, {"npm", "install", "-g", "fake-pkg@4"}, {"/bin/sh", "-c", "echo after >> $NPM_LOG"}}},
	})
	servers := filepath.Join(t.TempDir(), "servers")
	code, out, errOut := pullMain("--catalog-file", cat, "--servers-dir", servers, "pkgd")
	if code != 0 {
		t.Fatalf("pull: exit %d\n%s%s", code, out, errOut)
	}
	log, _ := os.ReadFile(npmLog)
	dir := filepath.Join(servers, "npm", "fake-pkg@4")
	if want := "before\nnpm install --prefix " + dir + " --no-audit --no-fund --no-update-notifier fake-pkg@4\nafter\n"; string(log) != want {
		t.Errorf("commands run:\n%s\nwant:\n%s", log, want)
	}
	if !strings.Contains(out, "pulled fake-pkg 4.5.6; it starts from "+filepath.Join(dir, "node_modules", ".bin", "fake-server")) {
		t.Errorf("pull output:\n%s", out)
	}
	var listing bytes.Buffer
	if code := Main([]string{"catalog", "--catalog-file", cat, "--servers-dir", servers}, &listing, io.Discard); code != 0 {
		t.Fatal("catalog failed")
	}
	if !regexp.MustCompile(`(?m)^pkgd\s+template\s+4\.5\.6\s`).MatchString(listing.String()) || !regexp.MustCompile(`(?m)^memory\s+built-in\s+no\s`).MatchString(listing.String()) {
		t.Errorf("catalog listing:\n%s", listing.String())
	}
	s := daemon.Settings{CatalogFile: cat, ServersDir: servers, AdaptersDir: t.TempDir()}
	got, _, _, err := daemon.Resolve(s, []byte(`{"pkgd": {"dir": "/d"}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.Join(dir, "node_modules", ".bin", "fake-server"), "--dir", "/d"}; !slices.Equal(got[0].Spec.Argv, want) || got[0].Spec.Pulled != "fake-pkg@4.5.6" {
		t.Errorf("resolved %q (pulled %q), want %q", got[0].Spec.Argv, got[0].Spec.Pulled, want)
	}
}
