package adapters_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/catalog"
)

// builtinList is the adapter list the daemon uses, with a fixed servers
// directory so GitHub specs are predictable.
func builtinList() []adapters.Adapter {
	return adapters.Builtin(catalog.Builtin(), adapters.Options{BaseURL: "https://github.com", ServersDir: "/tmp/x"})
}

// manyServers returns a config naming n local servers s00, s01, ….
func manyServers(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"s%02d": {"runCmd": "server %d"}`, i, i)
	}
	b.WriteString("}")
	return b.String()
}

// catalogNames are the built-in names an unknown-name error must list.
var catalogNames = []string{"arxiv", "duckduckgo", "fetch", "filesystem", "memory", "sequentialthinking", "time"}

// rejectCases is one row per validation rule of SPEC §5 (issue 5): the
// config must fail, and the message must contain every want substring
// (the key, and what is wrong). The fuzz target is seeded from it.
var rejectCases = []struct {
	name string
	doc  string
	want []string
}{
	// Not a JSON object (SPEC §5.1).
	{"array", `[]`, []string{"parse config", "want a JSON object", "got an array"}},
	{"array of objects", `[{"time": {}}]`, []string{"parse config", "got an array"}},
	{"string", `"time"`, []string{"parse config", "got a string"}},
	{"number", `3`, []string{"parse config", "got a number"}},
	{"boolean", `true`, []string{"parse config", "got a boolean"}},
	{"null", `null`, []string{"parse config", "got null"}},
	{"empty", ``, []string{"parse config: empty", "want a JSON object"}},
	{"whitespace only", " \n\t ", []string{"parse config: empty"}},
	{"not JSON", `time`, []string{"parse config", "invalid character"}},
	{"truncated after key", `{"time":`, []string{"parse config", "unexpected end of JSON input"}},
	{"truncated entry", `{"time": {}`, []string{"parse config", "unexpected end of JSON input"}},
	{"truncated string", `{"ti`, []string{"parse config", "unexpected end of JSON input"}},
	{"only a brace", `{`, []string{"parse config", "unexpected end of JSON input"}},
	{"trailing word", `{"time":{}} x`, []string{"parse config", "after top-level value"}},
	{"trailing object", `{"time":{}}{}`, []string{"parse config", "after top-level value"}},
	{"trailing brace", `{"time":{}}}`, []string{"parse config", "after top-level value"}},
	{"trailing bracket", `{"time":{}}]`, []string{"parse config", "after top-level value"}},
	{"trailing comma", `{"time":{},}`, []string{"parse config", "invalid character"}},
	{"single quotes", `{'time': {}}`, []string{"parse config", "invalid character"}},
	{"duplicate key", `{"time": {}, "time": null}`, []string{`server "time"`, "named twice"}},
	{"duplicate key escaped", `{"time": {}, "\u0074ime": {}}`, []string{`server "time"`, "named twice"}},

	// An entry that is neither an object nor null.
	{"entry number", `{"time": 3}`, []string{`server "time"`, "want an object (or null), got a number"}},
	{"entry array", `{"time": []}`, []string{`server "time"`, "want an object (or null), got an array"}},
	{"entry string", `{"time": "x"}`, []string{`server "time"`, "got a string"}},
	{"entry boolean", `{"time": false}`, []string{`server "time"`, "got a boolean"}},
	{"entry local number", `{"mine": 0}`, []string{`server "mine"`, "got a number"}},
	{"every bad entry named", `{"a": 1, "b": [], "time": {}}`, []string{`server "a"`, `server "b"`, "got a number", "got an array"}},

	// More than 64 servers.
	{"65 servers", manyServers(65), []string{"parse config", "65 servers", "at most 64"}},
	{"200 servers", manyServers(200), []string{"200 servers", "at most 64"}},

	// An empty key, or one with control characters.
	{"empty key", `{"": {}}`, []string{`server ""`, "name is empty"}},
	{"empty key with runCmd", `{"": {"runCmd": "x"}}`, []string{`server ""`, "name is empty"}},
	{"key with newline", `{"a\nb": {"runCmd": "x"}}`, []string{`server "a\nb"`, "control characters"}},
	{"key with tab", `{"a\tb": {"runCmd": "x"}}`, []string{`server "a\tb"`, "control characters"}},
	{"key with NUL", `{"a\u0000b": {"runCmd": "x"}}`, []string{`server "a\x00b"`, "control characters"}},
	{"key with DEL", `{"a\u007fb": {"runCmd": "x"}}`, []string{`server "a\x7fb"`, "control characters"}},
	{"key with C1 control", `{"a\u0085b": {"runCmd": "x"}}`, []string{`server "a\u0085b"`, "control characters"}},
	{"catalog name with newline", `{"time\n": {}}`, []string{`server "time\n"`, "control characters"}},
	{"github key with newline", `{"github/a/b\n": {"runCmd": "x"}}`, []string{`server "github/a/b\n"`, "control characters"}},

	// An unknown name: the message lists the catalog names and the two other forms.
	{"unknown name", `{"nope": {}}`, append([]string{`server "nope"`, "unknown server name", `"github/<owner>/<repo>"`, `{"runCmd": `}, catalogNames...)},
	{"unknown name null", `{"nope": null}`, append([]string{`server "nope"`, "unknown server name", "github/<owner>/<repo>", "runCmd"}, catalogNames...)},
	{"catalog name wrong case", `{"Time": {}}`, []string{`server "Time"`, "unknown server name", "time"}},
	{"shared field misspelt", `{"notes": {"runcmd": "x"}}`, []string{`server "notes"`, `unknown property "runcmd": did you mean "runCmd"?`}},
	{"local without runCmd", `{"mine": {"installCmd": "make"}}`, []string{`server "mine"`, "unknown server name", "runCmd"}},
	{"local with null runCmd", `{"mine": {"runCmd": null}}`, []string{`server "mine"`, "unknown server name", "runCmd"}},
	{"local with only envs", `{"mine": {"envs": {"A": "b"}}}`, []string{`server "mine"`, "unknown server name", "runCmd"}},

	// A github/ key of the wrong shape.
	{"github one part", `{"github/a": {"runCmd": "x"}}`, []string{`server "github/a"`, `key must have the form "github/<owner>/<repo>"`}},
	{"github no parts", `{"github/": {"runCmd": "x"}}`, []string{`server "github/"`, `"github/<owner>/<repo>"`}},
	{"github three parts", `{"github/a/b/c": {"runCmd": "x"}}`, []string{`server "github/a/b/c"`, `"github/<owner>/<repo>"`}},
	{"github trailing slash", `{"github/a/b/": {"runCmd": "x"}}`, []string{`server "github/a/b/"`, `"github/<owner>/<repo>"`}},
	{"github dotdot owner", `{"github/../x": {"runCmd": "x"}}`, []string{`server "github/../x"`, `owner ".."`, `not be "." or ".."`}},
	{"github dot owner", `{"github/./x": {"runCmd": "x"}}`, []string{`server "github/./x"`, `owner "."`}},
	{"github dotdot repo", `{"github/x/..": {"runCmd": "x"}}`, []string{`server "github/x/.."`, `repo ".."`}},
	{"github space", `{"github/a b/c": {"runCmd": "x"}}`, []string{`server "github/a b/c"`, `owner "a b"`, "[A-Za-z0-9_.-]"}},
	{"github empty owner", `{"github//c": {"runCmd": "x"}}`, []string{`server "github//c"`, `owner ""`}},
	{"github empty repo", `{"github/a/": {"runCmd": "x"}}`, []string{`server "github/a/"`, `repo ""`}},
	{"github colon", `{"github/a/b:c": {"runCmd": "x"}}`, []string{`server "github/a/b:c"`, `repo "b:c"`}},
	{"github backslash", `{"github/a\\b/c": {"runCmd": "x"}}`, []string{`owner "a\\b"`}},
	{"github unicode", `{"github/é/c": {"runCmd": "x"}}`, []string{`server "github/é/c"`, `owner "é"`}},

	// A GitHub or local entry without runCmd, or an empty or whitespace-only one.
	{"github without runCmd", `{"github/a/b": {}}`, []string{`server "github/a/b"`, "runCmd is required"}},
	{"github null entry", `{"github/a/b": null}`, []string{`server "github/a/b"`, "runCmd is required"}},
	{"github null runCmd", `{"github/a/b": {"runCmd": null, "installCmd": "make"}}`, []string{`server "github/a/b"`, "runCmd is required"}},
	{"github empty runCmd", `{"github/a/b": {"runCmd": ""}}`, []string{`server "github/a/b"`, "runCmd is empty"}},
	{"github blank runCmd", `{"github/a/b": {"runCmd": " \t\n "}}`, []string{`server "github/a/b"`, "runCmd is empty"}},
	{"local empty runCmd", `{"mine": {"runCmd": ""}}`, []string{`server "mine"`, "runCmd is empty"}},
	{"local blank runCmd", `{"mine": {"runCmd": "   "}}`, []string{`server "mine"`, "runCmd is empty"}},
	{"local runCmd with NUL", `{"mine": {"runCmd": "a\u0000b"}}`, []string{`server "mine"`, "runCmd has a NUL byte"}},
	{"github installCmd with NUL", `{"github/a/b": {"runCmd": "x", "installCmd": "a\u0000b"}}`, []string{`server "github/a/b"`, "installCmd has a NUL byte"}},

	// runCmd or installCmd that is not a string.
	{"runCmd number", `{"mine": {"runCmd": 3}}`, []string{`server "mine"`, "runCmd: want a string, got a number"}},
	{"runCmd array", `{"github/a/b": {"runCmd": ["node", "x.js"]}}`, []string{`server "github/a/b"`, "runCmd: want a string, got an array"}},
	{"runCmd object", `{"mine": {"runCmd": {}}}`, []string{`server "mine"`, "runCmd: want a string, got an object"}},
	{"runCmd boolean", `{"mine": {"runCmd": true}}`, []string{`server "mine"`, "runCmd: want a string, got a boolean"}},
	{"installCmd number", `{"github/a/b": {"runCmd": "x", "installCmd": 1}}`, []string{`server "github/a/b"`, "installCmd: want a string, got a number"}},
	{"installCmd array", `{"github/a/b": {"runCmd": "x", "installCmd": ["npm", "ci"]}}`, []string{`server "github/a/b"`, "installCmd: want a string, got an array"}},
	{"both not strings", `{"mine": {"runCmd": 1, "installCmd": false}}`, []string{`server "mine"`, "runCmd: want a string", "installCmd: want a string"}},

	// envs names and values (SPEC §5.5).
	{"envs name digit first", `{"mine": {"runCmd": "x", "envs": {"1A": "v"}}}`, []string{`server "mine"`, `envs: variable name "1A" must match [A-Za-z_][A-Za-z0-9_]*`}},
	{"envs name dash", `{"mine": {"runCmd": "x", "envs": {"A-B": "v"}}}`, []string{`server "mine"`, `variable name "A-B"`}},
	{"envs name empty", `{"mine": {"runCmd": "x", "envs": {"": "v"}}}`, []string{`server "mine"`, `variable name ""`}},
	{"envs name space", `{"mine": {"runCmd": "x", "envs": {"A B": "v"}}}`, []string{`server "mine"`, `variable name "A B"`}},
	{"envs name equals", `{"mine": {"runCmd": "x", "envs": {"A=B": "v"}}}`, []string{`variable name "A=B"`}},
	{"envs name unicode", `{"mine": {"runCmd": "x", "envs": {"É": "v"}}}`, []string{`variable name "É"`}},
	{"envs name on github", `{"github/a/b": {"runCmd": "x", "envs": {"1A": "v"}}}`, []string{`server "github/a/b"`, `variable name "1A"`}},
	{"envs name on catalog", `{"time": {"envs": {"A-B": "v"}}}`, []string{`server "time"`, `variable name "A-B"`}},
	{"envs value number", `{"mine": {"runCmd": "x", "envs": {"PORT": 8080}}}`, []string{`server "mine"`, "envs: PORT: value must be a string, got a number"}},
	{"envs value null", `{"mine": {"runCmd": "x", "envs": {"A": null}}}`, []string{`server "mine"`, "envs: A: value must be a string, got null"}},
	{"envs value object", `{"mine": {"runCmd": "x", "envs": {"A": {}}}}`, []string{`server "mine"`, "envs: A: value must be a string, got an object"}},
	{"envs value array", `{"mine": {"runCmd": "x", "envs": {"A": ["v"]}}}`, []string{"envs: A: value must be a string, got an array"}},
	{"envs value boolean", `{"mine": {"runCmd": "x", "envs": {"A": true}}}`, []string{"envs: A: value must be a string, got a boolean"}},
	{"envs value with NUL", `{"mine": {"runCmd": "x", "envs": {"A": "a\u0000b"}}}`, []string{"envs: A: value has a NUL byte"}},
	{"envs array", `{"mine": {"runCmd": "x", "envs": []}}`, []string{`server "mine"`, "envs: want an object of string values, got an array"}},
	{"envs string", `{"mine": {"runCmd": "x", "envs": "A=b"}}`, []string{`server "mine"`, "envs: want an object of string values, got a string"}},
	{"envs number", `{"mine": {"runCmd": "x", "envs": 1}}`, []string{"envs: want an object of string values, got a number"}},
	{"every envs problem named", `{"mine": {"runCmd": "x", "envs": {"1A": "v", "B": 2, "C": "ok"}}}`, []string{`variable name "1A"`, "envs: B: value must be a string"}},

	// A catalog property of the wrong type, or a missing required one (SPEC §5.2).
	{"filesystem paths string", `{"filesystem": {"paths": "/data"}}`, []string{`server "filesystem"`, `property "paths"`, "want array, got a string"}},
	{"filesystem paths number item", `{"filesystem": {"paths": ["/a", 1]}}`, []string{`server "filesystem"`, `property "paths"`, "non-string item"}},
	{"filesystem paths object", `{"filesystem": {"paths": {"a": "/a"}}}`, []string{`property "paths"`, "want array, got an object"}},
	{"arxiv storagePath number", `{"arxiv": {"storagePath": 3}}`, []string{`server "arxiv"`, `property "storagePath"`, "want string, got a number"}},
	{"arxiv storagePath array", `{"arxiv": {"storagePath": ["/p"]}}`, []string{`server "arxiv"`, `property "storagePath"`, "want string, got an array"}},
	{"filesystem without paths", `{"filesystem": {}}`, []string{`server "filesystem"`, `property "paths" is required`}},
	{"filesystem null", `{"filesystem": null}`, []string{`server "filesystem"`, `property "paths" is required`}},
	{"filesystem null paths", `{"filesystem": {"paths": null}}`, []string{`server "filesystem"`, `property "paths" is required`}},
	{"filesystem empty paths", `{"filesystem": {"paths": []}}`, []string{`server "filesystem"`, `property "paths" is required and must not be empty`}},
	{"filesystem misspelt paths", `{"filesystem": {"path": ["/a"]}}`, []string{`server "filesystem"`, `property "paths" is required`}},

	// tools and prompts, on every kind of entry (SPEC §4.9).
	{"tools string on a catalog entry", `{"time": {"tools": "get_*"}}`, []string{`server "time": tools: want an array of tool names or an object with allow, deny, rename and pin, got a string`}},
	{"tools unknown key on a command", `{"mine": {"runCmd": "x", "tools": {"alow": ["a"]}}}`, []string{`server "mine": tools: unknown key "alow": want allow, deny, rename or pin`}},
	{"tools two renames to one name on github", `{"github/a/b": {"runCmd": "x", "tools": {"rename": {"a": "x", "b": "x"}}}}`, []string{`server "github/a/b": tools: rename: "a" and "b" both become "x"`}},
	{"tools rename breaking the name rule on http", `{"web": {"url": "http://h/mcp", "tools": {"rename": {"a": "a.b"}}}}`, []string{`server "web": tools: rename: "a": "a.b" is not a name every client accepts`}},
	{"tools allow item not a string", `{"mine": {"runCmd": "x", "tools": ["a", null]}}`, []string{`server "mine": tools: item 2: want a tool name, got null`}},
	{"prompts pin", `{"mine": {"runCmd": "x", "prompts": {"pin": ["p"]}}}`, []string{`server "mine": prompts: pin is for tools only`}},
	{"tools and envs both named", `{"mine": {"runCmd": "x", "tools": 1, "envs": []}}`, []string{`server "mine": tools: want an array`, `server "mine": envs: want an object`}},

	// One error per bad entry, each naming its key; good entries do not hide them.
	{"good and bad", `{"time": {}, "github/a": {"runCmd": "x"}, "filesystem": {}}`, []string{`server "github/a"`, `server "filesystem"`}},
}

// acceptCases are configs that must resolve, with the exact specs (Prepare
// is compared by presence only) and warnings that contain the substrings.
var acceptCases = []struct {
	name  string
	doc   string
	want  []adapters.Server
	warns []string // each warning, in order, must contain this
}{
	{
		name: "catalog empty object",
		doc:  `{"time": {}}`,
		want: []adapters.Server{{Name: "time", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "mcp-server-time"},
			Install: [][]string{{"uv", "tool", "install", "mcp-server-time"}},
		}}},
	},
	{
		name: "catalog null",
		doc:  `{"time": null}`,
		want: []adapters.Server{{Name: "time", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "mcp-server-time"},
			Install: [][]string{{"uv", "tool", "install", "mcp-server-time"}},
		}}},
	},
	{
		name: "empty config",
		doc:  ` {} `,
		want: nil,
	},
	{
		name: "filesystem paths one argument each",
		doc:  `{"filesystem": {"paths": ["/a", "/b"]}}`,
		want: []adapters.Server{{Name: "filesystem", Spec: adapters.LaunchSpec{
			Kind:    "catalog",
			Argv:    []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/a", "/b"},
			Install: [][]string{{"npm", "exec", "--yes", "--package=@modelcontextprotocol/server-filesystem", "--", "true"}},
		}}},
	},
	{
		name: "filesystem path with spaces stays one argument",
		doc:  `{"filesystem": {"paths": ["/my data"]}}`,
		want: []adapters.Server{{Name: "filesystem", Spec: adapters.LaunchSpec{
			Kind:    "catalog",
			Argv:    []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "/my data"},
			Install: [][]string{{"npm", "exec", "--yes", "--package=@modelcontextprotocol/server-filesystem", "--", "true"}},
		}}},
	},
	{
		name: "arxiv without storagePath drops the group",
		doc:  `{"arxiv": {}}`,
		want: []adapters.Server{{Name: "arxiv", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "arxiv-mcp-server"},
			Install: [][]string{{"uv", "tool", "install", "arxiv-mcp-server"}},
		}}},
	},
	{
		name: "arxiv null storagePath drops the group",
		doc:  `{"arxiv": {"storagePath": null}}`,
		want: []adapters.Server{{Name: "arxiv", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "arxiv-mcp-server"},
			Install: [][]string{{"uv", "tool", "install", "arxiv-mcp-server"}},
		}}},
	},
	{
		name: "arxiv with storagePath keeps flag and value",
		doc:  `{"arxiv": {"storagePath": "/data/papers"}}`,
		want: []adapters.Server{{Name: "arxiv", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "arxiv-mcp-server", "--storage-path", "/data/papers"},
			Install: [][]string{{"uv", "tool", "install", "arxiv-mcp-server"}},
		}}},
	},
	{
		name: "local runCmd runs through the shell",
		doc:  `{"mine": {"runCmd": "python -m my_server --port 1 && echo 'x'"}}`,
		want: []adapters.Server{{Name: "mine", Spec: adapters.LaunchSpec{
			Kind: "command", Argv: []string{"/bin/sh", "-c", "python -m my_server --port 1 && echo 'x'"},
		}}},
	},
	{
		name: "local command named github",
		doc:  `{"github": {"runCmd": "gh-mcp"}}`,
		want: []adapters.Server{{Name: "github", Spec: adapters.LaunchSpec{
			Kind: "command", Argv: []string{"/bin/sh", "-c", "gh-mcp"},
		}}},
	},
	{
		name: "local envs in Env and Secrets",
		doc:  `{"mine": {"runCmd": "srv", "envs": {"API_KEY": "k1", "_X9": "k2", "EMPTY": ""}}}`,
		want: []adapters.Server{{Name: "mine", Spec: adapters.LaunchSpec{
			Kind: "command", Argv: []string{"/bin/sh", "-c", "srv"},
			Env:     map[string]string{"API_KEY": "k1", "_X9": "k2", "EMPTY": ""},
			Secrets: []string{"k1", "k2"},
		}}},
	},
	{
		name: "envs null",
		doc:  `{"mine": {"runCmd": "srv", "envs": null}}`,
		want: []adapters.Server{{Name: "mine", Spec: adapters.LaunchSpec{
			Kind: "command", Argv: []string{"/bin/sh", "-c", "srv"},
		}}},
	},
	{
		name: "each server gets only its own envs",
		doc:  `{"b": {"runCmd": "b", "envs": {"B": "vb"}}, "a": {"runCmd": "a", "envs": {"A": "va"}}}`,
		want: []adapters.Server{
			{Name: "a", Spec: adapters.LaunchSpec{Kind: "command", Argv: []string{"/bin/sh", "-c", "a"}, Env: map[string]string{"A": "va"}, Secrets: []string{"va"}}},
			{Name: "b", Spec: adapters.LaunchSpec{Kind: "command", Argv: []string{"/bin/sh", "-c", "b"}, Env: map[string]string{"B": "vb"}, Secrets: []string{"vb"}}},
		},
	},
	{
		name: "catalog envs in Env and Secrets",
		doc:  `{"time": {"envs": {"TZ": "Asia/Shanghai", "TOKEN": "Asia/Shanghai"}}}`,
		want: []adapters.Server{{Name: "time", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "mcp-server-time"},
			Env:     map[string]string{"TZ": "Asia/Shanghai", "TOKEN": "Asia/Shanghai"},
			Secrets: []string{"Asia/Shanghai"},
			Install: [][]string{{"uv", "tool", "install", "mcp-server-time"}},
		}}},
	},
	{
		name: "github server",
		doc:  `{"github/acme/weather-mcp": {"installCmd": "npm ci", "runCmd": "node dist/index.js", "envs": {"WEATHER_API_KEY": "wk"}}}`,
		want: []adapters.Server{{Name: "github/acme/weather-mcp", Spec: adapters.LaunchSpec{
			Kind: "github", Argv: []string{"/bin/sh", "-c", "node dist/index.js"},
			Dir:     "/tmp/x/github/acme/weather-mcp",
			Env:     map[string]string{"WEATHER_API_KEY": "wk"},
			Secrets: []string{"wk"},
			Install: [][]string{{"/bin/sh", "-c", "npm ci"}},
		}}},
	},
	{
		name: "github owner and repo with dots, dashes and underscores",
		doc:  `{"github/my.org_1/.repo-x": {"runCmd": "./run"}}`,
		want: []adapters.Server{{Name: "github/my.org_1/.repo-x", Spec: adapters.LaunchSpec{
			Kind: "github", Argv: []string{"/bin/sh", "-c", "./run"},
			Dir: "/tmp/x/github/my.org_1/.repo-x",
		}}},
	},
	{
		name: "github installCmd null or empty means none",
		doc:  `{"github/a/b": {"runCmd": "x", "installCmd": null}, "github/a/c": {"runCmd": "x", "installCmd": "  "}}`,
		want: []adapters.Server{
			{Name: "github/a/b", Spec: adapters.LaunchSpec{Kind: "github", Argv: []string{"/bin/sh", "-c", "x"}, Dir: "/tmp/x/github/a/b"}},
			{Name: "github/a/c", Spec: adapters.LaunchSpec{Kind: "github", Argv: []string{"/bin/sh", "-c", "x"}, Dir: "/tmp/x/github/a/c"}},
		},
	},
	{
		name:  "unknown catalog property is a warning",
		doc:   `{"time": {"timezone": "UTC"}}`,
		warns: []string{`server "time": unknown property "timezone" ignored`},
		want: []adapters.Server{{Name: "time", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "mcp-server-time"},
			Install: [][]string{{"uv", "tool", "install", "mcp-server-time"}},
		}}},
	},
	{
		name:  "unknown property next to a known one",
		doc:   `{"arxiv": {"storagePath": "/p", "storage_path": "/q"}}`,
		warns: []string{`server "arxiv": unknown property "storage_path" ignored (known: storagePath)`},
		want: []adapters.Server{{Name: "arxiv", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "arxiv-mcp-server", "--storage-path", "/p"},
			Install: [][]string{{"uv", "tool", "install", "arxiv-mcp-server"}},
		}}},
	},
	{
		name:  "runCmd on a catalog entry is a warning",
		doc:   `{"time": {"runCmd": "other"}}`,
		warns: []string{`server "time": runCmd/installCmd are ignored`},
		want: []adapters.Server{{Name: "time", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"uvx", "mcp-server-time"},
			Install: [][]string{{"uv", "tool", "install", "mcp-server-time"}},
		}}},
	},
	{
		name:  "unknown properties on local and github entries are warnings",
		doc:   `{"mine": {"runCmd": "x", "port": 1, "installCmd": "make"}, "github/a/b": {"runCmd": "x", "cwd": "/"}}`,
		warns: []string{`server "github/a/b": unknown property "cwd" ignored`, `server "mine": unknown property "port" ignored`, `server "mine": installCmd is only used by github`},
		want: []adapters.Server{
			{Name: "github/a/b", Spec: adapters.LaunchSpec{Kind: "github", Argv: []string{"/bin/sh", "-c", "x"}, Dir: "/tmp/x/github/a/b"}},
			{Name: "mine", Spec: adapters.LaunchSpec{Kind: "command", Argv: []string{"/bin/sh", "-c", "x"}}},
		},
	},
	{
		name: "sorted by key",
		doc:  `{"zeta": {"runCmd": "z"}, "time": {}, "Alpha": {"runCmd": "A"}, "alpha": {"runCmd": "a"}}`,
		want: []adapters.Server{
			{Name: "Alpha", Spec: adapters.LaunchSpec{Kind: "command", Argv: []string{"/bin/sh", "-c", "A"}}},
			{Name: "alpha", Spec: adapters.LaunchSpec{Kind: "command", Argv: []string{"/bin/sh", "-c", "a"}}},
			{Name: "time", Spec: adapters.LaunchSpec{Kind: "catalog", Argv: []string{"uvx", "mcp-server-time"}, Install: [][]string{{"uv", "tool", "install", "mcp-server-time"}}}},
			{Name: "zeta", Spec: adapters.LaunchSpec{Kind: "command", Argv: []string{"/bin/sh", "-c", "z"}}},
		},
	},
	{
		name: "unicode key and surrounding whitespace",
		doc:  "\n\t {\"天气\": {\"runCmd\": \"srv\"}} \n",
		want: []adapters.Server{{Name: "天气", Spec: adapters.LaunchSpec{Kind: "command", Argv: []string{"/bin/sh", "-c", "srv"}}}},
	},
}

