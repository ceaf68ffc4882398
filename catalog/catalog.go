package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-gateway/mcp-gateway/internal/boundedfile"
	"github.com/mcp-gateway/mcp-gateway/internal/envname"
	"github.com/mcp-gateway/mcp-gateway/internal/errlist"
	"github.com/mcp-gateway/mcp-gateway/internal/jsonobj"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

//go:embed builtin.json
var builtinJSON []byte

// Property types a catalog entry may declare (SPEC §6.2).
const (
	TypeString  = "string"
	TypeArray   = "array" // of strings
	TypeNumber  = "number"
	TypeBoolean = "boolean"
)

// Source says where an entry came from.
type Source string

const (
	SourceBuiltin  Source = "built-in"
	SourceTemplate Source = "template"
)

// Property declares one property of an entry:
// {"type": "string"|"array"|"number"|"boolean", "required": bool, "default": value}.
type Property struct {
	Type     string          `json:"type"`
	Required bool            `json:"required,omitempty"`
	Default  json.RawMessage `json:"default,omitempty"`
}

// Entry is one catalog server.
type Entry struct {
	Description string              `json:"description"`
	Command     [][]string          `json:"command"`
	Env         map[string]string   `json:"env,omitempty"`
	Install     [][]string          `json:"install,omitempty"`
	Properties  map[string]Property `json:"properties,omitempty"`

	// Source is where the entry came from; it is not part of the file format.
	Source Source `json:"-"`
}

// Catalog is an immutable set of entries by name.
type Catalog struct {
	entries map[string]*Entry
}

// Builtin returns the catalog embedded in the binary (SPEC §6.1). It is
// parsed once per process, not on every Load (every reload loads): a
// Catalog and its entries are never changed once parsed, so one value
// serves every caller.
func Builtin() *Catalog { return builtin() }

var builtin = sync.OnceValue(func() *Catalog {
	c, err := Parse(builtinJSON, SourceBuiltin)
	if err != nil {
		panic("catalog: embedded builtin.json is invalid: " + err.Error())
	}
	return c
})

// Load returns the built-in catalog merged with the override file at path
// (SPEC §6.2): the file's entries add to or replace built-in ones by name.
// A missing file is not an error. A malformed file is an error that names
// the file and, where it can, the entry.
func Load(path string) (*Catalog, error) {
	base := Builtin()
	if path == "" {
		return base, nil
	}
	data, err := boundedfile.Read(path, MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return base, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read catalog file %s: %w", path, err)
	}
	over, err := Parse(data, SourceTemplate)
	if err != nil {
		// One line per bad entry, each naming the file.
		var errs []error
		for _, e := range errlist.Flatten(err) {
			errs = append(errs, fmt.Errorf("load catalog file %s: %w", path, e))
		}
		return nil, errors.Join(errs...)
	}
	return base.Merge(over), nil
}

// Parse decodes and validates a catalog document. Errors name the entry.
func Parse(data []byte, src Source) (*Catalog, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("parse catalog: empty document, want a JSON object keyed by server name")
	}
	raw, err := jsonobj.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("parse catalog: %w", err)
	}
	c := &Catalog{entries: make(map[string]*Entry, len(raw))}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		e, err := parseEntry(name, raw[name])
		if err != nil {
			errs = append(errs, fmt.Errorf("entry %q: %w", name, err))
			continue
		}
		e.Source = src
		c.entries[name] = e
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

func parseEntry(name string, raw json.RawMessage) (*Entry, error) {
	if name == "" || strings.ContainsFunc(name, isControl) {
		return nil, errors.New("name is empty or has control characters")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var e Entry
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("decode entry: %w", err)
	}
	if len(e.Command) == 0 || len(e.Command[0]) == 0 || e.Command[0][0] == "" {
		return nil, errors.New("command is empty: want a list of argument groups whose first group names the program")
	}
	for i, g := range e.Command {
		if len(g) == 0 {
			return nil, fmt.Errorf("command group %d is empty", i)
		}
	}
	for i, g := range e.Install {
		if len(g) == 0 || g[0] == "" {
			return nil, fmt.Errorf("install step %d is empty", i)
		}
	}
	if err := e.checkProperties(); err != nil {
		return nil, err
	}
	if err := e.checkPlaceholders(); err != nil {
		return nil, err
	}
	return &e, nil
}

