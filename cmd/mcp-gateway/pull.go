package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/catalog/pulled"
	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
)

const pullSynopsis = `Usage: mcp-gateway pull [flags] <server>...

Pre-installs servers at template build time (SPEC §6.5):
  <catalog name>          runs the entry's install steps (built-in or from --catalog-file);
                          a package the entry runs with npx, npm exec, uvx or uv tool run is
                          installed into --servers-dir and recorded, so that it starts from
                          disk, without the network
  github/<owner>/<repo>   clones it into --servers-dir and runs --install there;
                          $GITHUB_TOKEN or $GH_TOKEN, if set, is the token for a private one

Servers are pulled in the order given; the first failure stops the pull
with exit status 1. Flags may come before or after the names.`

// runPull is `mcp-gateway pull <server>...` (SPEC §6.5). Each step is
// printed as "pull <server>: <step>" and its output streamed to stdout.
// Exit status: 0 all pulled, 1 a step failed or a name is unknown (the
// error, on stderr, names the server and the step), 2 bad usage.
func runPull(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("pull", pullSynopsis, stderr)
	install := fs.String("install", "", "installCmd for the github/<owner>/<repo> servers named, run with /bin/sh -c in the clone")
	timeout := fs.Duration("timeout", defaultPullTimeout, "how long each server's pull (clone, install) may take; 0: no limit")
	sf := addSettingsFlags(fs, false)
	names, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	settings, err := sf.resolve() // absolute paths: npm and uv run in the package's directory
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 2
	}
	if len(names) == 0 {
		fmt.Fprintln(stderr, "pull: name at least one server, e.g. 'mcp-gateway pull time'")
		return 2
	}
	if *install != "" && !slices.ContainsFunc(names, isGitHubName) {
		fmt.Fprintln(stderr, "pull: --install applies only to github/<owner>/<repo> servers; a catalog entry's install steps come from the catalog")
		return 2
	}
	cat, err := catalog.Load(settings.CatalogFile)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	gh := adapters.Options{BaseURL: settings.GitHubURL, ServersDir: settings.ServersDir}
	for _, name := range names {
		pctx, cancel := ctx, context.CancelFunc(func() {})
		if *timeout > 0 {
			// A stalled mirror or install must not hang a template build.
			pctx, cancel = context.WithTimeoutCause(ctx, *timeout, fmt.Errorf("pull %s: timed out after %s (raise --timeout)", name, *timeout))
		}
		var err error
		if isGitHubName(name) {
			err = pullGitHub(pctx, name, *install, cat, gh, stdout)
		} else {
			err = pullCatalog(pctx, name, cat, settings, stdout)
		}
		if pctx.Err() != nil && ctx.Err() == nil && err != nil {
			err = fmt.Errorf("%w: %w", context.Cause(pctx), err)
		}
		cancel()
		if err != nil {
			fmt.Fprintln(stderr, "mcp-gateway:", err)
			return 1
		}
	}
	return 0
}

// defaultPullTimeout bounds each server's pull: a template build should
// fail, not hang, on a stalled clone or install.
const defaultPullTimeout = 15 * time.Minute

func isGitHubName(name string) bool { return strings.HasPrefix(name, "github/") }

