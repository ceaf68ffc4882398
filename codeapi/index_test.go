package codeapi

import (
	"strings"
	"testing"
)

// TestIndexServerLine: INDEX.md counts one server as one, and a server
// whose instructions open with a Markdown heading (server-everything's
// "# Everything Server – …") gets the heading's text on its line, not a
// second "#" inside a "##" line.
func TestIndexServerLine(t *testing.T) {
	in := Input{URL: "http://127.0.0.1:50005/mcp", Servers: []Server{{
		Name:        "everything",
		Description: "# Everything Server – Server Instructions\n\nThis server tests clients.",
		Tools:       []Tool{{Name: "echo", Definition: []byte(`{"name":"echo","description":"Echoes back the input.","inputSchema":{"type":"object"}}`)}},
	}}}
	var index string
	for _, f := range Generate(in, "/opt/mcp-gateway/code") {
		if f.Path == "INDEX.md" {
			index = string(f.Data)
		}
	}
	for _, want := range []string{
		"1 tool of 1 server, each a function",
		"\n## everything: 1 tool. Everything Server – Server Instructions.\n",
	} {
		if !strings.Contains(index, want) {
			t.Errorf("INDEX.md lacks %q:\n%s", want, index)
		}
	}
}

func TestFirstLineOfAHeading(t *testing.T) {
	for in, want := range map[string]string{
		"# Title\nbody":  "Title",
		"### Title":      "Title",
		"#hashtag rules": "#hashtag rules",
		"#":              "",
		"C# client":      "C# client",
	} {
		if got := firstLine(in, 100); got != want {
			t.Errorf("firstLine(%q) = %q, want %q", in, got, want)
		}
	}
}
