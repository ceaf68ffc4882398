package toolsearch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Result returns search_tools' CallToolResult for hits (SPEC §4.10):
//
//	{"content":[{"type":"text","text":"<one line per tool>"}],
//	 "structuredContent":{"tools":[<each definition, byte for byte>]}}
//
// The text gives, best first, each tool's name, its server and the first
// line of its description, then how to call one; with no hits it says so
// and how to widen the search. The definitions are the bytes tools/list
// gives (SPEC §4.4), so that the agent sees the schema it will call.
func Result(q Query, hits []Hit) []byte {
	var text strings.Builder
	if len(hits) == 0 {
		switch {
		case q.Server != "":
			fmt.Fprintf(&text, "No tool of server %q matches %q. Try other words, or search without \"server\".", q.Server, q.Text)
		default:
			fmt.Fprintf(&text, "No tool matches %q. Try other words: what the tool does, or what it acts on.", q.Text)
		}
	}
	for i, h := range hits {
		var def struct {
			Description string `json:"description"`
		}
		_ = json.Unmarshal(h.Tool.Definition, &def)
		fmt.Fprintf(&text, "%d. %s (%s)", i+1, h.Tool.Name, h.Tool.Server)
		if line := firstLine(def.Description); line != "" {
			text.WriteString(": " + line)
		}
		text.WriteByte('\n')
	}
	if len(hits) > 0 {
		text.WriteString(`Call one with call_tool {"name": "<name>", "arguments": {...}}, the arguments as its inputSchema in structuredContent says.`)
	}
	quoted := quote(text.String())
	var out bytes.Buffer
	out.Grow(len(quoted) + 96 + 256*len(hits))
	out.WriteString(`{"content":[{"type":"text","text":`)
	out.Write(quoted)
	out.WriteString(`}],"structuredContent":{"tools":[`)
	for i, h := range hits {
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(bytes.TrimSpace(h.Tool.Definition))
	}
	out.WriteString(`]}}`)
	return out.Bytes()
}

// quote is s as a JSON string, without encoding/json's escapes of <, >
// and &, which an agent would read as noise.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}
