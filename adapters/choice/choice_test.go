package choice

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExport(t *testing.T) {
	offered := []string{"get_file_contents", "search_code", "search_issues", "delete_repo", "create_issue"}
	for _, tc := range []struct {
		name, raw string
		want      map[string]string // exported name by original name; absent: left out
		pinned    []string
	}{
		{name: "absent", raw: ``, want: map[string]string{
			"get_file_contents": "get_file_contents", "search_code": "search_code", "search_issues": "search_issues",
			"delete_repo": "delete_repo", "create_issue": "create_issue"}},
		{name: "null", raw: `null`, want: map[string]string{
			"get_file_contents": "get_file_contents", "search_code": "search_code", "search_issues": "search_issues",
			"delete_repo": "delete_repo", "create_issue": "create_issue"}},
		{name: "array", raw: `["get_file_contents", "search_*"]`, want: map[string]string{
			"get_file_contents": "get_file_contents", "search_code": "search_code", "search_issues": "search_issues"}},
		{name: "empty array keeps nothing", raw: `[]`, want: map[string]string{}},
		{name: "empty allow keeps nothing", raw: `{"allow": []}`, want: map[string]string{}},
		{name: "deny only", raw: `{"deny": ["delete_*", "*_issue"]}`, want: map[string]string{
			"get_file_contents": "get_file_contents", "search_code": "search_code", "search_issues": "search_issues"}},
		{name: "deny wins over allow", raw: `{"allow": ["search_*", "create_issue"], "deny": ["*_issues"]}`, want: map[string]string{
			"search_code": "search_code", "create_issue": "create_issue"}},
		{name: "rename", raw: `{"rename": {"search_code": "gh_search_code", "delete_repo": "danger-delete"}}`, want: map[string]string{
			"get_file_contents": "get_file_contents", "search_code": "gh_search_code", "search_issues": "search_issues",
			"delete_repo": "danger-delete", "create_issue": "create_issue"}},
		{name: "rename to a name the server has too", raw: `{"allow": ["search_*"], "rename": {"search_code": "search_issues"}}`, want: map[string]string{
			"search_code": "search_issues", "search_issues": "search_issues"}},
		{name: "pin", raw: `{"deny": ["delete_repo"], "pin": ["search_*", "delete_*"]}`, want: map[string]string{
			"get_file_contents": "get_file_contents", "search_code": "search_code", "search_issues": "search_issues",
			"create_issue": "create_issue"}, pinned: []string{"search_code", "search_issues"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Tools([]byte(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			var pinned []string
			for _, o := range offered {
				if n, ok := c.Export(o); ok {
					got[o] = n
				} else if n != "" {
					t.Errorf("Export(%q) = %q, false; want an empty name when left out", o, n)
				}
				if c.Pinned(o) {
					pinned = append(pinned, o)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("exported (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.pinned, pinned); diff != "" {
				t.Errorf("pinned (-want +got):\n%s", diff)
			}
			if zero := tc.raw == "" || tc.raw == "null"; c.IsZero() != zero {
				t.Errorf("IsZero() = %v, want %v", c.IsZero(), zero)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		field, raw string
		want       []string // each a line of the joined error
	}{
		{"tools", `"get_*"`, []string{`tools: want an array of tool names or an object with allow, deny, rename and pin, got a string`}},
		{"prompts", `7`, []string{`prompts: want an array of prompt names or an object with allow, deny and rename, got a number`}},
		{"tools", `["a", 3, "", "b\u0007"]`, []string{
			`tools: item 2: want a tool name, got a number`,
			`tools: item 3: empty name`,
			`tools: item 4: name has control characters`}},
		{"tools", `{"alow": ["a"], "deny": "x"}`, []string{
			`tools: unknown key "alow": want allow, deny, rename or pin`,
			`tools: deny: want an array of tool names, got a string`}},
		{"prompts", `{"pin": ["a"]}`, []string{`prompts: pin is for tools only: a prompt is never hidden by tool search`}},
		{"tools", `{"rename": ["a"]}`, []string{`tools: rename: want an object of original names to exported names, such as {"search_code": "gh_search_code"}, got an array`}},
		{"tools", `{"rename": {"a": "x", "b": "x", "c": "has space", "d": 1, "e*": "e", "f": ""}}`, []string{
			`tools: rename: "a" and "b" both become "x": an exported name names one tool`,
			`tools: rename: "c": "has space" is not a name every client accepts: use 1 to 64 of A-Z a-z 0-9 _ -`,
			`tools: rename: "d": want the exported name, a string, got a number`,
			`tools: rename: "e*": a rename names one tool, not a pattern`,
			`tools: rename: "f": "" is not a name every client accepts: use 1 to 64 of A-Z a-z 0-9 _ -`}},
		{"tools", `{"rename": {"a": "` + strings.Repeat("x", 65) + `"}}`, []string{
			`tools: rename: "a": "` + strings.Repeat("x", 65) + `" is not a name every client accepts: use 1 to 64 of A-Z a-z 0-9 _ -`}},
		{"tools", `{"allow": ["s*"], "deny": ["sd"], "rename": {"x": "y", "sd": "z"}, "pin": ["q", "sd", "t*"]}`, []string{
			`tools: rename: "sd" is left out by deny, so it is never exported`,
			`tools: rename: "x" is left out by allow, so it is never exported`,
			`tools: pin: "q" is left out by allow, so it cannot be pinned`,
			`tools: pin: "sd" is left out by deny, so it cannot be pinned`}},
		{"tools", `{"allow": ["a"]`, []string{`tools: unexpected end of JSON input`}},
	} {
		parse := Tools
		if tc.field == "prompts" {
			parse = Prompts
		}
		_, err := parse([]byte(tc.raw))
		if err == nil {
			t.Errorf("%s %s: no error, want %q", tc.field, tc.raw, tc.want)
			continue
		}
		if diff := cmp.Diff(tc.want, strings.Split(err.Error(), "\n")); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.field, tc.raw, diff)
		}
	}
}

func TestUnmatched(t *testing.T) {
	c, err := Tools([]byte(`{"allow": ["read_*", "get_fle", "write_file", "gone"], "rename": {"write_file": "put", "gone": "g"}, "pin": ["read_file", "list_*"]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Unmatched("tools", []string{"read_file", "write_file", "list_directory"})
	want := []string{
		`tools: allow "get_fle" matches no tool the server offers`,
		`tools: allow "gone" matches no tool the server offers`,
		`tools: rename "gone" matches no tool the server offers`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p, err := Prompts([]byte(`["summarise"]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Unmatched("prompts", nil); len(got) != 1 || got[0] != `prompts: allow "summarise" matches no prompt the server offers` {
		t.Errorf("prompts: %q", got)
	}
}

// A list of thousands of names that match nothing is one mistake: the
// first MaxUnmatched are named, one line counts the rest (a 100,000-name
// allow used to give 100,000 warnings, and took 49 s to ready while each
// was looked up in the last generation's list).
func TestUnmatchedCountsPastTheMost(t *testing.T) {
	names := make([]string, 1000)
	for i := range names {
		names[i] = fmt.Sprintf("%q", fmt.Sprintf("tool_%d", i))
	}
	c, err := Tools([]byte(`["read_file",` + strings.Join(names, ",") + `]`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Unmatched("tools", []string{"read_file"})
	if len(got) != MaxUnmatched+1 || got[0] != `tools: allow "tool_0" matches no tool the server offers` ||
		got[MaxUnmatched] != `tools: 980 more names in allow, rename or pin match no tool the server offers` {
		t.Errorf("%d warnings, first %q, last %q", len(got), got[0], got[len(got)-1])
	}
}

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		glob, name string
		want       bool
	}{
		{"a", "a", true}, {"a", "ab", false}, {"*", "", true}, {"*", "anything", true},
		{"a*", "a", true}, {"a*", "abc", true}, {"*c", "abc", true}, {"*c", "abcd", false},
		{"a*c", "ac", true}, {"a*c", "abcbc", true}, {"a*c", "abcb", false}, {"*b*", "abc", true},
		{"a**b", "ab", true}, {"a*b*c", "aXbYc", true}, {"a*b*c", "aXcYb", false},
		{"get_*_contents", "get_file_contents", true}, {"?", "a", false}, {"[a]", "a", false}, {"[a]", "[a]", true},
	} {
		if got := glob(tc.glob).match(tc.name); got != tc.want {
			t.Errorf("glob %q match %q = %v, want %v", tc.glob, tc.name, got, tc.want)
		}
	}
}