func TestParseRejects(t *testing.T) {
	for _, tc := range rejectCases {
		t.Run(tc.name, func(t *testing.T) {
			servers, _, err := adapters.Parse([]byte(tc.doc), builtinList())
			if err == nil {
				t.Fatalf("Parse(%q) = %d servers, nil error; want an error", tc.doc, len(servers))
			}
			if servers != nil {
				t.Errorf("Parse(%q) returned %d servers along with the error", tc.doc, len(servers))
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("Parse(%q) error = %q\nwant it to contain %q", tc.doc, msg, w)
				}
			}
			if line, ok := unnamedLine(msg); !ok {
				t.Errorf("Parse(%q) error line %q names no key", tc.doc, line)
			}
		})
	}
}

// unnamedLine returns the first line of an error message that neither names
// a server nor is about the document as a whole.
func unnamedLine(msg string) (string, bool) {
	for line := range strings.SplitSeq(msg, "\n") {
		if !strings.HasPrefix(line, `server "`) && !strings.HasPrefix(line, "parse config: ") {
			return line, false
		}
	}
	return "", true
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range acceptCases {
		t.Run(tc.name, func(t *testing.T) {
			got, warns, err := adapters.Parse([]byte(tc.doc), builtinList())
			if err != nil {
				t.Fatalf("Parse(%q) error: %v", tc.doc, err)
			}
			if diff := cmp.Diff(tc.want, got, specOpts); diff != "" {
				t.Errorf("Parse(%q) servers (-want +got):\n%s", tc.doc, diff)
			}
			if len(warns) != len(tc.warns) {
				t.Fatalf("Parse(%q) warnings = %q, want %d", tc.doc, warns, len(tc.warns))
			}
			for i, w := range tc.warns {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %d = %q, want it to contain %q", i, warns[i], w)
				}
			}
		})
	}
}

