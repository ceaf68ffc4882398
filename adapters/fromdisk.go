package adapters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/catalog/pulled"
)

// A catalog command whose package pull did not install (catalogAdapter's
// fromDisk, SPEC §2.8) runs as written, and first checks what it needs:
// its runner on PATH and its registry reachable (reachRegistry), failing
// with NotPulledError when the registry cannot be reached.

// reachRegistry is the Prepare of a package run that was not pulled: it
// fails, saying so and how to fix it, if the runner (npx, uvx) is not on
// the server's PATH, or if the run's registry cannot be reached
// (pulled.Reach). The runner comes first: without it neither a start nor
// a pull can work, whatever the network.
func reachRegistry(key, runner string, run pulled.Run) func(ctx context.Context, env []string, out io.Writer) error {
	return func(ctx context.Context, env []string, _ io.Writer) error {
		if !onPath(runner, env) {
			return fmt.Errorf("its package runner %s is not installed (not on PATH): install %s in the template, then pre-install the package with `mcp-gateway pull %s`",
				runner, run.Manager, key)
		}
		err := pulled.Reach(ctx, run.Manager, env)
		var ue *pulled.UnreachableError
		if !errors.As(err, &ue) {
			return err
		}
		return &NotPulledError{Server: key, Package: run.Spec, Err: ue}
	}
}

// NotPulledError is the start of a catalog server whose package was not
// pre-installed and whose registry cannot be reached (SPEC §2.8).
type NotPulledError struct {
	Server  string // the config key
	Package string // the package spec the command runs
	Err     error  // why the registry is unreachable
}

func (e *NotPulledError) Error() string {
	return fmt.Sprintf("its package %s was not pre-installed in the template, and %v; pre-install it with `mcp-gateway pull %s`",
		e.Package, e.Err, e.Server)
}

func (e *NotPulledError) Unwrap() error { return e.Err }

// onPath reports whether name is an executable file in a directory of
// env's PATH (the server's environment), or is itself a path.
func onPath(name string, env []string) bool {
	if strings.Contains(name, "/") {
		return true // the spawn checks a path
	}
	var path string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}
