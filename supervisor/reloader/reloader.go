package reloader

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Trigger says what asked for a catalog reload; it appears in the log.
type Trigger string

const (
	// TriggerStart is the reload the catalog watcher makes as it starts,
	// to catch up with a change to the file made while the servers were
	// starting; it is logged only if it changed something.
	TriggerStart Trigger = "changed while the gateway started"
	// TriggerFile is a change to the catalog file seen by the watcher.
	TriggerFile Trigger = "catalog file changed"
	// TriggerCommand is an operator's `mcp-gateway reload`: it always
	// resolves every server again, re-running the external adapters too.
	TriggerCommand Trigger = "mcp-gateway reload"
	// TriggerSignal is a SIGHUP, which reloads as `mcp-gateway reload` does.
	TriggerSignal Trigger = "SIGHUP"
)

// AdapterList builds the adapter list for a catalog: the built-in
// adapters and any external ones (SPEC §9). closeAll ends the external
// adapters' processes; the Reloader calls it as soon as resolving is done.
type AdapterList func(cat *catalog.Catalog) (list []adapters.Adapter, closeAll func(), err error)

// Options configures a Reloader.
type Options struct {
	// CatalogFile is the override file re-read on every reload (SPEC §6.2).
	CatalogFile string
	// Config is the daemon's config; each running server is resolved
	// again from its entry.
	Config adapters.Config
	// Catalog is the catalog the servers were resolved against at start:
	// the first reload compares with it.
	Catalog *catalog.Catalog
	// Adapters builds the adapter list for a new catalog.
	Adapters AdapterList
	// OnReloaded is called after every reload that resolved the servers
	// again (the caller rebuilds the aggregated tool list, SPEC §4.5).
	OnReloaded func()
	// Drain bounds a restart's wait for calls in flight
	// (supervisor.DefaultDrain if zero).
	Drain time.Duration
	// Logger receives the reload's lines (the daemon gives the
	// supervisor's); nil discards them.
	Logger *slog.Logger
}

// Reloader applies changes of the catalog file to the running servers
// (SPEC §6.3). One reload runs at a time, whoever asks: the watcher, a
// SIGHUP or `mcp-gateway reload`.
type Reloader struct {
	sup  *supervisor.Supervisor
	opts Options

	mu  sync.Mutex
	cat *catalog.Catalog // the last good catalog
}

// New returns a Reloader for the servers of s.
func New(s *supervisor.Supervisor, opts Options) *Reloader {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.OnReloaded == nil {
		opts.OnReloaded = func() {}
	}
	return &Reloader{sup: s, opts: opts, cat: opts.Catalog}
}

// Reload loads the catalog file. If it is invalid, it logs why and changes
// nothing (the last good catalog stays). Otherwise it resolves every
// configured server again, one key at a time, and restarts gracefully
// those whose launch spec changed; a key that no longer resolves (its
// entry gone from the file, and no built-in one) keeps its running server
// on its last spec, with a warning. OnReloaded follows, so that the
// aggregated tool list is rebuilt and clients notified once if it changed
// (SPEC §4.5). A touched file whose entries did not change does nothing,
// unless an operator asked (TriggerCommand, TriggerSignal).
func (r *Reloader) Reload(ctx context.Context, trigger Trigger) (*Result, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	log := r.opts.Logger
	cat, err := catalog.Load(r.opts.CatalogFile)
	if err != nil {
		log.Error("catalog reload failed; the last good catalog stays in force", "trigger", trigger, "error", err)
		return nil, fmt.Errorf("reload catalog (the last good catalog stays in force): %w", err)
	}
	res := &Result{}
	res.Added, res.Removed, res.Changed = diffCatalogs(r.cat, cat)
	r.cat = cat
	if trigger != TriggerCommand && trigger != TriggerSignal && len(res.Added)+len(res.Removed)+len(res.Changed) == 0 {
		// The file was touched but no entry changed, so no catalog spec
		// can have; only an operator's reload re-runs the adapters.
		return res, nil
	}
	specs, err := r.resolve(cat, res)
	if err != nil {
		log.Error("catalog reload failed: external adapters", "trigger", trigger, "error", err)
		return nil, err
	}
	r.apply(ctx, specs, res)
	r.opts.OnReloaded()
	r.logResult(trigger, res)
	return res, nil
}

// resolve resolves every server again against cat, through the adapters'
// own Config.Resolve; a server that no longer resolves goes to res.Kept.
func (r *Reloader) resolve(cat *catalog.Catalog, res *Result) (map[string]adapters.LaunchSpec, error) {
	list, closeAll, err := r.opts.Adapters(cat)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	specs := map[string]adapters.LaunchSpec{}
	for _, u := range r.sup.Upstreams() {
		srv, _, err := r.opts.Config.Resolve(u.Name(), list)
		if err != nil {
			res.Kept = append(res.Kept, ServerError{Server: u.Name(), Error: err.Error()})
			r.opts.Logger.Warn("server no longer resolves against the catalog; it keeps running on its last command", "server", u.Name(), "error", err)
			continue
		}
		specs[srv.Name] = srv.Spec
	}
	return specs, nil
}

// apply gives the servers their new specs and records what happened.
func (r *Reloader) apply(ctx context.Context, specs map[string]adapters.LaunchSpec, res *Result) {
	for _, up := range r.sup.Reload(ctx, specs, r.opts.Drain) {
		if !up.Changed {
			continue
		}
		res.Updated = append(res.Updated, up.Server)
		if up.Restarted {
			res.Restarted = append(res.Restarted, up.Server)
		}
		if up.Err != nil { // logged by the supervisor
			res.Failed = append(res.Failed, ServerError{Server: up.Server, Error: up.Err.Error()})
		}
	}
}

// logResult logs one line with what changed; a start-up catch-up that
// changed nothing is not logged.
func (r *Reloader) logResult(trigger Trigger, res *Result) {
	attrs := []any{"trigger", trigger}
	for _, f := range []struct {
		key   string
		names []string
	}{{"added", res.Added}, {"removed", res.Removed}, {"changed", res.Changed}, {"updated", res.Updated}, {"restarted", res.Restarted}, {"failed", serverNames(res.Failed)}, {"kept", serverNames(res.Kept)}} {
		if len(f.names) > 0 {
			attrs = append(attrs, f.key, strings.Join(f.names, ","))
		}
	}
	if len(attrs) == 2 {
		if trigger == TriggerStart {
			return // the usual case: nothing to catch up with
		}
		attrs = append(attrs, "changes", "none")
	}
	r.opts.Logger.Info("catalog reloaded", attrs...)
}

// diffCatalogs names the entries added, removed and changed from a to b.
func diffCatalogs(a, b *catalog.Catalog) (added, removed, changed []string) {
	for _, n := range b.Names() {
		eb, _ := b.Lookup(n)
		ea, ok := a.Lookup(n)
		switch {
		case !ok:
			added = append(added, n)
		case entryKey(ea) != entryKey(eb):
			changed = append(changed, n)
		}
	}
	for _, n := range a.Names() {
		if _, ok := b.Lookup(n); !ok {
			removed = append(removed, n)
		}
	}
	return added, removed, changed
}

func entryKey(e *catalog.Entry) string {
	b, _ := json.Marshal(e) // map keys sorted: deterministic
	return string(e.Source) + " " + string(b)
}