// specView is a LaunchSpec's data without Prepare. cmp would otherwise use
// LaunchSpec.Equal, which skips Secrets and Install; Prepare is checked by
// TestParseGitHubHasPrepare.
type specView struct {
	Kind    string
	Argv    []string
	Env     map[string]string
	Dir     string
	Secrets []string
	Install [][]string
}

// specOpts compares LaunchSpecs field by field, nil and empty alike.
var specOpts = cmp.Options{
	cmp.Transformer("view", func(s adapters.LaunchSpec) specView {
		return specView{s.Kind, s.Argv, s.Env, s.Dir, s.Secrets, s.Install}
	}),
	cmpopts.EquateEmpty(),
}

// A GitHub server prepares its clone; a catalog server whose package
// was not pulled checks that its registry can be reached (fromdisk.go);
// a local command prepares nothing.
// Every kind of entry takes tools and prompts, and its spec carries them
// (SPEC §4.9): the registry reads them from there, not the adapter.
func TestParseToolsEveryKind(t *testing.T) {
	choice := `"tools": {"deny": ["delete_*"], "rename": {"search": "find"}, "pin": ["search"]}, "prompts": ["summary"]`
	doc := `{"time": {` + choice + `}, "github/a/b": {"runCmd": "x", ` + choice + `}, "mine": {"runCmd": "x", ` + choice + `},
		"web": {"url": "https://h/mcp", ` + choice + `}}`
	servers, warns, err := adapters.Parse([]byte(doc), builtinList())
	if err != nil || len(warns) != 0 {
		t.Fatalf("Parse: %v, warnings %q", err, warns)
	}
	kinds := map[string]string{}
	for _, s := range servers {
		kinds[s.Name] = s.Spec.Kind
		for orig, want := range map[string]string{"search": "find", "read": "read", "delete_all": ""} {
			if got, kept := s.Spec.Tools.Export(orig); got != want || kept != (want != "") {
				t.Errorf("%s: tools Export(%q) = %q, %v; want %q", s.Name, orig, got, kept, want)
			}
		}
		if !s.Spec.Tools.Pinned("search") || s.Spec.Tools.Pinned("read") {
			t.Errorf("%s: pin not carried", s.Name)
		}
		if _, kept := s.Spec.Prompts.Export("summary"); !kept {
			t.Errorf("%s: prompt summary left out", s.Name)
		}
		if _, kept := s.Spec.Prompts.Export("other"); kept {
			t.Errorf("%s: prompt other kept", s.Name)
		}
	}
	want := map[string]string{"time": "catalog", "github/a/b": "github", "mine": "command", "web": "http"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	// Without the properties, the choice keeps all.
	servers, _, err = adapters.Parse([]byte(`{"mine": {"runCmd": "x", "tools": null}}`), builtinList())
	if err != nil || !servers[0].Spec.Tools.IsZero() || !servers[0].Spec.Prompts.IsZero() {
		t.Fatalf("null tools: %v, %+v", err, servers)
	}
}

func TestParseWhatHasPrepare(t *testing.T) {
	got, _, err := adapters.Parse([]byte(`{"github/a/b": {"runCmd": "x"}, "mine": {"runCmd": "y"}, "time": {}}`), builtinList())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range got {
		if has, want := s.Spec.Prepare != nil, s.Spec.Kind != "command"; has != want {
			t.Errorf("server %q (%s): Prepare set = %v, want %v", s.Name, s.Spec.Kind, has, want)
		}
	}
}

func TestParseMaxServers(t *testing.T) {
	got, _, err := adapters.Parse([]byte(manyServers(adapters.MaxServers)), builtinList())
	if err != nil {
		t.Fatalf("Parse(%d servers): %v", adapters.MaxServers, err)
	}
	if len(got) != adapters.MaxServers {
		t.Fatalf("got %d servers, want %d", len(got), adapters.MaxServers)
	}
	for i, s := range got {
		if want := fmt.Sprintf("s%02d", i); s.Name != want {
			t.Errorf("server %d = %q, want %q (sorted by key)", i, s.Name, want)
		}
	}
	if _, _, err := adapters.Parse([]byte(manyServers(adapters.MaxServers+1)), builtinList()); err == nil {
		t.Errorf("Parse(%d servers): no error", adapters.MaxServers+1)
	}
}

// secret is a distinctive envs value; it must never appear in an error or
// a warning (issue 5, "Secrets").
const secret = "s3cr3t-VALUE-4242-zz"

func TestParseNeverShowsEnvsValues(t *testing.T) {
	env := `"envs": {"API_KEY": "` + secret + `"}`
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"local without runCmd", `{"mine": {` + env + `}}`, []string{`server "mine"`, "unknown server name"}},
		{"github without runCmd", `{"github/a/b": {` + env + `}}`, []string{`server "github/a/b"`, "runCmd is required"}},
		{"github empty runCmd", `{"github/a/b": {"runCmd": " ", ` + env + `}}`, []string{"runCmd is empty"}},
		{"github bad key", `{"github/../x": {"runCmd": "x", ` + env + `}}`, []string{`owner ".."`}},
		{"runCmd not a string", `{"mine": {"runCmd": 3, ` + env + `}}`, []string{"runCmd: want a string"}},
		{"catalog missing property", `{"filesystem": {` + env + `}}`, []string{`property "paths" is required`}},
		{"catalog wrong type", `{"filesystem": {"paths": "` + secret + `x", ` + env + `}}`, []string{`property "paths"`}},
		{"good value, bad sibling name", `{"mine": {"runCmd": "x", "envs": {"GOOD": "` + secret + `", "1BAD": "v"}}}`, []string{`variable name "1BAD"`}},
		{"bad name, its own value", `{"mine": {"runCmd": "x", "envs": {"A-B": "` + secret + `"}}}`, []string{`variable name "A-B"`}},
		{"good value, bad sibling value", `{"mine": {"runCmd": "x", "envs": {"GOOD": "` + secret + `", "BAD": 3}}}`, []string{"envs: BAD: value must be a string"}},
		{"value with NUL", `{"mine": {"runCmd": "x", "envs": {"A": "` + secret + `\u0000"}}}`, []string{"envs: A: value has a NUL byte"}},
		{"number value", `{"mine": {"runCmd": "x", "envs": {"A": 987654321987654}}}`, []string{"envs: A: value must be a string, got a number"}},
		{"other entry bad", `{"mine": {"runCmd": "x", ` + env + `}, "other": 3}`, []string{`server "other"`}},
		{"duplicate key", `{"mine": {"runCmd": "x", ` + env + `}, "mine": {"runCmd": "y"}}`, []string{`server "mine"`, "named twice"}},
		{"too many servers", strings.Replace(manyServers(65), `{"runCmd": "server 0"}`, `{"runCmd": "x", `+env+`}`, 1), []string{"65 servers"}},
		{"truncated after value", `{"mine": {"runCmd": "x", ` + env, []string{"parse config"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, warns, err := adapters.Parse([]byte(tc.doc), builtinList())
			if err == nil {
				t.Fatalf("Parse(%q): no error", tc.doc)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error = %q, want it to contain %q", msg, w)
				}
			}
			for _, s := range append([]string{msg}, warns...) {
				if strings.Contains(s, secret) || strings.Contains(s, "987654321987654") {
					t.Errorf("message shows an envs value: %q", s)
				}
			}
		})
	}
}

