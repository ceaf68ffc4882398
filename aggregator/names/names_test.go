package names

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAssign(t *testing.T) {
	long := strings.Repeat("t", 70)
	names, dropped := Assign(
		[]string{"a", "b", "github/acme/x", "z"},
		map[string][]string{
			"a":             {"echo", "fs.read", long},
			"b":             {"echo", "echo"},
			"github/acme/x": {"fs.read", "fs_read"},
			"z":             {"a_echo"},
		})
	get := func(s, tl string) string { return names[Ref{s, tl}] }
	if diff := cmp.Diff([]Ref{{"b", "echo"}}, dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ server, tool, want string }{
		{"a", "echo", "echo"},
		{"a", "fs.read", "fs_read"},
		{"b", "echo", "b_echo"},
		{"github/acme/x", "fs.read", "github_acme_x_fs_read"},
		{"github/acme/x", "fs_read", "github_acme_x_fs_read_"},
		{"z", "a_echo", "a_echo"},
	} {
		got := get(tc.server, tc.tool)
		if tc.want == "github_acme_x_fs_read_" {
			if !strings.HasPrefix(got, tc.want) || len(got) != len(tc.want)+8 {
				t.Errorf("%s/%s = %q, want %s<8 hex>", tc.server, tc.tool, got, tc.want)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s/%s = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	l := get("a", long)
	if len(l) != MaxNameLen {
		t.Errorf("long name %q has %d characters, want %d", l, len(l), MaxNameLen)
	}
	for ref, n := range names {
		if n == "" || len(n) > MaxNameLen || strings.Trim(Sanitize(n), "") != n {
			t.Errorf("%v exported as invalid %q", ref, n)
		}
	}
	again, _ := Assign([]string{"a", "b", "github/acme/x", "z"}, map[string][]string{
		"a": {"echo", "fs.read", long}, "b": {"echo", "echo"}, "github/acme/x": {"fs.read", "fs_read"}, "z": {"a_echo"},
	})
	if diff := cmp.Diff(names, again); diff != "" {
		t.Errorf("not deterministic (-first +second):\n%s", diff)
	}
}

// TestAssignReserved: a reserved name is nobody's, so a server's tool of
// that name is exported prefixed, and the other tools as before.
func TestAssignReserved(t *testing.T) {
	got, dropped := AssignReserved([]string{"a", "b"},
		map[string][]string{"a": {"search_tools", "echo"}, "b": {"call_tool"}},
		[]string{"search_tools", "call_tool"})
	want := map[Ref]string{{"a", "search_tools"}: "a_search_tools", {"a", "echo"}: "echo", {"b", "call_tool"}: "b_call_tool"}
	if diff := cmp.Diff(want, got); diff != "" || dropped != nil {
		t.Errorf("names (-want +got):\n%s\ndropped: %v", diff, dropped)
	}
}
