package adapters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Options configures the built-in adapters (SPEC §10).
type Options struct {
	BaseURL string // GitHub's, e.g. https://github.com (SPEC §5.3)
	// ServersDir holds the GitHub clones, in github/<owner>/<repo>, and
	// the packages pull installed for catalog servers (package pulled).
	ServersDir string
}

var githubPart = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// githubAdapter handles "github/<owner>/<repo>" keys (SPEC §5.3).
type githubAdapter struct{ opts Options }

func (a *githubAdapter) Kind() string { return "github" }

func (a *githubAdapter) Claims(key string, _ Entry) bool { return strings.HasPrefix(key, "github/") }

func (a *githubAdapter) Help() string {
	return `"github/<owner>/<repo>" with {"runCmd": …, "installCmd": …}`
}

func (a *githubAdapter) Resolve(key string, e Entry) (LaunchSpec, []string, error) {
	owner, repo, err := splitGitHubKey(key)
	if err != nil {
		return LaunchSpec{}, nil, err
	}
	if e.URL != nil {
		return LaunchSpec{}, nil, errors.New(`url cannot be used on a github/<owner>/<repo> key, whose repository is cloned and run over stdio: give an HTTP server a key of its own`)
	}
	if err := checkCommand("runCmd", e.RunCmd, true); err != nil {
		return LaunchSpec{}, nil, err
	}
	if e.InstallCmd != nil && strings.TrimSpace(*e.InstallCmd) == "" {
		e.InstallCmd = nil // optional: an empty one means nothing to install
	}
	if err := checkCommand("installCmd", e.InstallCmd, false); err != nil {
		return LaunchSpec{}, nil, err
	}
	var warns []string
	for _, k := range slices.Sorted(maps.Keys(e.Props)) {
		warns = append(warns, fmt.Sprintf("unknown property %q ignored", k))
	}
	return a.spec(owner, repo, e), warns, nil
}

// splitGitHubKey checks the key is exactly "github/<owner>/<repo>" (SPEC
// §5.3). owner and repo become path elements of the clone directory, so "."
// and ".." are refused.
func splitGitHubKey(key string) (owner, repo string, err error) {
	parts := strings.Split(key, "/")
	if len(parts) != 3 || parts[0] != "github" {
		return "", "", errors.New(`key must have the form "github/<owner>/<repo>"`)
	}
	owner, repo = parts[1], parts[2]
	for _, part := range [][2]string{{"owner", owner}, {"repo", repo}} {
		if p := part[1]; p == "." || p == ".." || !githubPart.MatchString(p) {
			return "", "", fmt.Errorf(`key must have the form "github/<owner>/<repo>": %s %q must be made of [A-Za-z0-9_.-] and not be "." or ".."`, part[0], p)
		}
	}
	return owner, repo, nil
}

// spec describes a GitHub server: clone (once), install (once per daemon
// life), then run runCmd in the clone directory.
func (a *githubAdapter) spec(owner, repo string, e Entry) LaunchSpec {
	dir := filepath.Join(a.opts.ServersDir, "github", owner, repo)
	url := strings.TrimSuffix(a.opts.BaseURL, "/") + "/" + owner + "/" + repo + ".git"
	token := e.Envs["GITHUB_TOKEN"]
	if token == "" {
		token = e.Envs["GH_TOKEN"]
	}
	var install string
	if e.InstallCmd != nil {
		install = *e.InstallCmd
	}
	spec := LaunchSpec{
		Argv: []string{"/bin/sh", "-c", *e.RunCmd},
		Env:  e.Envs,
		Dir:  dir,
	}
	spec.Prepare = func(ctx context.Context, env []string, out io.Writer) error {
		if err := Clone(ctx, CloneOptions{URL: url, Dir: dir, Token: token, Out: out}); err != nil {
			return fmt.Errorf("clone %s: %w", RedactURL(url), err)
		}
		if install == "" {
			return nil
		}
		if err := RunShell(ctx, dir, env, install, out); err != nil {
			return fmt.Errorf("install: %w", err) // RunShell's error quotes the command
		}
		return nil
	}
	if install != "" {
		spec.Install = [][]string{{"/bin/sh", "-c", install}}
	}
	return spec
}
