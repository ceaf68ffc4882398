package adapters_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/internal/testgit"
)

// gitServer is a git smart-HTTP server (git http-backend behind net/http/cgi)
// serving the bare repositories under root as /<owner>/<repo>.git.
type gitServer struct {
	*httptest.Server
	root     string
	requests atomic.Int64 // every request, counted before wrap sees it
}

// newGitServer starts a server; wrap, if not nil, wraps the git handler
// (auth checks, injected failures).
func newGitServer(t *testing.T, wrap func(http.Handler) http.Handler) *gitServer {
	t.Helper()
	gitBin := testgit.Bin(t) // skips without git, but fails under CI=true
	gs := &gitServer{root: t.TempDir()}
	var h http.Handler = &cgi.Handler{
		Path:   gitBin,
		Args:   []string{"http-backend"},
		Env:    []string{"GIT_PROJECT_ROOT=" + gs.root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "HOME=" + gs.root},
		Stderr: io.Discard, // "Not a git repository" and the like
	}
	if wrap != nil {
		h = wrap(h)
	}
	gs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gs.requests.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(gs.Close)
	return gs
}

// addRepo creates the bare repository <owner>/<repo>.git with one commit
// holding files (name → content).
func (gs *gitServer) addRepo(t *testing.T, owner, repo string, files map[string]string) {
	t.Helper()
	work := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runGit(t, work, "init", "-q", "-b", "main")
	runGit(t, work, "add", "-A")
	runGit(t, work, "commit", "-q", "-m", "initial")
	runGit(t, "", "clone", "-q", "--bare", work, filepath.Join(gs.root, owner, repo+".git"))
}