func TestParseWarningsNeverShowEnvsValues(t *testing.T) {
	doc := `{"time": {"runCmd": "x", "extra": 1, "envs": {"K": "` + secret + `"}}, "mine": {"runCmd": "x", "installCmd": "y", "envs": {"K": "` + secret + `"}}}`
	servers, warns, err := adapters.Parse([]byte(doc), builtinList())
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) == 0 {
		t.Fatal("no warnings, want some")
	}
	for _, w := range warns {
		if strings.Contains(w, secret) {
			t.Errorf("warning shows an envs value: %q", w)
		}
	}
	for _, s := range servers {
		if diff := cmp.Diff([]string{secret}, s.Spec.Secrets); diff != "" {
			t.Errorf("server %q Secrets (-want +got):\n%s", s.Name, diff)
		}
	}
}

func TestParseDeterministicErrors(t *testing.T) {
	doc := `{"a": {"runCmd": 1, "installCmd": 2, "envs": {"1X": 1, "2Y": 2, "Z": 3}}, "b": 1, "github/a": {}, "filesystem": {"paths": [1]}}`
	_, _, first := adapters.Parse([]byte(doc), builtinList())
	if first == nil {
		t.Fatal("no error")
	}
	for range 20 {
		_, _, err := adapters.Parse([]byte(doc), builtinList())
		if err == nil || err.Error() != first.Error() {
			t.Fatalf("error changed between runs:\n%v\n---\n%v", first, err)
		}
	}
}

