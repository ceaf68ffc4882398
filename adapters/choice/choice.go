package choice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"

	"github.com/mcp-gateway/mcp-gateway/internal/jsonobj"
)

// Choice is one entry's "tools" or "prompts" (SPEC §4.9). The zero Choice
// keeps every name under its own name and pins nothing. A Choice is
// read-only once parsed and safe for concurrent use.
type Choice struct {
	allow  globs // nil: every name
	deny   globs
	rename map[string]string // original name → exported name
	pin    globs             // tools only (SPEC §4.10)
}

// exportedName reports whether s is a name clients accept (SPEC §4.2):
// 1 to 64 of A–Z, a–z, 0–9, _ and -. (A regexp of it costs every process
// of the binary 60 KB and 0.7 ms at its start.)
func exportedName(s string) bool {
	if len(s) < 1 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Tools parses an entry's "tools" value; Prompts parses "prompts", which
// has no pin. null, like a missing property, is the zero Choice. Errors
// start with the property's name ("tools: allow: item 2: …") and join one
// error per problem.
func Tools(raw json.RawMessage) (Choice, error) { return parse("tools", "tool", raw) }

// Prompts parses an entry's "prompts" value; see Tools.
func Prompts(raw json.RawMessage) (Choice, error) { return parse("prompts", "prompt", raw) }

func parse(field, noun string, raw json.RawMessage) (Choice, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Choice{}, nil
	}
	p := parser{field: field, noun: noun}
	var c Choice
	switch raw[0] {
	case '[':
		c.allow = p.globs(field, raw)
	case '{':
		c = p.object(raw)
	default:
		keys := "allow, deny and rename"
		if noun == "tool" {
			keys = "allow, deny, rename and pin"
		}
		return Choice{}, fmt.Errorf("%s: want an array of %s names or an object with %s, got %s", field, noun, keys, jsonobj.Kind(raw))
	}
	p.check(&c)
	if err := errors.Join(p.errs...); err != nil {
		return Choice{}, err
	}
	return c, nil
}

// parser collects every problem of one property, so that one run of the
// launcher names them all.
type parser struct {
	field, noun string
	errs        []error
}

func (p *parser) fail(format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf(p.field+": "+format, args...))
}

func (p *parser) object(raw json.RawMessage) Choice {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		p.fail("%s", strings.TrimPrefix(err.Error(), "json: "))
		return Choice{}
	}
	var c Choice
	for _, k := range slices.Sorted(maps.Keys(members)) {
		v := members[k]
		switch {
		case k == "allow":
			c.allow = p.globs("allow", v)
			if c.allow == nil && string(bytes.TrimSpace(v)) != "null" {
				c.allow = globs{} // allow: [] keeps nothing
			}
		case k == "deny":
			c.deny = p.globs("deny", v)
		case k == "rename":
			c.rename = p.renames(v)
		case k == "pin" && p.noun == "tool":
			c.pin = p.globs("pin", v)
		case k == "pin":
			p.fail(`pin is for tools only: a prompt is never hidden by tool search`)
		default:
			want := "allow, deny or rename"
			if p.noun == "tool" {
				want = "allow, deny, rename or pin"
			}
			p.fail("unknown key %q: want %s", k, want)
		}
	}
	return c
}

// globs decodes an array of names or globs; key names it in messages.
func (p *parser) globs(key string, raw json.RawMessage) globs {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil
	}
	prefix := key + ": "
	if key == p.field {
		prefix = ""
	}
	var items []json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		p.fail("%swant an array of %s names, got %s", prefix, p.noun, jsonobj.Kind(raw))
		return nil
	}
	out := make(globs, 0, len(items))
	for i, item := range items {
		var s string
		if len(bytes.TrimSpace(item)) == 0 || bytes.TrimSpace(item)[0] != '"' || json.Unmarshal(item, &s) != nil {
			p.fail("%sitem %d: want a %s name, got %s", prefix, i+1, p.noun, jsonobj.Kind(item))
			continue
		}
		if err := checkName(s); err != nil {
			p.fail("%sitem %d: %w", prefix, i+1, err)
			continue
		}
		out = append(out, glob(s))
	}
	return out
}

