package registry

import (
	"encoding/json"
	"testing"
)

// FuzzURIs: what servers send for resources never panics the gateway: a
// resource template of any text and a URI to match against it (RFC 6570,
// a library's parser and matcher), and a result whose URIs a client's
// memory learns. `make fuzz` runs it for FUZZTIME.
func FuzzURIs(f *testing.F) {
	f.Add("test://template/{id}/data", "test://template/123/data", `{"content":[{"type":"resource_link","uri":"test://x"}]}`)
	f.Add("file:///{+path}{?q,r}", "file:///a/b?q=1", `{"messages":[{"content":{"type":"resource","resource":{"uri":"u"}}}]}`)
	f.Add("{", "", `{"contents":[{"uri":1},{"uri":"v"}]}`)
	f.Fuzz(func(t *testing.T, tmpl, uri, res string) {
		if ut, err := parseTemplate(tmpl); err == nil {
			_ = ut.matches(uri)
		}
		if json.Valid([]byte(res)) {
			var m Memory
			for _, method := range []string{"tools/call", "prompts/get", "resources/read"} {
				m.Learn(json.RawMessage(res), method, "s")
			}
			_ = m.Lookup(uri)
		}
	})
}
