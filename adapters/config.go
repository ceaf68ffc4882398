package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/net/http/httpguts"

	"github.com/mcp-gateway/mcp-gateway/adapters/choice"
	"github.com/mcp-gateway/mcp-gateway/internal/envname"
	"github.com/mcp-gateway/mcp-gateway/internal/errlist"
	"github.com/mcp-gateway/mcp-gateway/internal/jsonobj"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// MaxServers is the most servers one config may name (SPEC §5.1).
const MaxServers = 64

// Server is one resolved config entry.
type Server struct {
	Name string
	Spec LaunchSpec
}

// Parse validates the --config document and resolves every entry through
// the first adapter that claims it. The result is sorted by name (SPEC
// §4.1). Warnings are for the launcher's stderr. The error joins one error
// per bad entry, each naming its key; values of envs never appear in it.
func Parse(doc []byte, list []Adapter) ([]Server, []string, error) {
	config, err := DecodeConfig(doc)
	if err != nil {
		return nil, nil, err
	}
	var (
		servers  []Server
		warnings []string
		errs     []error
	)
	for _, key := range config.Keys() {
		srv, warns, err := config.Resolve(key, list)
		warnings = append(warnings, warns...)
		if err != nil {
			errs = append(errs, errlist.Flatten(err)...)
			continue
		}
		servers = append(servers, srv)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, warnings, err
	}
	return servers, warnings, nil
}

// Config is a --config document whose shape was checked (SPEC §5.1): its
// entries, raw, by server name. Entries are resolved one at a time with
// Resolve, so that a catalog reload (SPEC §6.3) can resolve each running
// server again against a new adapter list.
type Config map[string]json.RawMessage

// DecodeConfig checks the document's shape (SPEC §5.1: an object, at most
// MaxServers keys, none twice) without resolving any entry.
func DecodeConfig(doc []byte) (Config, error) {
	entries, err := decodeConfig(doc)
	if err != nil {
		return nil, err
	}
	return Config(entries), nil
}

// Keys returns the server names, sorted (SPEC §4.1).
func (c Config) Keys() []string { return slices.Sorted(maps.Keys(c)) }

// Resolve validates the entry named key and resolves it through the first
// adapter in list that claims it (SPEC §9.1). Warnings and errors name the
// key, as Parse's do; the error joins one error per problem, and values of
// envs never appear in it.
func (c Config) Resolve(key string, list []Adapter) (Server, []string, error) {
	raw, ok := c[key]
	if !ok {
		return Server{}, nil, fmt.Errorf("server %q: not in the config", key)
	}
	spec, warns, err := resolveEntry(key, raw, list)
	var warnings []string
	for _, w := range warns {
		warnings = append(warnings, fmt.Sprintf("server %q: %s", key, w))
	}
	if err != nil {
		var errs []error
		for _, e := range errlist.Flatten(err) {
			errs = append(errs, fmt.Errorf("server %q: %w", key, e))
		}
		return Server{}, warnings, errors.Join(errs...)
	}
	return Server{Name: key, Spec: spec}, warnings, nil
}

func resolveEntry(key string, raw json.RawMessage, list []Adapter) (LaunchSpec, []string, error) {
	if key == "" {
		return LaunchSpec{}, nil, errors.New("name is empty")
	}
	if strings.ContainsFunc(key, unicode.IsControl) {
		return LaunchSpec{}, nil, errors.New("name has control characters")
	}
	e, err := decodeEntry(raw)
	if err != nil {
		return LaunchSpec{}, nil, err
	}
	if e.Headers != nil && e.URL == nil {
		return LaunchSpec{}, nil, errors.New(`headers are sent to an HTTP server: add "url", or remove "headers"`)
	}
	for _, a := range list {
		if a.Claims(key, e) {
			spec, warns, err := a.Resolve(key, e)
			if err != nil {
				return LaunchSpec{}, warns, err
			}
			spec.Kind = a.Kind()
			spec.Secrets = secrets(spec.Secrets, e.Envs)
			spec.Tools, spec.Prompts = e.Tools, e.Prompts
			return spec, warns, nil
		}
	}
	return LaunchSpec{}, nil, unknownServerError(list, e)
}

