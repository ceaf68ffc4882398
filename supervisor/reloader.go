package supervisor

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

// ReloaderOptions configures a Reloader.
type ReloaderOptions struct {
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
	// Drain bounds a restart's wait for calls in flight (DefaultDrain if
	// zero).
	Drain time.Duration
	// Logger defaults to the supervisor's.
	Logger *slog.Logger
}

// Reloader applies changes of the catalog file to the running servers
// (SPEC §6.3). One reload runs at a time, whoever asks: the watcher, a
// SIGHUP or `mcp-gateway reload`.
type Reloader struct {
	sup  *Supervisor
	opts ReloaderOptions

	mu  sync.Mutex
	cat *catalog.Catalog // the last good catalog
}

// NewReloader returns a Reloader for the servers of s.
func (s *Supervisor) NewReloader(opts ReloaderOptions) *Reloader {
	if opts.Logger == nil {
		opts.Logger = s.opts.Logger
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
func (r *Reloader) Reload(ctx context.Context, trigger Trigger) (*ReloadResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	log := r.opts.Logger
	cat, err := catalog.Load(r.opts.CatalogFile)
	if err != nil {
		log.Error("catalog reload failed; the last good catalog stays in force", "trigger", trigger, "error", err)
		return nil, fmt.Errorf("reload catalog (the last good catalog stays in force): %w", err)
	}
	res := &ReloadResult{}
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

// ReloadResult says what a catalog reload changed (SPEC §6.3); the
// control socket sends it as `mcp-gateway reload`'s answer (SPEC §8.1).
type ReloadResult struct {
	// Added, Removed and Changed name catalog entries (built-in and file
	// merged) that differ from the last good catalog.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	Changed []string `json:"changed"`
	// Updated names the servers whose launch spec changed.
	Updated []string `json:"updated"`
	// Restarted names the updated servers that were running and were
	// restarted; an updated server that was not running starts with its new
	// spec on its next call.
	Restarted []string `json:"restarted"`
	// Failed lists updated servers whose restart failed.
	Failed []ServerError `json:"failed"`
	// Kept lists servers that no longer resolve against the new catalog;
	// they keep running on their last spec.
	Kept []ServerError `json:"kept"`
}

// Normalize makes every nil list empty, so that the JSON form always has
// every key with an array (`reload --json` printed {} when nothing
// changed, which scripts could not index).
func (r *ReloadResult) Normalize() {
	for _, l := range []*[]string{&r.Added, &r.Removed, &r.Changed, &r.Updated, &r.Restarted} {
		if *l == nil {
			*l = []string{}
		}
	}
	for _, l := range []*[]ServerError{&r.Failed, &r.Kept} {
		if *l == nil {
			*l = []ServerError{}
		}
	}
}

// ServerError is one server and what went wrong with it.
type ServerError struct {
	Server string `json:"server"`
	Error  string `json:"error"`
}

// resolve resolves every server again against cat, through the adapters'
// own Config.Resolve; a server that no longer resolves goes to res.Kept.
func (r *Reloader) resolve(cat *catalog.Catalog, res *ReloadResult) (map[string]adapters.LaunchSpec, error) {
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
func (r *Reloader) apply(ctx context.Context, specs map[string]adapters.LaunchSpec, res *ReloadResult) {
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
func (r *Reloader) logResult(trigger Trigger, res *ReloadResult) {
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

func serverNames(errs []ServerError) []string {
	var names []string
	for _, e := range errs {
		names = append(names, e.Server)
	}
	return names
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

// Update is what Reload did to one server.
type Update struct {
	Server    string
	Changed   bool  // its launch spec changed
	Restarted bool  // it was running and runs again on the new spec
	Err       error // the restart failed; names the server
}

// Reload gives the servers named in specs their new launch spec, and
// restarts gracefully (see Restart) each running server whose spec changed,
// all in parallel. Servers whose spec is unchanged, or not named, are not
// touched. It returns one Update per named server, in config-key order.
// The caller rebuilds the aggregated tool list afterwards.
func (s *Supervisor) Reload(ctx context.Context, specs map[string]adapters.LaunchSpec, drain time.Duration) []Update {
	ups := s.Upstreams()
	updates := make([]Update, len(ups))
	named := make([]bool, len(ups))
	var wg sync.WaitGroup
	for i, u := range ups {
		spec, ok := specs[u.name]
		if !ok {
			continue
		}
		named[i] = true
		updates[i].Server = u.name
		s.opts.Log.AddSecrets(spec.Secrets...)
		if !u.SetSpec(spec) {
			continue
		}
		updates[i].Changed = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			restarted, err := u.Restart(ctx, drain)
			updates[i].Restarted = restarted && err == nil
			updates[i].Err = err
		}()
	}
	wg.Wait()
	var out []Update
	for i, up := range updates {
		if named[i] {
			out = append(out, up)
		}
	}
	return out
}
