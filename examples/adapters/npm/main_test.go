package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

func TestResolve(t *testing.T) {
	for _, tc := range []struct {
		key, args string
		argv      []string // nil: an error containing want
		want      string
	}{
		{key: "npm/@modelcontextprotocol/server-everything", argv: []string{"npx", "-y", "@modelcontextprotocol/server-everything"}},
		{key: "npm/left-pad@1.3.0", args: `["a", "--b"]`, argv: []string{"npx", "-y", "left-pad@1.3.0", "a", "--b"}},
		{key: "npm/JSONStream@latest", args: `null`, argv: []string{"npx", "-y", "JSONStream@latest"}},
		{key: "npm/", want: "key must be"},
		{key: "npm/-rf", want: "key must be"},
		{key: "npm/a b", want: "key must be"},
		{key: "npm/@scope/", want: "key must be"},
		{key: "npm/../x", want: "key must be"},
		{key: "npm/x", args: `"a"`, want: "args: want an array of strings"},
		{key: "npm/x", args: `[1]`, want: "args: want an array of strings"},
	} {
		e := adapters.Entry{Props: map[string]json.RawMessage{}}
		if tc.args != "" {
			e.Props["args"] = json.RawMessage(tc.args)
		}
		spec, _, err := npmAdapter{}.Resolve(tc.key, e)
		if tc.argv == nil {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s %s: error %v, want %q", tc.key, tc.args, err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %s: %v", tc.key, tc.args, err)
			continue
		}
		if diff := cmp.Diff(tc.argv, spec.Argv); diff != "" {
			t.Errorf("%s %s: argv (-want +got):\n%s", tc.key, tc.args, diff)
		}
		if diff := cmp.Diff([][]string{{"npm", "exec", "--yes", "--package=" + tc.argv[2], "--", "true"}}, spec.Install); diff != "" {
			t.Errorf("%s: install (-want +got):\n%s", tc.key, diff)
		}
	}
}