// parseInterleaved parses fs over args where flags and positional names
// may be mixed ("pull github/a/b --install 'npm ci'"). It returns the names
// in order; on a parse error, ok is false and code is the exit status.
func parseInterleaved(fs *flag.FlagSet, args []string) (names []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, 0, false
			}
			return nil, 2, false
		}
		if fs.NArg() == 0 {
			return names, 0, true
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// pullCatalog runs the install steps (argv lists) of catalog entry name,
// or of an entry an external adapter resolves (e.g. npm/<package>). An
// entry whose command runs a package through npx, npm exec, uvx or uv
// tool run has that package installed into the servers dir and recorded
// (SPEC §6.5, pullPackage), in place of the first step that does no
// more than install it (or after the steps, if none does). An unknown
// name gets the config validation's error (SPEC §5.1).
func pullCatalog(ctx context.Context, name string, cat *catalog.Catalog, s daemon.Settings, stdout io.Writer) error {
	entry, ok := cat.Lookup(name)
	if !ok {
		steps, err := adapterInstall(name, cat, s)
		if err != nil {
			return err
		}
		return runSteps(ctx, name, steps, stdout)
	}
	run, isPackage := pulled.Parse(entry.FixedArgv())
	if !isPackage {
		return runSteps(ctx, name, entry.Install, stdout)
	}
	done := false
	for i, step := range entry.Install {
		if !done && run.InstalledBy(step) {
			fmt.Fprintf(stdout, "pull %s: step %d (%s) installs %s; installing it for a start from disk instead\n", name, i+1, strings.Join(step, " "), run.Spec)
			if err := pullPackage(ctx, name, run, s, stdout); err != nil {
				return err
			}
			done = true
			continue
		}
		if err := runStep(ctx, name, i, len(entry.Install), step, stdout); err != nil {
			return err
		}
	}
	if done {
		return nil
	}
	return pullPackage(ctx, name, run, s, stdout)
}

// pullPackage installs the package run runs into the servers dir, pinned
// to the version it resolves, and records it (package pulled), so that
// the gateway starts it from disk, without the network (SPEC §2.8).
func pullPackage(ctx context.Context, name string, run pulled.Run, s daemon.Settings, stdout io.Writer) error {
	store := pulled.Store{Dir: s.ServersDir}
	fmt.Fprintf(stdout, "pull %s: install %s package %s into %s\n", name, run.Manager, run.Spec, store.PackageDir(run.Manager, run.Spec))
	rec, err := store.Install(ctx, run, pulled.InstallOptions{Out: stdout, Exec: adapters.Run})
	if err != nil {
		return fmt.Errorf("pull %s: %w", name, err)
	}
	p, ok := store.Lookup(run)
	if !ok {
		return fmt.Errorf("pull %s: the install of %s did not leave the executable it names", name, run.Spec)
	}
	fmt.Fprintf(stdout, "pull %s: pulled %s %s; it starts from %s, without the network\n", name, rec.Package, rec.Version, p.Executable)
	return nil
}

// adapterInstall returns the install steps of an entry an external
// adapter resolves, or the config validation's error for an unknown name.
func adapterInstall(name string, cat *catalog.Catalog, s daemon.Settings) ([][]string, error) {
	doc, err := json.Marshal(map[string]struct{}{name: {}})
	if err != nil {
		return nil, fmt.Errorf("encode server name: %w", err)
	}
	list, closeAll, err := daemon.AdapterList(s, nil)(cat)
	if err != nil {
		return nil, fmt.Errorf("pull: %w", err)
	}
	servers, _, err := adapters.Parse(doc, list)
	closeAll()
	if err != nil {
		return nil, fmt.Errorf("pull: %w", err)
	}
	return servers[0].Spec.Install, nil
}

// runSteps runs install steps in order; the first failure stops them.
func runSteps(ctx context.Context, name string, steps [][]string, stdout io.Writer) error {
	if len(steps) == 0 {
		fmt.Fprintf(stdout, "pull %s: nothing to install (the entry has no install steps)\n", name)
		return nil
	}
	for i, step := range steps {
		if err := runStep(ctx, name, i, len(steps), step, stdout); err != nil {
			return err
		}
	}
	return nil
}

// runStep runs step i of n in its own process group, killed whole on
// timeout or interrupt.
func runStep(ctx context.Context, name string, i, n int, step []string, stdout io.Writer) error {
	line := strings.Join(step, " ")
	fmt.Fprintf(stdout, "pull %s: %s\n", name, line)
	if err := adapters.Run(ctx, "", nil, step, stdout); err != nil {
		return fmt.Errorf("pull %s: step %d of %d (%s): %w", name, i+1, n, line, err)
	}
	return nil
}

// pullGitHub clones github/<owner>/<repo> into the servers dir and runs
// install there, through the github adapter's Prepare, exactly as the daemon
// would before the first start; an existing complete clone is reused. The
// entry is validated as a config entry; its runCmd is a placeholder, since
// pull does not start the server.
func pullGitHub(ctx context.Context, name, install string, cat *catalog.Catalog, gh adapters.Options, stdout io.Writer) error {
	type entry struct {
		RunCmd     string            `json:"runCmd"`
		InstallCmd string            `json:"installCmd,omitempty"`
		Envs       map[string]string `json:"envs,omitempty"`
	}
	e := entry{RunCmd: "true", InstallCmd: install}
	for _, v := range []string{"GITHUB_TOKEN", "GH_TOKEN"} {
		if tok := os.Getenv(v); tok != "" {
			e.Envs = map[string]string{v: tok}
			break
		}
	}
	doc, err := json.Marshal(map[string]entry{name: e})
	if err != nil {
		return fmt.Errorf("encode entry: %w", err)
	}
	servers, _, err := adapters.Parse(doc, adapters.Builtin(cat, gh))
	if err != nil {
		return fmt.Errorf("pull: %w", err)
	}
	spec := servers[0].Spec
	if install == "" {
		fmt.Fprintf(stdout, "pull %s: clone into %s\n", name, spec.Dir)
	} else {
		fmt.Fprintf(stdout, "pull %s: clone into %s, then run: %s\n", name, spec.Dir, install)
	}
	if err := spec.Prepare(ctx, os.Environ(), stdout); err != nil {
		return fmt.Errorf("pull %s: %w", name, err)
	}
	return nil
}