// TestParseCatalogOverride resolves a name from a template catalog: its
// env placeholders are filled from the entry's properties, and envs are
// added on top.
func TestParseCatalogOverride(t *testing.T) {
	cat, err := catalog.Parse([]byte(`{"weather": {
		"description": "Weather.",
		"command": [["weather-mcp"], ["--units", "{{units}}"]],
		"env": {"WEATHER_MODE": "{{mode}}", "FIXED": "1"},
		"properties": {"units": {"type": "string", "default": "metric"}, "mode": {"type": "string"}}}}`), catalog.SourceTemplate)
	if err != nil {
		t.Fatal(err)
	}
	list := adapters.Builtin(catalog.Builtin().Merge(cat), adapters.Options{BaseURL: "https://github.com", ServersDir: "/tmp/x"})
	got, warns, err := adapters.Parse([]byte(`{"weather": {"mode": "fast", "envs": {"API_KEY": "k"}}, "time": {}}`), list)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %q", warns)
	}
	want := []adapters.Server{
		{Name: "time", Spec: adapters.LaunchSpec{Kind: "catalog", Argv: []string{"uvx", "mcp-server-time"}, Install: [][]string{{"uv", "tool", "install", "mcp-server-time"}}}},
		{Name: "weather", Spec: adapters.LaunchSpec{
			Kind: "catalog", Argv: []string{"weather-mcp", "--units", "metric"},
			Env:     map[string]string{"WEATHER_MODE": "fast", "FIXED": "1", "API_KEY": "k"},
			Secrets: []string{"k"},
		}},
	}
	if diff := cmp.Diff(want, got, specOpts); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}

	_, _, err = adapters.Parse([]byte(`{"nope": {}}`), list)
	if err == nil || !strings.Contains(err.Error(), "weather") {
		t.Errorf("unknown-name error = %v, want it to list the template's %q too", err, "weather")
	}
}

