package adapters

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"slices"

	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
)

// Adapter turns one config entry into a LaunchSpec. Resolve must not start
// anything: it only validates and describes. Errors say what is wrong with
// the entry and how to fix it; the caller adds the key.
type Adapter interface {
	// Kind names the adapter in messages: "catalog", "github", "command".
	Kind() string
	// Claims reports whether this adapter handles the entry.
	Claims(key string, e Entry) bool
	// Resolve validates the entry and returns how to launch it, plus
	// warnings (ignored properties and the like).
	Resolve(key string, e Entry) (LaunchSpec, []string, error)
}

// Entry is one value of the config object, split into the fields every kind
// shares and the properties that are the kind's own.
type Entry struct {
	RunCmd     *string           // "runCmd"
	InstallCmd *string           // "installCmd"
	Envs       map[string]string // "envs": names match [A-Za-z_][A-Za-z0-9_]*
	// URL is "url", an HTTP server's MCP endpoint (SPEC §5.6), as written.
	URL *string
	// Headers is "headers": header names (tokens) to values without CR,
	// LF or other control characters; checked, not canonicalised.
	Headers map[string]string
	// Tools and Prompts are "tools" and "prompts", the names of the
	// server's that are exported and under which names (SPEC §4.9); the
	// zero Choice keeps all. They are the gateway's concern, not the
	// adapter's: every kind takes them, and they are not sent to an
	// external adapter.
	Tools, Prompts choice.Choice
	// Props holds every other field, raw, by name.
	Props map[string]json.RawMessage
}

// LaunchSpec says how to start one upstream server. It is plain data, except
// for Prepare, which adapters that need work before the first start (a clone,
// an install) provide.
type LaunchSpec struct {
	Kind string // the adapter's Kind
	// Argv is the program and its arguments; Argv[0] is looked up in PATH.
	// For an HTTP server it is the command that serves URL (runCmd), or
	// empty when something else serves it.
	Argv []string
	// URL is an HTTP server's MCP endpoint (SPEC §5.6, §7.9): http or
	// https. Empty for a server that speaks stdio.
	URL string
	// Headers are sent on every request to URL. Their values are secrets,
	// like envs: they are in Secrets too.
	Headers map[string]string
	// Env is added to the daemon's sanitised environment (SPEC §7.1).
	Env map[string]string
	// Dir is the working directory; empty means the daemon's.
	Dir string
	// Secrets are values masked in the log (SPEC §7.5): the envs values,
	// and an HTTP server's header values and the password and query
	// values of its URL.
	Secrets []string
	// Prepare, if set, runs once before the first start in a daemon's life
	// (clone, install). out receives its output line by line for the log.
	// It must stop, and kill anything it started, when ctx is done.
	Prepare func(ctx context.Context, env []string, out io.Writer) error `json:"-"`
	// Install is what `mcp-gateway pull` runs for this entry, each step an argv.
	Install [][]string
	// Pulled names what pull installed that Argv runs, "<package>@<version>"
	// (SPEC §2.8); "" if the spec runs nothing pull installed.
	Pulled string
	// Tools and Prompts are the entry's choice of what the server exports
	// (SPEC §4.9), copied from the Entry whatever the adapter. They do not
	// change the process: Equal leaves them out.
	Tools, Prompts choice.Choice
}

// Equal reports whether two specs launch the same process and reach the
// same endpoint. Prepare is compared by presence only.
func (s LaunchSpec) Equal(o LaunchSpec) bool {
	return s.Kind == o.Kind && s.Dir == o.Dir && (s.Prepare == nil) == (o.Prepare == nil) &&
		slices.Equal(s.Argv, o.Argv) && maps.Equal(s.Env, o.Env) &&
		s.URL == o.URL && maps.Equal(s.Headers, o.Headers)
}
