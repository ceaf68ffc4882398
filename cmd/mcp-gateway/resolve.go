package main

// Resolving the config against the catalog and the adapters (SPEC §5, §9),
// for the launcher's validation, `serve`, and the daemon's start and
// reloads.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/plugin"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// resolveServers loads the catalog and the external adapters, and resolves
// the config. log receives the adapters' output (nil discards it).
func resolveServers(s Settings, config []byte, log plugin.Log) ([]adapters.Server, []string, error) {
	servers, warnings, _, err := resolveWithCatalog(s, config, log)
	return servers, warnings, err
}

// resolveWithCatalog is resolveServers, also returning the catalog it
// resolved against: the baseline a later reload compares with.
func resolveWithCatalog(s Settings, config []byte, log plugin.Log) ([]adapters.Server, []string, *catalog.Catalog, error) {
	cat, err := catalog.Load(s.CatalogFile)
	if err != nil {
		return nil, nil, nil, &resolveError{"invalid catalog file", err}
	}
	list, closeAll, err := adapterList(s, log)(cat)
	if err != nil {
		return nil, nil, nil, &resolveError{"external adapters failed", err}
	}
	defer closeAll()
	servers, warnings, err := adapters.Parse(config, list)
	if err != nil {
		return nil, warnings, nil, &resolveError{"invalid config", err}
	}
	return servers, warnings, cat, nil
}

// resolveError says which input a resolve failed on, for the launcher's
// heading: the config, the catalog file, or the external adapters.
type resolveError struct {
	what string
	err  error
}

func (e *resolveError) Error() string { return e.err.Error() }
func (e *resolveError) Unwrap() error { return e.err }

// printResolveError prints err under a heading naming what was wrong.
func printResolveError(w io.Writer, err error) {
	what := "invalid config"
	var re *resolveError
	if errors.As(err, &re) {
		what = re.what
	}
	fmt.Fprintf(w, "mcp-gateway: %s:\n%s\n", what, indent(err.Error()))
}

// adapterList returns how to build the adapter list for a catalog: the
// built-in adapters, which take precedence, followed by the external ones
// in s.AdaptersDir (SPEC §9). The external adapters' processes run until
// closeAll, bounded by the startup timeout; call closeAll as soon as
// resolving is done. log receives their output (nil discards it).
func adapterList(s Settings, log plugin.Log) supervisor.AdapterList {
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