// basicAuthOnly is git server middleware that answers 401 unless the
// request has HTTP basic auth user:pass.
func basicAuthOnly(user, pass string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// githubSpec resolves one github/<owner>/<repo> entry the way the daemon does.
func githubSpec(t *testing.T, baseURL, serversDir, key, entry string) adapters.LaunchSpec {
	t.Helper()
	list := adapters.Builtin(catalog.Builtin(), adapters.Options{BaseURL: baseURL, ServersDir: serversDir})
	servers, _, err := adapters.Parse([]byte(`{"`+key+`": `+entry+`}`), list)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(servers) != 1 || servers[0].Spec.Prepare == nil {
		t.Fatalf("Parse gave %+v, want one spec with Prepare", servers)
	}
	return servers[0].Spec
}

// leftovers lists the "~" siblings of dir (temporary or set-aside clones).
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(dir + "~*")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var helloFiles = map[string]string{
	"README.md": "hello\n",
	"server.sh": "#!/bin/sh\necho serving\n",
}

func TestGitHubCloneAndInstall(t *testing.T) {
	gs := newGitServer(t, nil)
	gs.addRepo(t, "acme", "hello", helloFiles)
	servers := t.TempDir()
	spec := githubSpec(t, gs.URL, servers, "github/acme/hello",
		`{"installCmd": "echo \"$GREETING\" > installed.txt", "runCmd": "sh server.sh"}`)

	dir := filepath.Join(servers, "github", "acme", "hello")
	if spec.Dir != dir {
		t.Fatalf("spec.Dir = %q, want %q", spec.Dir, dir)
	}
	var out bytes.Buffer
	start := time.Now()
	if err := spec.Prepare(context.Background(), []string{"PATH=" + os.Getenv("PATH"), "GREETING=hi from env"}, &out); err != nil {
		t.Fatalf("Prepare: %v\n%s", err, out.String())
	}
	t.Logf("clone and install of a small repository over local HTTP: %v\n%s", time.Since(start), out.String())

	for name, want := range map[string]string{"README.md": "hello\n", "installed.txt": "hi from env\n"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	for _, want := range []string{"cloning " + gs.URL + "/acme/hello.git into " + dir, "cloned in "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "\r") {
		t.Errorf("output has carriage returns: %q", out.String())
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("leftovers after success: %v", l)
	}
}

func TestGitHubCloneMissingRepository(t *testing.T) {
	gs := newGitServer(t, nil)
	servers := t.TempDir()
	spec := githubSpec(t, gs.URL, servers, "github/acme/missing", `{"runCmd": "true"}`)

	err := spec.Prepare(context.Background(), nil, nil)
	if err == nil {
		t.Fatal("Prepare of a missing repository succeeded")
	}
	if !strings.Contains(err.Error(), "acme/missing") {
		t.Errorf("error %q does not name the repository", err)
	}
	t.Logf("error: %v", err)
	if _, statErr := os.Stat(spec.Dir); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("%s exists after a failed clone (stat: %v)", spec.Dir, statErr)
	}
	if l := leftovers(t, spec.Dir); len(l) > 0 {
		t.Errorf("leftovers after a failed clone: %v", l)
	}
}

// TestGitHubCloneCutOffThenRetry cuts the first pack download off halfway,
// then retries with a leftover of a crashed run lying beside the target.
func TestGitHubCloneCutOffThenRetry(t *testing.T) {
	var cut atomic.Bool
	gs := newGitServer(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/git-upload-pack") || !cut.CompareAndSwap(false, true) {
				next.ServeHTTP(w, r)
				return
			}
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			body := rec.Body.Bytes()
			_, _ = w.Write(body[:len(body)/2])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // drop the connection mid-body
		})
	})
	big := bytes.Repeat([]byte("some content that makes the pack non-trivial\n"), 2000)
	gs.addRepo(t, "acme", "hello", map[string]string{"README.md": "hello\n", "big.txt": string(big)})
	servers := t.TempDir()
	spec := githubSpec(t, gs.URL, servers, "github/acme/hello", `{"runCmd": "true"}`)

	err := spec.Prepare(context.Background(), nil, nil)
	if err == nil {
		t.Fatal("Prepare succeeded although the pack was cut off")
	}
	t.Logf("cut-off error: %v", err)
	if !cut.Load() {
		t.Fatal("the pack request never arrived")
	}
	if _, statErr := os.Stat(spec.Dir); !errors.Is(statErr, os.ErrNotExist) {
		t.Fatalf("%s exists after an interrupted clone (stat: %v)", spec.Dir, statErr)
	}

	// A crashed earlier run's temporary clone, and a neighbour that must survive.
	junk := spec.Dir + "~clone-12345"
	if err := os.MkdirAll(filepath.Join(junk, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	neighbour := spec.Dir + "-extra"
	if err := os.MkdirAll(neighbour, 0o755); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if err := spec.Prepare(context.Background(), nil, &out); err != nil {
		t.Fatalf("retry: %v\n%s", err, out.String())
	}
	if got, err := os.ReadFile(filepath.Join(spec.Dir, "big.txt")); err != nil || !bytes.Equal(got, big) {
		t.Errorf("big.txt after retry: %d bytes, %v; want %d bytes", len(got), err, len(big))
	}
	if l := leftovers(t, spec.Dir); len(l) > 0 {
		t.Errorf("leftovers after retry: %v", l)
	}
	if _, err := os.Stat(neighbour); err != nil {
		t.Errorf("neighbour directory removed: %v", err)
	}
}

func TestGitHubCloneCancelled(t *testing.T) {
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	gs := newGitServer(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				_, _ = io.Copy(io.Discard, r.Body) // so the server notices the client leaving
				select {
				case started <- struct{}{}:
				default:
				}
				select { // hang until the client gives up
				case <-r.Context().Done():
				case <-release:
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	t.Cleanup(func() { close(release) }) // runs before the server's Close
	gs.addRepo(t, "acme", "hello", helloFiles)
	spec := githubSpec(t, gs.URL, t.TempDir(), "github/acme/hello", `{"runCmd": "true"}`)

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	errc := make(chan error, 1)
	go func() { errc <- spec.Prepare(ctx, nil, nil) }()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Prepare did not return after cancellation")
	}
	if _, statErr := os.Stat(spec.Dir); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("%s exists after a cancelled clone (stat: %v)", spec.Dir, statErr)
	}
	if l := leftovers(t, spec.Dir); len(l) > 0 {
		t.Errorf("leftovers after a cancelled clone: %v", l)
	}
}

func TestGitHubInstallFails(t *testing.T) {
	gs := newGitServer(t, nil)
	gs.addRepo(t, "acme", "hello", helloFiles)
	spec := githubSpec(t, gs.URL, t.TempDir(), "github/acme/hello",
		`{"installCmd": "echo npm-said-no >&2; exit 3", "runCmd": "true"}`)

	var out bytes.Buffer
	err := spec.Prepare(context.Background(), []string{"PATH=" + os.Getenv("PATH")}, &out)
	if err == nil {
		t.Fatal("Prepare succeeded although installCmd failed")
	}
	if !strings.Contains(err.Error(), "install") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("error %q does not name the install step and its status", err)
	}
	if !strings.Contains(out.String(), "npm-said-no") {
		t.Errorf("install output missing from out:\n%s", out.String())
	}
	// The clone itself finished and stays for the next try.
	if _, err := os.Stat(filepath.Join(spec.Dir, "README.md")); err != nil {
		t.Errorf("clone not kept after a failed install: %v", err)
	}
}

