// Package names gives every upstream tool (and prompt) an exported name
// that common clients accept, ^[A-Za-z0-9_-]{1,64}$, deterministically
// and stable across restarts (SPEC §4.1, §4.2). It knows nothing of
// servers or MCP: a list of server keys in config order, each with its
// names in the server's order, goes in; a name per Ref comes out.
package names

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxNameLen is the longest exported tool name: common clients accept
// ^[A-Za-z0-9_-]{1,64}$ (SPEC §4.2).
const MaxNameLen = 64

// Ref names one upstream tool (or prompt): its server and its name there.
type Ref struct {
	Server string // config key
	Name   string // its name as the server lists it
}

// Assign gives every tool an exported name (SPEC §4.1–4.2). servers must be
// in config-key order, each with its tools in the server's order. The rule:
//
//  1. Sanitise: every character outside [A-Za-z0-9_-] becomes "_".
//  2. Pass 1, in server order: a tool keeps its sanitised name if no
//     earlier tool took it and it fits in 64 characters.
//  3. Pass 2, for the rest: "<server>_<tool>", both sanitised, if free and
//     at most 64 characters.
//  4. Otherwise: the first 55 characters of that prefixed name, "_", and
//     the first 8 hex digits of SHA-256("<server>\x00<tool>"); if even that
//     is taken, the hash is extended to 16, then 32 digits.
//
// The result depends only on the servers and their tool lists, so names are
// stable across restarts. A tool that still cannot be named is returned in
// dropped (only possible with a duplicate name within one server).
func Assign(servers []string, tools map[string][]string) (names map[Ref]string, dropped []Ref) {
	return AssignReserved(servers, tools, nil)
}

// AssignReserved is Assign with the names in reserved taken before any
// server's: a tool of such a name is exported prefixed, as if an earlier
// server had it. The gateway reserves its own tools' names this way
// (search_tools and call_tool, SPEC §4.10).
func AssignReserved(servers []string, tools map[string][]string, reserved []string) (names map[Ref]string, dropped []Ref) {
	names = map[Ref]string{}
	taken := map[string]bool{}
	for _, n := range reserved {
		taken[n] = true
	}
	var rest []Ref
	for _, s := range servers {
		for _, t := range tools[s] {
			ref := Ref{s, t}
			if _, dup := names[ref]; dup {
				dropped = append(dropped, ref)
				continue
			}
			n := Sanitize(t)
			if n != "" && len(n) <= MaxNameLen && !taken[n] {
				taken[n] = true
				names[ref] = n
				continue
			}
			names[ref] = "" // reserved for pass 2
			rest = append(rest, ref)
		}
	}
	for _, ref := range rest {
		n := Sanitize(ref.Server) + "_" + Sanitize(ref.Name)
		if len(n) > MaxNameLen || taken[n] {
			n = hashed(n, ref, taken)
		}
		if n == "" {
			delete(names, ref)
			dropped = append(dropped, ref)
			continue
		}
		taken[n] = true
		names[ref] = n
	}
	return names, dropped
}

func hashed(prefixed string, ref Ref, taken map[string]bool) string {
	sum := sha256.Sum256([]byte(ref.Server + "\x00" + ref.Name))
	h := hex.EncodeToString(sum[:])
	for _, digits := range []int{8, 16, 32} {
		keep := min(len(prefixed), MaxNameLen-1-digits)
		n := prefixed[:keep] + "_" + h[:digits]
		if !taken[n] {
			return n
		}
	}
	return ""
}

// Sanitize replaces every character outside [A-Za-z0-9_-] with "_".
func Sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