// ReservedProperties are the entry fields the gateway reads whatever the
// kind of entry (SPEC §4.9): a catalog entry cannot declare them as
// properties of its own.
var ReservedProperties = []string{"tools", "prompts"}

// checkProperties checks each declared property's type and default, and
// that none is reserved; a null default is made no default.
func (e *Entry) checkProperties() error {
	for _, pname := range slices.Sorted(maps.Keys(e.Properties)) {
		p := e.Properties[pname]
		if slices.Contains(ReservedProperties, pname) {
			return fmt.Errorf("property %q is reserved: every config entry takes %q to choose the server's %s; rename the property", pname, pname, pname)
		}
		if !slices.Contains([]string{TypeString, TypeArray, TypeNumber, TypeBoolean}, p.Type) {
			return fmt.Errorf("property %q: unknown type %q (want string, array, number or boolean)", pname, p.Type)
		}
		if jsonrpc.IsNull(p.Default) {
			p.Default = nil // "default": null is no default
			e.Properties[pname] = p
		}
		if len(p.Default) > 0 {
			if err := checkType(p.Type, p.Default); err != nil {
				return fmt.Errorf("property %q: default: %w", pname, err)
			}
		}
	}
	return nil
}

// checkPlaceholders checks that every placeholder in the command and the
// env names a declared property (and that the first group, which holds
// the program, can never be dropped), and the env's variable names.
func (e *Entry) checkPlaceholders() error {
	for i, g := range e.Command {
		for _, a := range g {
			name, ok := placeholder(a)
			if !ok {
				continue
			}
			p, declared := e.Properties[name]
			if !declared {
				return fmt.Errorf("command: placeholder {{%s}} names no declared property", name)
			}
			// The first group holds the program; it must never be dropped.
			if i == 0 && !p.Required && len(p.Default) == 0 {
				return fmt.Errorf("command: placeholder {{%s}} in the first group needs a required property or a default", name)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		if err := envname.Check(k); err != nil {
			return fmt.Errorf("env: %w", err)
		}
		if name, ok := placeholder(e.Env[k]); ok {
			if _, declared := e.Properties[name]; !declared {
				return fmt.Errorf("env %s: placeholder {{%s}} names no declared property", k, name)
			}
		}
	}
	return nil
}

// placeholder reports whether arg is exactly "{{name}}".
func placeholder(arg string) (string, bool) {
	if len(arg) > 4 && strings.HasPrefix(arg, "{{") && strings.HasSuffix(arg, "}}") {
		name := strings.TrimSpace(arg[2 : len(arg)-2])
		if name != "" && !strings.ContainsAny(name, "{}") {
			return name, true
		}
	}
	return "", false
}

// checkType reports whether raw is a JSON value of the property type.
func checkType(typ string, raw json.RawMessage) error {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("decode value: %w", err)
	}
	ok := false
	switch typ {
	case TypeString:
		_, ok = v.(string)
	case TypeNumber:
		_, ok = v.(json.Number)
	case TypeBoolean:
		_, ok = v.(bool)
	case TypeArray:
		if items, isArr := v.([]any); isArr {
			ok = true
			for _, it := range items {
				if _, s := it.(string); !s {
					return errors.New("want an array of strings, got an array with a non-string item")
				}
			}
		}
	}
	if !ok {
		return fmt.Errorf("want %s, got %s", typ, jsonKind(v))
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// Merge returns a catalog with over's entries added to, or replacing, c's.
func (c *Catalog) Merge(over *Catalog) *Catalog {
	out := &Catalog{entries: make(map[string]*Entry, len(c.entries)+len(over.entries))}
	for k, v := range c.entries {
		out.entries[k] = v
	}
	for k, v := range over.entries {
		out.entries[k] = v
	}
	return out
}

// Lookup returns the entry called name.
func (c *Catalog) Lookup(name string) (*Entry, bool) {
	e, ok := c.entries[name]
	return e, ok
}

// Names returns the entry names, sorted.
func (c *Catalog) Names() []string {
	return slices.Sorted(maps.Keys(c.entries))
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

// MaxFileBytes bounds the override file: 16 MiB.
const MaxFileBytes = 16 << 20
