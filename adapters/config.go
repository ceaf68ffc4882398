package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// MaxServers is the most servers one config may name (SPEC §5.1).
const MaxServers = 64

// Server is one resolved config entry.
type Server struct {
	Name string
	Spec LaunchSpec
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Parse validates the --config document and resolves every entry through
// the first adapter that claims it. The result is sorted by name (SPEC
// §4.1). Warnings are for the launcher's stderr. The error joins one error
// per bad entry, each naming its key; values of envs never appear in it.
func Parse(doc []byte, list []Adapter) ([]Server, []string, error) {
	entries, err := decodeConfig(doc)
	if err != nil {
		return nil, nil, err
	}
	var (
		servers  []Server
		warnings []string
		errs     []error
	)
	for _, key := range sortedKeys(entries) {
		spec, warns, err := resolveEntry(key, entries[key], list)
		for _, w := range warns {
			warnings = append(warnings, fmt.Sprintf("server %q: %s", key, w))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("server %q: %w", key, err))
			continue
		}
		servers = append(servers, Server{Name: key, Spec: spec})
	}
	if err := errors.Join(errs...); err != nil {
		return nil, warnings, err
	}
	return servers, warnings, nil
}

func resolveEntry(key string, raw json.RawMessage, list []Adapter) (LaunchSpec, []string, error) {
	if key == "" {
		return LaunchSpec{}, nil, errors.New("empty server name")
	}
	if strings.ContainsFunc(key, unicode.IsControl) {
		return LaunchSpec{}, nil, errors.New("server name has control characters")
	}
	e, err := decodeEntry(raw)
	if err != nil {
		return LaunchSpec{}, nil, err
	}
	for _, a := range list {
		if a.Claims(key, e) {
			spec, warns, err := a.Resolve(key, e)
			if err != nil {
				return LaunchSpec{}, warns, err
			}
			spec.Kind = a.Kind()
			for _, v := range e.Envs {
				spec.Secrets = append(spec.Secrets, v)
			}
			return spec, warns, nil
		}
	}
	return LaunchSpec{}, nil, unknownServerError(list)
}

// unknownServerError lists what the name could have been (SPEC §5.1).
func unknownServerError(list []Adapter) error {
	var forms []string
	for _, a := range list {
		if h, ok := a.(interface{ Help() string }); ok {
			forms = append(forms, h.Help())
		}
	}
	return fmt.Errorf("unknown server: not a catalog name, and not one of the other forms; use %s", strings.Join(forms, "; or "))
}

func decodeConfig(doc []byte) (map[string]json.RawMessage, error) {
	trimmed := bytes.TrimSpace(doc)
	if len(trimmed) == 0 {
		return nil, errors.New("parse config: empty; want a JSON object keyed by server name, e.g. {\"time\": {}}")
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("parse config: want a JSON object keyed by server name, got %s", jsonKind(trimmed))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var entries map[string]json.RawMessage
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("parse config: %w", err)
	}
	if dec.More() {
		return nil, errors.New("parse config: unexpected data after the JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("parse config: unexpected data after the JSON object")
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
	if string(trimmed) == "null" {
		return Entry{Props: map[string]json.RawMessage{}}, nil
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return Entry{}, fmt.Errorf("want an object (or null), got %s", jsonKind(trimmed))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return Entry{}, fmt.Errorf("decode entry: %w", err)
	}
	e := Entry{Props: map[string]json.RawMessage{}}
	var errs []error
	for k, v := range fields {
		switch k {
		case "runCmd", "installCmd":
			var s string
			if err := json.Unmarshal(v, &s); err != nil {
				errs = append(errs, fmt.Errorf("%s: want a string, got %s", k, jsonKind(v)))
				continue
			}
			if k == "runCmd" {
				e.RunCmd = &s
			} else {
				e.InstallCmd = &s
			}
		case "envs":
			envs, err := decodeEnvs(v)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			e.Envs = envs
		default:
			e.Props[k] = v
		}
	}
	if err := errors.Join(errs...); err != nil {
		return Entry{}, err
	}
	return e, nil
}

// decodeEnvs checks envs (SPEC §5.5). Messages name the variable, never its value.
func decodeEnvs(raw json.RawMessage) (map[string]string, error) {
	trimmed := bytes.TrimSpace(raw)
	if string(trimmed) == "null" {
		return nil, nil
	}
	var fields map[string]json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '{' || json.Unmarshal(trimmed, &fields) != nil {
		return nil, fmt.Errorf("envs: want an object of string values, got %s", jsonKind(trimmed))
	}
	envs := make(map[string]string, len(fields))
	var errs []error
	for _, name := range sortedKeys(fields) {
		if !envName.MatchString(name) {
			errs = append(errs, fmt.Errorf("envs: variable name %q must match [A-Za-z_][A-Za-z0-9_]*", name))
			continue
		}
		var s string
		if err := json.Unmarshal(fields[name], &s); err != nil {
			errs = append(errs, fmt.Errorf("envs: %s: value must be a string, got %s", name, jsonKind(fields[name])))
			continue
		}
		if strings.ContainsRune(s, 0) {
			errs = append(errs, fmt.Errorf("envs: %s: value has a NUL byte", name))
			continue
		}
		envs[name] = s
	}
	return envs, errors.Join(errs...)
}

func jsonKind(raw []byte) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		if t[0] == '-' || (t[0] >= '0' && t[0] <= '9') {
			return "a number"
		}
		return "invalid JSON"
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
