package supervisor

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// This file keeps each server's four lists (SPEC §3.8, §4.5): tools,
// prompts, resources and resource templates, listed when a run starts and
// again when the server says one changed, each kept as the server sent
// it. Only tools/list is part of a start (SPEC §2.2); the other lists are
// asked for only when the server declared the capability, and a failure
// there is logged and leaves that list empty rather than fail the start.

// surface is what the gateway knows of a server beyond its tools and
// keeps across its runs (SPEC §3.8, §4.5, §4.8): each run's lists, read
// at its handshake and again on its list_changed (this file), and the
// gateway's resource subscriptions and the log level it asks for
// (subscribe.go). Which run is live is the lifecycle's
// (liveRuns).
type surface struct {
	name string
	opts *Options
	runs liveRuns

	// subs are the resource URIs the gateway is subscribed to on this
	// server, kept across runs; level is the log level the gateway asks a
	// legacy server for (both subscribe.go). Both under subMu,
	// which is held across the requests that apply them.
	subMu sync.Mutex
	subs  map[string]struct{}
	level string
	// relistMu guards each run's relisting and relistPending.
	relistMu sync.Mutex
}

// subscribeWait bounds one subscribe or unsubscribe request, and a
// legacy server's logging/setLevel: the surface's requests other than
// its lists.
const subscribeWait = 10 * time.Second

// liveRuns is what the surface needs of the lifecycle (run.go): the live
// run, started if need be and counted in its active calls (acquire,
// which the caller ends with r.active.Done), or as it is (current); and
// the lists of record, replaced only while the run that read them is
// live.
type liveRuns interface {
	acquire(ctx context.Context) (*run, error)
	current() *run
	lastLists() Lists
	replaceLists(r *run, lists Lists) (changed List, current bool)
}

// Entry is one member of a list as the server sent it: its key and its
// definition, raw, byte for byte. The key is what names it in its list:
// a tool's or a prompt's name, a resource's uri, a template's
// uriTemplate.
type Entry struct {
	Key string
	Raw json.RawMessage
}

// Lists is a server's four lists, each in the server's order. The slices
// are never modified once an Upstream holds them.
type Lists struct {
	Tools, Prompts, Resources, Templates []Entry
}

// List names one of a server's lists; Lists values are sets of them.
type List uint8

const (
	ListTools List = 1 << iota
	ListPrompts
	ListResources
	ListTemplates
)

// listSpec says how a list is asked for and read: its method, the result
// member that holds it, and the member of each entry that is its key.
type listSpec struct {
	kind           List
	method, member string
	key            string
}

var listSpecs = []listSpec{
	{ListTools, "tools/list", "tools", "name"},
	{ListPrompts, "prompts/list", "prompts", "name"},
	{ListResources, "resources/list", "resources", "uri"},
	{ListTemplates, "resources/templates/list", "resourceTemplates", "uriTemplate"},
}

// maxListPages bounds a list's pagination against a server that returns
// the same cursor forever.
const maxListPages = 1000

// otherListWait bounds each list other than tools/list at a start: a
// server that declares prompts or resources but never answers their list
// costs a start no more than this, and runs with that list empty.
const otherListWait = 10 * time.Second

// get returns l's slice for kind.
func (l *Lists) get(kind List) *[]Entry {
	switch kind {
	case ListPrompts:
		return &l.Prompts
	case ListResources:
		return &l.Resources
	case ListTemplates:
		return &l.Templates
	}
	return &l.Tools
}

