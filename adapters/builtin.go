package adapters

import (
	"fmt"
	"maps"
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
// (SPEC §2.8, fromDisk; one that it did not, fromdisk.go).
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

// fromDisk makes a catalog command that runs a package through a package
// runner (npx, npm exec, uvx, uv tool run) start from the template's disk
// (SPEC §2.8): if pull installed that package, the spec runs the
// package's own executable with the command's arguments, and no runner
// asks a registry anything. If it did not, the command runs as written,
// and its start first checks that the registry can be reached at all, so
// that a sandbox without egress fails within seconds, naming the server
// and what to do, instead of waiting out npm's retries.
func (a *catalogAdapter) fromDisk(key string, spec *LaunchSpec) {
	run, ok := pulled.Parse(spec.Argv)
	if !ok {
		return
	}
	if p, ok := a.store.Lookup(run); ok {
		spec.Argv = append([]string{p.Executable}, slices.Clone(run.Args)...)
		spec.Pulled = p.Record.Package + "@" + p.Record.Version
		return
	}
	spec.Prepare = reachRegistry(key, spec.Argv[0], run)
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

var _ Adapter = (*githubAdapter)(nil)
