package daemon

// Resolving the config against the catalog and the adapters (SPEC §5, §9),
// for the launcher's validation, `serve`, and the daemon's start and
// reloads.

import (
	"cmp"
	"context"
	"errors"
	"os"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/plugin"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"github.com/mcp-gateway/mcp-gateway/supervisor/reloader"
)

// Resolve loads the catalog and the external adapters, and resolves the
// config; it also returns the catalog it resolved against: the baseline
// a later reload compares with. log receives the adapters' output (nil
// discards it). An error is a *ResolveError.
func Resolve(s Settings, config []byte, log plugin.Log) ([]adapters.Server, []string, *catalog.Catalog, error) {
	cat, err := catalog.Load(s.CatalogFile)
	if err != nil {
		return nil, nil, nil, &ResolveError{"invalid catalog file", err}
	}
	list, closeAll, err := AdapterList(s, log)(cat)
	if err != nil {
		return nil, nil, nil, &ResolveError{"external adapters failed", err}
	}
	defer closeAll()
	servers, warnings, err := adapters.Parse(config, list)
	if err != nil {
		return nil, warnings, nil, &ResolveError{"invalid config", err}
	}
	return servers, warnings, cat, nil
}

// ResolveError says which input a resolve failed on, for the launcher's
// heading: the config, the catalog file, or the external adapters.
type ResolveError struct {
	what string
	err  error
}

func (e *ResolveError) Error() string { return e.err.Error() }
func (e *ResolveError) Unwrap() error { return e.err }

// Explain is err under a heading naming what was wrong: a *ResolveError's
// input, else the config; the lines of err indented below it.
func Explain(err error) string {
	what := "invalid config"
	var re *ResolveError
	if errors.As(err, &re) {
		what = re.what
	}
	return what + ":\n" + indent(err.Error())
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// AdapterList returns how to build the adapter list for a catalog: the
// built-in adapters, which take precedence, followed by the external ones
// in s.AdaptersDir (SPEC §9). The external adapters' processes run until
// closeAll, bounded by the startup timeout; call closeAll as soon as
// resolving is done. log receives their output (nil discards it).
func AdapterList(s Settings, log plugin.Log) reloader.AdapterList {
	return func(cat *catalog.Catalog) ([]adapters.Adapter, func(), error) {
		ctx, cancel := context.WithTimeout(context.Background(), cmp.Or(s.StartupTimeout, supervisor.DefaultStartTimeout))
		external, closeExternal, err := plugin.Load(ctx, s.AdaptersDir, supervisor.Environ(os.Environ(), nil), log)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		list := append(adapters.Builtin(cat, adapters.Options{BaseURL: s.GitHubURL, ServersDir: s.ServersDir}), external...)
		return list, func() { closeExternal(); cancel() }, nil
	}
}
