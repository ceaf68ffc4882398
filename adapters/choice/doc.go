// Package choice owns an entry's choice of tools and prompts (SPEC §4.9):
// the "tools" and "prompts" properties every kind of entry may carry, their
// validation, and the rule that turns one of the server's original names
// into the name it is exported under, or leaves it out.
//
// The forms, for "tools" (and the same for "prompts", over prompt names):
//
//	"tools": ["get_file_contents", "search_*"]
//	"tools": {"allow": ["*"], "deny": ["delete_*"],
//	          "rename": {"search_code": "gh_search_code"},
//	          "pin": ["get_file_contents"]}
//
// An array keeps only the names it matches, as allow does. allow and deny
// take exact names or globs whose only wildcard is `*` (any run of
// characters, none included), always on the server's original names; a
// missing allow keeps every name, deny wins over allow. rename gives an
// original name (exact) its exported name, which must meet SPEC §4.2's
// rule `^[A-Za-z0-9_-]{1,64}$`; two renames to one name are an error. A
// renamed name that meets another server's name is resolved by SPEC §4.1
// like any name: the registry does that, not this package. pin (tools
// only, SPEC §4.10) names the tools listed beside search_tools and
// call_tool in search mode; a pinned tool must also be kept.
//
// Names the server does not offer are not errors here (servers change
// their lists): Unmatched reports them once the server's list is known,
// for the warning SPEC §4.9 asks for.
package choice
