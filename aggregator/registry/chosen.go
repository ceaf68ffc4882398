package registry

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"

	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
	"github.com/mcp-gateway/mcp-gateway/aggregator/names"
	"github.com/mcp-gateway/mcp-gateway/aggregator/toolsearch"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file applies each entry's "tools" and "prompts" (SPEC §4.9,
// package choice) to its server's lists: what is left out is neither
// listed nor routed, so that calling it is -32602 as for a name nobody
// offers; a renamed entry meets the other servers' names under its new
// name (§4.1), its Route keeping the server's own. What the choice made
// of each server is its Chosen, which /health shows.

// Chosen is what one server's entry chose of its lists (SPEC §4.9), as
// /health and `status` show it beside the server's own counts: how many
// of its tools and prompts the gateway exports (left out by the entry,
// dropped or unnamable ones not counted), and, for each name in allow,
// rename or pin that matches nothing the server offers, a warning such as
// `tools: allow "get_fle" matches no tool the server offers` (never a
// failure: servers change their lists), and for each rename whose name
// was taken, what the tool is exported as instead, such as
// `tools: rename "find" to "search_tools": the name is the gateway's own
// tool (SPEC §4.10); exported as "s_search_tools"`. Unmatched is empty
// until the server has listed once.
type Chosen struct {
	ToolsExported   int      `json:"toolsExported"`
	PromptsExported int      `json:"promptsExported"`
	Unmatched       []string `json:"unmatched,omitempty"`
}

// reserved are the exported names no server's entry takes, by kind of
// entry: the gateway's own tools in search mode (SPEC §4.10), whatever
// the mode, so that a name means one thing in both.
var reserved = map[string][]string{"tool": {toolsearch.SearchToolsName, toolsearch.CallToolName}}

// named is one tool or prompt with its exported name and its definition
// as clients see it; ref.Name is the server's own name for it.
type named struct {
	ref      names.Ref
	exported string
	def      json.RawMessage
	up       *supervisor.Upstream
	choice   choice.Choice // its entry's choice of this kind
	asked    string        // the entry's rename of it, "" if none: exported differs where the name was taken
}

// picked is one server's choices as the generation is built, and whether
// it has listed at all (else nothing can be said to match nothing).
type picked struct {
	tools, prompts choice.Choice
	listed         bool
}

// pick reads u's choices. Called before u.Lists: the lists of a server
// whose era is known (its first start done) are its own, not the empty
// ones before any start.
func pick(u *supervisor.Upstream) picked {
	t, p := u.Choice()
	return picked{tools: t, prompts: p, listed: u.Status().Era != ""}
}

// key is one kept entry as names.Assign gets it: key, the name it asks
// for, and orig, the server's own.
type key struct{ key, orig string }

// chosenKeys gives each of server's kept entries (in the server's order)
// the name it asks for: its rename, or its own. A rename onto the own name
// of another of the same server's kept entries takes that name (the
// operator asked for it); the other asks for "<server>_<name>", as a
// later server's would (§4.1), with a log line, prefixed again while
// that name is one another rename asks for (that rename wins too) or
// one given already.
func chosenKeys(server, what string, c choice.Choice, kept []supervisor.Entry, log *slog.Logger) []key {
	renamed := map[string]string{} // a rename's target → the renamed entry's own name
	for _, e := range kept {
		if to, _ := c.Export(e.Key); to != e.Key {
			renamed[to] = e.Key
		}
	}
	out := make([]key, 0, len(kept))
	given := map[string]bool{}
	for _, e := range kept {
		to, _ := c.Export(e.Key)
		if by, ok := renamed[to]; ok && by != e.Key {
			to = server + "_" + e.Key
			for renamed[to] != "" || given[to] { // a name the entry asks for, or one given already: prefix again
				to = server + "_" + to
			}
			log.Warn(what+" exported prefixed: the entry renames another "+what+" of the server to its name",
				"server", server, what, e.Key, "renamed", by, "exported_as", to)
		}
		given[to] = true
		out = append(out, key{key: to, orig: e.Key})
	}
	return out
}

// report is each server's Chosen, by name, its warnings logged to log
// (build's, which logs each once: oncelog.go).
func report(ups []*supervisor.Upstream, lists []supervisor.Lists, picks []picked, tools, prompts []named,
	log *slog.Logger) map[string]Chosen {
	out := make(map[string]Chosen, len(ups))
	for _, n := range tools {
		c := out[n.up.Name()]
		c.ToolsExported++
		out[n.up.Name()] = c
	}
	for _, n := range prompts {
		c := out[n.up.Name()]
		c.PromptsExported++
		out[n.up.Name()] = c
	}
	for i, u := range ups {
		p := picks[i]
		if !p.listed {
			continue
		}
		c := out[u.Name()]
		c.Unmatched = append(p.tools.Unmatched("tools", keysOf(lists[i].Tools)), p.prompts.Unmatched("prompts", keysOf(lists[i].Prompts))...)
		c.Unmatched = append(c.Unmatched, renamedAway(u.Name(), "tool", tools)...)
		c.Unmatched = append(c.Unmatched, renamedAway(u.Name(), "prompt", prompts)...)
		out[u.Name()] = c
		for _, w := range c.Unmatched {
			log.Warn(w, "server", u.Name())
		}
	}
	return out
}

// renamedAway is one warning for each of server's entries (what: "tool",
// "prompt") whose entry renamed it to a name it did not get (SPEC §4.9):
// one of the gateway's own tools' (reserved, SPEC §4.10), or one that an
// earlier server's entry keeps (§4.1); it names what the entry is
// exported as instead.
func renamedAway(server, what string, all []named) []string {
	owner := make(map[string]string, len(all))
	for _, n := range all {
		owner[n.exported] = n.up.Name()
	}
	var out []string
	for _, n := range all {
		if n.up.Name() != server || n.asked == "" || n.exported == n.asked {
			continue
		}
		why := "another " + what + " has the name (SPEC §4.1)"
		if slices.Contains(reserved[what], n.asked) {
			why = "the name is the gateway's own tool (SPEC §4.10)"
		} else if by, ok := owner[n.asked]; ok && by != server {
			why = "server " + strconv.Quote(by) + "'s " + what + " has the name (SPEC §4.1)"
		}
		out = append(out, fmt.Sprintf("%ss: rename %q to %q: %s; exported as %q", what, n.ref.Name, n.asked, why, n.exported))
	}
	return out
}

func keysOf(es []supervisor.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Key
	}
	return out
}
