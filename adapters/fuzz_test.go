package adapters_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

// FuzzParseConfig checks that no --config document makes Parse panic, and
// the invariants callers rely on: an error has a message whose every line
// names a key or the document; a success has at most MaxServers servers,
// sorted and distinct, each with a program to run. It also replaces every
// envs value with a marker and checks that the error never shows it.
//
// CI: go test -run '^$' -fuzz '^FuzzParseConfig$' -fuzztime 30s ./adapters/
func FuzzParseConfig(f *testing.F) {
	for _, tc := range rejectCases {
		f.Add([]byte(tc.doc))
	}
	for _, tc := range acceptCases {
		f.Add([]byte(tc.doc))
	}
	f.Add([]byte(`{"github/a/b": {"runCmd": "x", "installCmd": "y", "envs": {"GITHUB_TOKEN": "t"}}, "mine": {"runCmd": "z", "envs": {"A": "v"}}}`))
	list := builtinList()
	f.Fuzz(func(t *testing.T, doc []byte) {
		servers, warns, err := adapters.Parse(doc, list)
		if err != nil {
			checkError(t, doc, err)
		} else {
			checkServers(t, doc, servers)
		}
		// Same input, same answer: no map order leaks into the result.
		servers2, warns2, err2 := adapters.Parse(doc, list)
		if errString(err) != errString(err2) || len(servers) != len(servers2) || strings.Join(warns, "\n") != strings.Join(warns2, "\n") {
			t.Fatalf("Parse(%q) differs between two runs:\n%v\n---\n%v", doc, err, err2)
		}
		checkNoEnvsValues(t, doc, list)
	})
}

func checkError(t *testing.T, doc []byte, err error) {
	t.Helper()
	msg := err.Error()
	if msg == "" {
		t.Fatalf("Parse(%q): error with an empty message", doc)
	}
	if line, ok := unnamedLine(msg); !ok {
		t.Fatalf("Parse(%q): error line %q names no key", doc, line)
	}
}

func checkServers(t *testing.T, doc []byte, servers []adapters.Server) {
	t.Helper()
	if len(servers) > adapters.MaxServers {
		t.Fatalf("Parse(%q) = %d servers, more than %d", doc, len(servers), adapters.MaxServers)
	}
	for i, s := range servers {
		if s.Name == "" {
			t.Fatalf("Parse(%q): server %d has an empty name", doc, i)
		}
		if i > 0 && servers[i-1].Name >= s.Name {
			t.Fatalf("Parse(%q): servers not sorted or not distinct: %q then %q", doc, servers[i-1].Name, s.Name)
		}
		if len(s.Spec.Argv) == 0 || s.Spec.Argv[0] == "" {
			t.Fatalf("Parse(%q): server %q has no program: %q", doc, s.Name, s.Spec.Argv)
		}
		if s.Spec.Kind == "" {
			t.Fatalf("Parse(%q): server %q has no kind", doc, s.Name)
		}
		for _, v := range s.Spec.Secrets {
			if v == "" {
				t.Fatalf("Parse(%q): server %q has an empty secret", doc, s.Name)
			}
		}
	}
}

// envsMarker replaces envs values in checkNoEnvsValues.
const envsMarker = "ENVS-VALUE-MARKER-7f3a"

// checkNoEnvsValues re-encodes doc with every string envs value replaced by
// a marker and checks that neither the error nor a warning shows it.
func checkNoEnvsValues(t *testing.T, doc []byte, list []adapters.Adapter) {
	t.Helper()
	if bytes.Contains(doc, []byte("MARKER")) {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var cfg map[string]any
	if dec.Decode(&cfg) != nil {
		return
	}
	marked := false
	for _, entry := range cfg {
		obj, _ := entry.(map[string]any)
		envs, _ := obj["envs"].(map[string]any)
		for name, v := range envs {
			if _, isString := v.(string); isString {
				envs[name] = envsMarker
				marked = true
			}
		}
	}
	if !marked {
		return
	}
	doc2, err := json.Marshal(cfg)
	if err != nil {
		return
	}
	_, warns, err := adapters.Parse(doc2, list)
	for _, s := range append(warns, errString(err)) {
		if strings.Contains(s, envsMarker) {
			t.Fatalf("Parse(%q) shows an envs value: %q", doc2, s)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