func TestGitHubClonePrivateWithToken(t *testing.T) {
	const token = "ghp_s3cretTOKENvalue0123456789"
	gs := newGitServer(t, basicAuthOnly("x-access-token", token))
	gs.addRepo(t, "acme", "private", helloFiles)
	servers := t.TempDir()

	// Without a token, and with a wrong one: refused, and the error has no token.
	for _, envs := range []string{`{}`, `{"GITHUB_TOKEN": "wrong-token-value"}`} {
		spec := githubSpec(t, gs.URL, servers, "github/acme/private", `{"runCmd": "true", "envs": `+envs+`}`)
		err := spec.Prepare(context.Background(), nil, nil)
		if err == nil {
			t.Fatalf("envs %s: clone of a private repository succeeded", envs)
		}
		t.Logf("envs %s: %v", envs, err)
		if strings.Contains(err.Error(), "wrong-token-value") {
			t.Errorf("error reveals the token: %v", err)
		}
	}

	spec := githubSpec(t, gs.URL, servers, "github/acme/private", `{"runCmd": "true", "envs": {"GITHUB_TOKEN": "`+token+`"}}`)
	var out bytes.Buffer
	if err := spec.Prepare(context.Background(), nil, &out); err != nil {
		t.Fatalf("Prepare with token: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), token) {
		t.Errorf("output reveals the token:\n%s", out.String())
	}
	files := 0
	err := filepath.WalkDir(servers, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the token", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatal("no files cloned")
	}
}

func TestGitHubCloneReused(t *testing.T) {
	gs := newGitServer(t, nil)
	gs.addRepo(t, "acme", "hello", helloFiles)
	servers := t.TempDir()
	entry := `{"runCmd": "true"}`

	if err := githubSpec(t, gs.URL, servers, "github/acme/hello", entry).Prepare(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	first := gs.requests.Load()
	if first == 0 {
		t.Fatal("the first clone made no requests")
	}
	// A second launch (fresh Parse, same servers dir) must not go to the network.
	var out bytes.Buffer
	if err := githubSpec(t, gs.URL, servers, "github/acme/hello", entry).Prepare(context.Background(), nil, &out); err != nil {
		t.Fatal(err)
	}
	if n := gs.requests.Load() - first; n != 0 {
		t.Errorf("second Prepare made %d requests, want 0", n)
	}
	if !strings.Contains(out.String(), "reusing") {
		t.Errorf("output does not say the clone is reused:\n%s", out.String())
	}
}

// TestCloneReplacesForeignDirectory: a directory at Dir that Clone did not
// finish is replaced, not reused and not an obstacle.
func TestCloneReplacesForeignDirectory(t *testing.T) {
	gs := newGitServer(t, nil)
	gs.addRepo(t, "acme", "hello", helloFiles)
	dir := filepath.Join(t.TempDir(), "hello")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stale.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := adapters.Clone(context.Background(), adapters.CloneOptions{URL: gs.URL + "/acme/hello.git", Dir: dir}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stale.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale.txt survived (stat: %v)", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Errorf("README.md missing: %v", err)
	}
	if l := leftovers(t, dir); len(l) > 0 {
		t.Errorf("leftovers: %v", l)
	}
}

// Credentials in the GitHub base URL (a mirror's https://user:pass@host)
// authenticate the clone but are never shown nor written to disk: before,
// the log, errors and .git/config held them.
func TestGitHubCloneURLCredentials(t *testing.T) {
	const user, pass = "oauth2", "URLSECRETTOKEN1234"
	gs := newGitServer(t, basicAuthOnly(user, pass))
	gs.addRepo(t, "acme", "mirror", helloFiles)
	servers := t.TempDir()
	base := strings.Replace(gs.URL, "http://", "http://"+user+":"+pass+"@", 1)

	var out bytes.Buffer
	spec := githubSpec(t, base, servers, "github/acme/mirror", `{"runCmd": "true"}`)
	if err := spec.Prepare(context.Background(), nil, &out); err != nil {
		t.Fatalf("Prepare: %v\n%s", err, out.String())
	}
	// A failing clone's error has no credentials either.
	spec = githubSpec(t, base, servers, "github/acme/missing", `{"runCmd": "true"}`)
	err := spec.Prepare(context.Background(), nil, &out)
	if err == nil {
		t.Fatal("clone of a missing repository succeeded")
	}
	if strings.Contains(out.String()+err.Error(), pass) {
		t.Errorf("output or error reveals the URL's password:\n%s\n%v", out.String(), err)
	}
	_ = filepath.WalkDir(servers, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(pass)) {
				t.Errorf("%s holds the URL's password", path)
			}
		}
		return nil
	})
}

// Symlinks come out as git makes them: an absolute target stays absolute.
// Before, go-git rewrote it under the temporary clone directory, which the
// rename into place then left dangling.
func TestGitHubCloneKeepsSymlinks(t *testing.T) {
	gs := newGitServer(t, nil)
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"abs": "/etc/hostname", "rel": "README.md"} {
		if err := os.Symlink(target, filepath.Join(work, link)); err != nil {
			t.Fatal(err)
		}
	}
	runGit(t, work, "init", "-q", "-b", "main")
	runGit(t, work, "add", "-A")
	runGit(t, work, "commit", "-q", "-m", "links")
	runGit(t, "", "clone", "-q", "--bare", work, filepath.Join(gs.root, "acme", "links.git"))

	servers := t.TempDir()
	spec := githubSpec(t, gs.URL, servers, "github/acme/links", `{"runCmd": "true"}`)
	if err := spec.Prepare(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	for link, want := range map[string]string{"abs": "/etc/hostname", "rel": "README.md"} {
		if got, err := os.Readlink(filepath.Join(servers, "github", "acme", "links", link)); err != nil || got != want {
			t.Errorf("%s -> %q (%v), want %q", link, got, err, want)
		}
	}
}
