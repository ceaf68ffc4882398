package adapters

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

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
