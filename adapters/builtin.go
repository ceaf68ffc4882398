package adapters

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/catalog/pulled"
)

// Builtin returns the built-in adapters in precedence order: github keys,
// then HTTP servers (any other key with url), then catalog names, then
// local commands.
func Builtin(cat *catalog.Catalog, github Options) []Adapter {
	return []Adapter{
		&githubAdapter{opts: github},
		&httpAdapter{},
		&catalogAdapter{cat: cat, store: pulled.Store{Dir: github.ServersDir}},
		&commandAdapter{},
	}
}

// catalogAdapter resolves a catalog name (SPEC §5.2). A command that
// runs a package that pull installed in store runs that install instead
// (SPEC §2.8, fromdisk.go).
type catalogAdapter struct {
	cat   *catalog.Catalog
	store pulled.Store
}

var _ Adapter = (*catalogAdapter)(nil)

func (a *catalogAdapter) Kind() string { return "catalog" }

func (a *catalogAdapter) Claims(key string, _ Entry) bool {
	_, ok := a.cat.Lookup(key)
	return ok
}

func (a *catalogAdapter) Help() string {
	return "a catalog name (" + strings.Join(a.cat.Names(), ", ") + ")"
}

func (a *catalogAdapter) Resolve(key string, e Entry) (LaunchSpec, []string, error) {
	entry, _ := a.cat.Lookup(key)
	var warns []string
	if e.RunCmd != nil || e.InstallCmd != nil {
		warns = append(warns, "runCmd/installCmd are ignored for a catalog server; rename the key to run your own command")
	}
	r, w, err := entry.Resolve(e.Props)
	warns = append(warns, w...)
	if err != nil {
		return LaunchSpec{}, warns, err
	}
	env := r.Env
	if len(e.Envs) > 0 {
		if env == nil {
			env = map[string]string{}
		}
		for k, v := range e.Envs {
			env[k] = v
		}
	}
	spec := LaunchSpec{Argv: r.Argv, Env: env, Install: entry.Install, Secrets: r.Secrets}
	a.fromDisk(key, &spec)
	return spec, warns, nil
}

// commandAdapter runs a local runCmd with /bin/sh -c (SPEC §5.4).
type commandAdapter struct{}

var _ Adapter = (*commandAdapter)(nil)

func (a *commandAdapter) Kind() string { return "command" }

func (a *commandAdapter) Claims(_ string, e Entry) bool { return e.RunCmd != nil }

func (a *commandAdapter) Help() string {
	return `any name with {"runCmd": "<shell command>"} for a server installed in the template`
}

func (a *commandAdapter) Resolve(_ string, e Entry) (LaunchSpec, []string, error) {
	if err := checkCommand("runCmd", e.RunCmd, true); err != nil {
		return LaunchSpec{}, nil, err
	}
	var warns []string
	for _, k := range slices.Sorted(maps.Keys(e.Props)) {
		warns = append(warns, fmt.Sprintf("unknown property %q ignored", k))
	}
	if e.InstallCmd != nil {
		warns = append(warns, "installCmd is only used by github/<owner>/<repo> servers; ignored")
	}
	return LaunchSpec{Argv: []string{"/bin/sh", "-c", *e.RunCmd}, Env: e.Envs}, warns, nil
}

func checkCommand(field string, cmd *string, required bool) error {
	if cmd == nil {
		if required {
			return fmt.Errorf("%s is required: the shell command that starts the server", field)
		}
		return nil
	}
	if strings.TrimSpace(*cmd) == "" {
		return fmt.Errorf("%s is empty: want the shell command that starts the server", field)
	}
	if strings.ContainsRune(*cmd, 0) {
		return fmt.Errorf("%s has a NUL byte", field)
	}
	return nil
}

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

var _ Adapter = (*githubAdapter)(nil)

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
