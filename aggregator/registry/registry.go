package registry

import (
	"log/slog"
	"sync/atomic"

	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Registry is what the gateway serves over its upstreams, in config-key
// order: one immutable Generation at a time, swapped whole by Rebuild.
// Its methods are safe for concurrent use.
type Registry struct {
	ups    []*supervisor.Upstream
	byName map[string]*supervisor.Upstream
	log    *slog.Logger
	cur    atomic.Pointer[Generation]
}

// New is the registry over ups, every list empty until the first Rebuild.
func New(ups []*supervisor.Upstream, log *slog.Logger) *Registry {
	r := &Registry{ups: ups, byName: map[string]*supervisor.Upstream{}, log: log}
	for _, u := range ups {
		r.byName[u.Name()] = u
	}
	r.cur.Store(empty())
	return r
}

// Load returns the generation served now.
func (r *Registry) Load() *Generation { return r.cur.Load() }

// Rebuild merges the upstreams' current lists into a new generation,
// serves it, and returns the kinds of list that changed (SPEC §4.5), in
// ListKind order. Callers serialise Rebuilds.
func (r *Registry) Rebuild() []ListKind {
	prev := r.cur.Load()
	next := build(r.ups, r.log, prev)
	r.cur.Store(next)
	var changed []ListKind
	for _, c := range []struct {
		same bool
		kind ListKind
	}{{prev.tools.Same(next.tools), ListTools}, {prev.promptList.Same(next.promptList), ListPrompts}, {prev.uris.same(&next.uris), ListResources}} {
		if !c.same {
			changed = append(changed, c.kind)
		}
	}
	return changed
}

// Owner is the server a URI belongs to for the client whose memory is
// mem (nil: none), or nil: listed, then remembered, then the first
// matching template (resources.go).
func (r *Registry) Owner(uri string, mem *Memory) *supervisor.Upstream {
	return r.cur.Load().uris.owner(uri, mem, func(name string) *supervisor.Upstream { return r.byName[name] })
}