// secrets returns the values to mask in the log: the adapter's own (for
// the catalog, property values placed in the env) and the envs values,
// sorted so that the spec is deterministic; an empty value hides nothing
// and is left out.
func secrets(own []string, envs map[string]string) []string {
	out := slices.Clone(own)
	for _, v := range envs {
		if v != "" {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// unknownServerError lists what the name could have been (SPEC §5.1): each
// adapter with a Help method describes its form.
// A property that is a shared field's name in another case (a misspelt
// "runcmd") is named first: the entry, not the name, is what is wrong.
func unknownServerError(list []Adapter, e Entry) error {
	var forms []string
	for _, a := range list {
		if h, ok := a.(interface{ Help() string }); ok {
			forms = append(forms, h.Help())
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.Props)) {
		for _, field := range sharedFields {
			if strings.EqualFold(k, field) {
				return fmt.Errorf("unknown property %q: did you mean %q? (without it the name is no server's: use %s)", k, field, strings.Join(forms, "; or "))
			}
		}
	}
	return fmt.Errorf("unknown server name; use %s", strings.Join(forms, "; or "))
}

// sharedFields are the entry fields every kind reads (decodeField).
var sharedFields = []string{"runCmd", "installCmd", "url", "envs", "headers", "tools", "prompts"}

func decodeConfig(doc []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(doc)
	if len(trimmed) == 0 {
		return nil, errors.New(`parse config: empty; want a JSON object keyed by server name, e.g. {"time": {}}`)
	}
	entries, err := jsonobj.Decode(trimmed)
	if err != nil {
		return nil, fmt.Errorf("parse config: %w", err)
	}
	if len(entries) > MaxServers {
		return nil, fmt.Errorf("parse config: %d servers, at most %d allowed", len(entries), MaxServers)
	}
	if err := checkDuplicateKeys(trimmed); err != nil {
		return nil, err
	}
	return entries, nil
}

// checkDuplicateKeys rejects an object naming a server twice, which
// encoding/json would silently collapse.
func checkDuplicateKeys(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("parse config: %w", err)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("parse config: %w", err)
		}
		key, _ := tok.(string)
		if seen[key] {
			return fmt.Errorf("server %q: named twice in the config", key)
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("parse config: %w", err)
		}
	}
	return nil
}

func decodeEntry(raw json.RawMessage) (Entry, error) {
	trimmed := bytes.TrimSpace(raw)
	if jsonrpc.IsNull(trimmed) {
		return Entry{Props: map[string]json.RawMessage{}}, nil
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Entry{}, fmt.Errorf("want an object (or null), got %s", jsonobj.Kind(trimmed))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return Entry{}, fmt.Errorf("decode entry: %w", err)
	}
	e := Entry{Props: map[string]json.RawMessage{}}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if err := e.decodeField(k, fields[k]); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// decodeField sets the shared field k of e from v, or keeps v among the
// kind's own properties.
func (e *Entry) decodeField(k string, v json.RawMessage) error {
	var err error
	switch k {
	case "runCmd":
		e.RunCmd, err = decodeString(k, v)
	case "installCmd":
		e.InstallCmd, err = decodeString(k, v)
	case "url":
		e.URL, err = decodeString(k, v)
	case "envs":
		e.Envs, err = decodeEnvs(v)
	case "headers":
		e.Headers, err = decodeHeaders(v)
	case "tools":
		e.Tools, err = choice.Tools(v)
	case "prompts":
		e.Prompts, err = choice.Prompts(v)
	default:
		e.Props[k] = v
	}
	return err
}

// decodeString decodes a string field; null means not given (nil), as
// for a null entry.
func decodeString(k string, v json.RawMessage) (*string, error) {
	if jsonrpc.IsNull(v) {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("%s: want a string, got %s", k, jsonobj.Kind(v))
	}
	return &s, nil
}

func checkCommand(field string, cmd *string, required bool) error {
	if cmd == nil {
		if required {
			return fmt.Errorf("%s is required: the shell command that starts the server", field)
		}
		return nil
	}
	if strings.TrimSpace(*cmd) == "" {
		return fmt.Errorf("%s is empty: want the shell command that starts the server", field)
	}
	if strings.ContainsRune(*cmd, 0) {
		return fmt.Errorf("%s has a NUL byte", field)
	}
	return nil
}

// decodeEnvs checks envs (SPEC §5.5). Messages name the variable, never its value.
func decodeEnvs(raw json.RawMessage) (map[string]string, error) {
	return decodeStrings("envs", "an object of string values", raw, envname.Check, func(name, s string) error {
		if strings.ContainsRune(s, 0) {
			return fmt.Errorf("envs: %s: value has a NUL byte", name)
		}
		return nil
	})
}

// reservedHeaders are the request headers the gateway sets itself on
// every request to an HTTP server (MCP Streamable HTTP; HTTP framing); a
// configured value would break the transport, so it is refused.
var reservedHeaders = []string{
	"Accept", "Connection", "Content-Length", "Content-Type", "Host", "Keep-Alive", "Last-Event-Id",
	"Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id", "Proxy-Connection", "Te",
	"Trailer", "Transfer-Encoding", "Upgrade",
}

// decodeHeaders checks headers (SPEC §5.6): an object of header names,
// valid HTTP tokens, to string values without CR, LF or other control
// characters. Messages name the header, never its value, which is a
// secret.
func decodeHeaders(raw json.RawMessage) (map[string]string, error) {
	seen := map[string]string{} // canonical name → the name as configured
	checkName := func(name string) error {
		canon := http.CanonicalHeaderKey(name)
		switch {
		case !httpguts.ValidHeaderFieldName(name):
			return fmt.Errorf("%q is not a valid header name (letters, digits and !#$%%&'*+-.^_`|~ only)", name)
		case slices.Contains(reservedHeaders, canon) || strings.HasPrefix(canon, "Mcp-Param-"):
			return fmt.Errorf("%s is set by the gateway itself and cannot be configured", canon)
		case seen[canon] != "":
			return fmt.Errorf("%q and %q are the same header", seen[canon], name)
		}
		seen[canon] = name
		return nil
	}
	return decodeStrings("headers", "an object of header names to string values", raw, checkName, func(name, s string) error {
		if !httpguts.ValidHeaderFieldValue(s) {
			return fmt.Errorf("headers: %s: value has CR, LF or another control character", name)
		}
		return nil
	})
}

// decodeStrings decodes field, an object of names to string values
// (null: none), checking each name with checkName (its error is prefixed
// with field) and each value with checkValue, in name order. The error
// joins one error per bad member; messages name the member, never its
// value, which may be a secret.
func decodeStrings(field, want string, raw json.RawMessage, checkName func(string) error, checkValue func(name, value string) error) (map[string]string, error) {
	trimmed := bytes.TrimSpace(raw)
	if jsonrpc.IsNull(trimmed) {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &fields) != nil {
		return nil, fmt.Errorf("%s: want %s, got %s", field, want, jsonobj.Kind(trimmed))
	}
	out := make(map[string]string, len(fields))
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if err := checkName(name); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
			continue
		}
		var s string
		if jsonrpc.IsNull(fields[name]) || json.Unmarshal(fields[name], &s) != nil {
			errs = append(errs, fmt.Errorf("%s: %s: value must be a string, got %s", field, name, jsonobj.Kind(fields[name])))
			continue
		}
		if err := checkValue(name, s); err != nil {
			errs = append(errs, err)
			continue
		}
		out[name] = s
	}
	return out, errors.Join(errs...)
}