func (p *parser) renames(raw json.RawMessage) map[string]string {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return nil
	}
	var members map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &members) != nil {
		p.fail(`rename: want an object of original names to exported names, such as {"search_code": "gh_search_code"}, got %s`, jsonobj.Kind(raw))
		return nil
	}
	out := make(map[string]string, len(members))
	by := map[string]string{} // exported name → the original name that took it
	for _, orig := range slices.Sorted(maps.Keys(members)) {
		var to string
		v := bytes.TrimSpace(members[orig])
		if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &to) != nil {
			p.fail("rename: %q: want the exported name, a string, got %s", orig, jsonobj.Kind(v))
			continue
		}
		switch err := checkName(orig); {
		case err != nil:
			p.fail("rename: %q: %w", orig, err)
			continue
		case !glob(orig).literal():
			p.fail("rename: %q: a rename names one %s, not a pattern", orig, p.noun)
			continue
		case !exportedName(to):
			p.fail("rename: %q: %q is not a name every client accepts: use 1 to 64 of A-Z a-z 0-9 _ -", orig, to)
			continue
		case by[to] != "":
			p.fail("rename: %q and %q both become %q: an exported name names one %s", by[to], orig, to, p.noun)
			continue
		}
		by[to] = orig
		out[orig] = to
	}
	return out
}

// check refuses what can never work whatever the server offers: a rename
// or an exact pin of a name that allow and deny leave out.
func (p *parser) check(c *Choice) {
	for _, orig := range slices.Sorted(maps.Keys(c.rename)) {
		if !c.keeps(orig) {
			p.fail("rename: %q is left out by %s, so it is never exported", orig, c.why(orig))
		}
	}
	for _, g := range c.pin {
		if g.literal() && !c.keeps(string(g)) {
			p.fail("pin: %q is left out by %s, so it cannot be pinned", string(g), c.why(string(g)))
		}
	}
}

// why names what leaves name out.
func (c Choice) why(name string) string {
	if c.deny.match(name) {
		return "deny"
	}
	return "allow"
}

func checkName(s string) error {
	switch {
	case s == "":
		return errors.New("empty name")
	case strings.ContainsFunc(s, unicode.IsControl):
		return errors.New("name has control characters")
	}
	return nil
}

// IsZero reports whether c keeps every name under its own name and pins
// nothing, as when the property is absent.
func (c Choice) IsZero() bool {
	return c.allow == nil && len(c.deny) == 0 && len(c.rename) == 0 && len(c.pin) == 0
}

func (c Choice) keeps(name string) bool {
	return (c.allow == nil || c.allow.match(name)) && !c.deny.match(name)
}

// Export returns the name the server's tool (or prompt) orig is exported
// under, before SPEC §4.1's and §4.2's rules meet the other servers'
// names, and whether it is exported at all (SPEC §4.9). A name that is
// not renamed comes back as it is.
func (c Choice) Export(orig string) (name string, kept bool) {
	if !c.keeps(orig) {
		return "", false
	}
	if to, ok := c.rename[orig]; ok {
		return to, true
	}
	return orig, true
}

// Pinned reports whether the tool orig is listed in search mode beside
// the gateway's own tools (SPEC §4.10): kept and matched by pin.
func (c Choice) Pinned(orig string) bool { return c.pin.match(orig) && c.keeps(orig) }

// Unmatched returns one warning for each name in allow, rename or pin (an
// array's items are allow's) that matches none of offered, the server's
// original names (SPEC §4.9: a warning, never a failure), in the order
// they were configured, e.g. `tools: allow "get_fle" matches no tool the
// server offers`; past MaxUnmatched of them, one more line counts the
// rest (a list of thousands of names is one mistake, not thousands of
// log lines). The field is "tools" or "prompts".
func (c Choice) Unmatched(field string, offered []string) []string {
	noun := strings.TrimSuffix(field, "s")
	none := func(g glob) bool {
		return !slices.ContainsFunc(offered, g.match)
	}
	var out []string
	more := 0
	add := func(key string, g glob) {
		if len(out) == MaxUnmatched {
			more++
			return
		}
		out = append(out, fmt.Sprintf("%s: %s %q matches no %s the server offers", field, key, string(g), noun))
	}
	for _, g := range c.allow {
		if none(g) {
			add("allow", g)
		}
	}
	for _, orig := range slices.Sorted(maps.Keys(c.rename)) {
		if none(glob(orig)) {
			add("rename", glob(orig))
		}
	}
	for _, g := range c.pin {
		if none(g) {
			add("pin", g)
		}
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("%s: %d more names in allow, rename or pin match no %s the server offers", field, more, noun))
	}
	return out
}

// MaxUnmatched is how many names Unmatched lists one by one, per field.
const MaxUnmatched = 20

// Equal reports whether c and o choose alike: the same lists, in the same
// order, and the same renames. go-cmp uses it to compare launch specs.
func (c Choice) Equal(o Choice) bool {
	return (c.allow == nil) == (o.allow == nil) && slices.Equal(c.allow, o.allow) &&
		slices.Equal(c.deny, o.deny) && maps.Equal(c.rename, o.rename) && slices.Equal(c.pin, o.pin)
}
