package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// Resolved is an entry with its properties filled in.
type Resolved struct {
	Argv []string          // program and arguments, placeholders expanded
	Env  map[string]string // the entry's env, placeholders expanded
	// Secrets are the property values placed in Env variables whose names
	// say they hold a secret (an "apiKey" property feeding BRAVE_API_KEY,
	// say; see secretName): they are masked in the log as envs values are
	// (SPEC §7.5). Other values ("fast") are not: masking replaces every
	// occurrence in the log, and would hide ordinary words.
	Secrets []string
}

// Resolve expands the entry's placeholders with props, the config entry's
// properties as raw JSON by name (SPEC §6.2):
//   - a whole-argument "{{name}}" becomes the property's value; an array
//     property becomes one argument per item;
//   - a command group naming an unset optional property is dropped whole, so
//     a flag and its value go together;
//   - an env value naming an unset optional property is dropped.
//
// It returns warnings for properties the entry does not declare (they are
// ignored) and for a declared property's placeholder inside a longer
// argument or env value ("--x={{x}}": passed as written), and an error
// naming the property when one has the wrong type or a required one is
// missing or empty.
func (e *Entry) Resolve(props map[string]json.RawMessage) (Resolved, []string, error) {
	var warnings []string
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if _, ok := e.Properties[name]; !ok {
			warnings = append(warnings, fmt.Sprintf("unknown property %q ignored (known: %s)", name, e.propertyList()))
		}
	}
	warnings = append(warnings, e.embeddedPlaceholders()...)
	values, err := e.values(props)
	if err != nil {
		return Resolved{}, warnings, err
	}
	r := Resolved{Argv: e.expandCommand(values)}
	if len(r.Argv) == 0 || r.Argv[0] == "" {
		return Resolved{}, warnings, errors.New("command has no program after expanding properties")
	}
	r.Env, r.Secrets = e.expandEnv(values)
	return r, warnings, nil
}

// values checks props against the declared properties (defaults filled
// in) and returns each set property's value as text arguments: one for a
// scalar, one per item for an array. The error joins one error per bad
// property, each naming it.
func (e *Entry) values(props map[string]json.RawMessage) (map[string][]string, error) {
	values := make(map[string][]string, len(e.Properties))
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(e.Properties)) {
		p := e.Properties[name]
		raw, ok := props[name]
		if !ok || jsonrpc.IsNull(raw) {
			raw, ok = p.Default, len(p.Default) > 0
		}
		if !ok {
			if p.Required {
				errs = append(errs, fmt.Errorf("property %q is required (%s)", name, p.Type))
			}
			continue
		}
		if err := checkType(p.Type, raw); err != nil {
			errs = append(errs, fmt.Errorf("property %q: %w", name, err))
			continue
		}
		vals, err := textValues(p.Type, raw)
		if err != nil {
			errs = append(errs, fmt.Errorf("property %q: %w", name, err))
			continue
		}
		if p.Required && (len(vals) == 0 || (p.Type == TypeString && vals[0] == "")) {
			errs = append(errs, fmt.Errorf("property %q is required and must not be empty", name))
			continue
		}
		values[name] = vals
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return values, nil
}

// expandCommand replaces the command's placeholders by their values; a
// group naming an unset property is dropped whole.
func (e *Entry) expandCommand(values map[string][]string) []string {
	var argv []string
groups:
	for _, group := range e.Command {
		var out []string
		for _, arg := range group {
			name, ok := placeholder(arg)
			if !ok {
				out = append(out, arg)
				continue
			}
			vals, set := values[name]
			if !set {
				continue groups
			}
			out = append(out, vals...)
		}
		argv = append(argv, out...)
	}
	return argv
}

// expandEnv replaces the env's placeholders by their values (an array's
// items joined with ","); a variable naming an unset property is dropped.
// secrets are the values placed in variables whose name says they hold
// one (secretName).
func (e *Entry) expandEnv(values map[string][]string) (env map[string]string, secrets []string) {
	if len(e.Env) == 0 {
		return nil, nil
	}
	env = make(map[string]string, len(e.Env))
	for k, v := range e.Env {
		name, ok := placeholder(v)
		if !ok {
			env[k] = v
			continue
		}
		if vals, set := values[name]; set {
			env[k] = strings.Join(vals, ",")
			if env[k] != "" && secretName(k) {
				secrets = append(secrets, env[k])
			}
		}
	}
	return env, secrets
}

// secretName reports whether an environment variable's name says it holds
// a secret: it contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL or
// AUTH, in any case.
func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"} {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

func (e *Entry) propertyList() string {
	if len(e.Properties) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(e.Properties)), ", ")
}

// textValues renders a type-checked value as command-line arguments.
// Numbers keep their JSON spelling, so 2^53+1 stays exact.
func textValues(typ string, raw json.RawMessage) ([]string, error) {
	switch typ {
	case TypeArray:
		var items []string
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, fmt.Errorf("decode array: %w", err)
		}
		return items, nil
	case TypeString:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("decode string: %w", err)
		}
		return []string{s}, nil
	default:
		return []string{string(bytes.TrimSpace(raw))}, nil
	}
}

// FixedArgv is the start of the entry's command that no property can
// change: its argument groups up to the first that names a property. It
// holds the program, and, for a package runner such as npx or uvx, the
// package, so that `mcp-gateway pull` and `mcp-gateway catalog` can tell
// what an entry runs without its properties.
func (e *Entry) FixedArgv() []string {
	var argv []string
	for _, group := range e.Command {
		for _, arg := range group {
			if _, ok := placeholder(arg); ok {
				return argv
			}
		}
		argv = append(argv, group...)
	}
	return argv
}

// embeddedPlaceholders warns of each argument and env value that holds a
// declared property's placeholder without being it whole: SPEC §6.2
// replaces only a whole-argument "{{name}}", so "--port={{port}}" reaches
// the server as written. The catalog's own text is quoted, never a value.
func (e *Entry) embeddedPlaceholders() []string {
	var warnings []string
	embedded := func(s string) (string, bool) {
		if _, whole := placeholder(s); whole {
			return "", false
		}
		for rest := s; ; {
			i := strings.Index(rest, "{{")
			if i < 0 {
				return "", false
			}
			rest = rest[i+2:]
			j := strings.Index(rest, "}}")
			if j < 0 {
				return "", false
			}
			name := strings.TrimSpace(rest[:j])
			if _, declared := e.Properties[name]; declared {
				return name, true
			}
		}
	}
	for _, g := range e.Command {
		for _, a := range g {
			if name, ok := embedded(a); ok {
				warnings = append(warnings, fmt.Sprintf("command argument %q holds {{%s}} inside it and is passed as written: a placeholder is replaced only as a whole argument (a flag, then \"{{%s}}\" as the next)", a, name, name))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		if name, ok := embedded(e.Env[k]); ok {
			warnings = append(warnings, fmt.Sprintf("env %s holds {{%s}} inside its value and is passed as written: a placeholder is replaced only as the whole value", k, name))
		}
	}
	return warnings
}