// listAll reads every page of one list. An entry without a string key is
// logged and dropped.
func listAll(ctx context.Context, c *rpc.Conn, spec listSpec, name string, log *logfile.Log) ([]Entry, error) {
	var (
		entries []Entry
		cursor  json.RawMessage
	)
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("more than %d pages; is the server repeating its cursor?", maxListPages)
		}
		var params json.RawMessage
		if cursor != nil {
			params = jsonrpc.Encode([]jsonrpc.Field{{Key: "cursor", Value: cursor}})
		}
		res, err := c.Call(ctx, spec.method, params, nil)
		if err != nil {
			return nil, err
		}
		var page map[string]json.RawMessage
		var items []json.RawMessage
		if err := json.Unmarshal(res, &page); err != nil || json.Unmarshal(orNull(page[spec.member]), &items) != nil {
			return nil, fmt.Errorf("decode result: want an object with a %q array", spec.member)
		}
		for _, raw := range items {
			key, _ := jsonrpc.Text(jsonrpc.Value(raw, spec.key))
			if key == "" {
				log.Line(name, "[gateway] entry without a "+spec.key+" in "+spec.method+"; dropped: "+log.Clip(string(raw), 200))
				continue
			}
			entries = append(entries, Entry{Key: key, Raw: raw})
		}
		next := page["nextCursor"]
		if len(next) == 0 || string(next) == "null" || string(next) == `""` {
			return entries, nil
		}
		cursor = next
	}
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// declared is the lists other than tools that caps say the server has.
func (caps Capabilities) declared() List {
	var l List
	if caps.Prompts {
		l |= ListPrompts
	}
	if caps.Resources {
		l |= ListResources | ListTemplates
	}
	return l
}

// listKinds lists the kinds in want on run r into lists, bounded each by
// otherListWait (tools: by ctx alone, and a failure is the start's). A
// failed list other than tools is logged and left empty.
func (s *surface) listKinds(ctx context.Context, r *run, want List, lists *Lists) error {
	for _, spec := range listSpecs {
		if want&spec.kind == 0 {
			continue
		}
		if spec.kind == ListTools {
			entries, err := listAll(ctx, r.conn, spec, s.name, s.opts.Log)
			if err != nil {
				return &stepError{spec.method, err}
			}
			lists.Tools = entries
			continue
		}
		lctx, cancel := context.WithTimeout(ctx, otherListWait)
		entries, err := listAll(lctx, r.conn, spec, s.name, s.opts.Log)
		cancel()
		if err != nil {
			if r.conn.Failure() != nil || ctx.Err() != nil {
				return &stepError{spec.method, err}
			}
			s.opts.Logger.Warn("list failed; the server runs with it empty", "server", s.name, "method", spec.method, "error", err)
			continue
		}
		*lists.get(spec.kind) = entries
	}
	return nil
}

// changedLists says which of a and b's lists differ.
func changedLists(a, b Lists) List {
	var l List
	for _, spec := range listSpecs {
		if !sameEntries(*a.get(spec.kind), *b.get(spec.kind)) {
			l |= spec.kind
		}
	}
	return l
}

func sameEntries(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || string(a[i].Raw) != string(b[i].Raw) {
			return false
		}
	}
	return true
}

// relist lists again, on run r, the lists the server said changed (its
// own list_changed; resources/list_changed covers the templates too).
// Bursts are coalesced: while a re-list runs, further notifications add
// to what it lists once more when it ends, never a second one alongside
// (20,000 notifications started 20,000 concurrent tools/list, and the
// daemon's memory tripled).
func (s *surface) relist(r *run, kinds List) {
	s.relistMu.Lock()
	r.relistPending |= kinds
	if r.relisting {
		s.relistMu.Unlock()
		return
	}
	r.relisting = true
	s.relistMu.Unlock()
	r.conn.Go(func() {
		for s.relistOnce(r) {
		}
	})
}

// relistOnce lists what is pending once and reports whether more came
// meanwhile. The listing is bounded as a start's is, by
// Options.StartTimeout; its lists replace the server's only while r is
// the live run.
func (s *surface) relistOnce(r *run) (again bool) {
	s.relistMu.Lock()
	kinds := r.relistPending
	r.relistPending = 0
	s.relistMu.Unlock()
	lists := s.runs.lastLists()
	ctx, cancel := context.WithTimeout(s.opts.ctx, s.opts.StartTimeout)
	defer cancel()
	err := s.listKinds(ctx, r, kinds, &lists)
	var changed List
	current := false
	if err == nil {
		changed, current = s.runs.replaceLists(r, lists)
	}
	s.relistMu.Lock()
	again = current && r.relistPending != 0
	r.relisting = again
	s.relistMu.Unlock()
	if err != nil {
		s.opts.Logger.Warn("re-list after list_changed failed", "server", s.name, "error", err)
		return false
	}
	if changed != 0 && s.opts.OnListChanged != nil {
		s.opts.OnListChanged(s.name)
	}
	return again
}