// TestConfigResolveMatchesParse: resolving one key of a decoded config
// gives what Parse gives for it, warnings and errors included, so a
// catalog reload (SPEC §6.3) resolves as the start did.
func TestConfigResolveMatchesParse(t *testing.T) {
	doc := `{"time": {"nope": 1}, "local": {"runCmd": "srv", "envs": {"K": "v"}}, "bad": {"runCmd": 3}}`
	cfg, err := adapters.DecodeConfig([]byte(doc))
	if err != nil {
		t.Fatalf("DecodeConfig: %v", err)
	}
	if diff := cmp.Diff([]string{"bad", "local", "time"}, cfg.Keys()); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
	for _, key := range cfg.Keys() {
		one := fmt.Sprintf(`{%q: %s}`, key, cfg[key])
		wantServers, wantWarns, wantErr := adapters.Parse([]byte(one), builtinList())
		srv, warns, err := cfg.Resolve(key, builtinList())
		if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
			t.Errorf("Resolve(%q) error = %v, want %v", key, err, wantErr)
		}
		if diff := cmp.Diff(wantWarns, warns); diff != "" {
			t.Errorf("Resolve(%q) warnings (-want +got):\n%s", key, diff)
		}
		if err == nil && !srv.Spec.Equal(wantServers[0].Spec) {
			t.Errorf("Resolve(%q) = %+v, want %+v", key, srv, wantServers[0])
		}
	}
	if _, _, err := cfg.Resolve("absent", builtinList()); err == nil || !strings.Contains(err.Error(), `server "absent"`) {
		t.Errorf("Resolve(absent) error = %v, want one naming the key", err)
	}
}
