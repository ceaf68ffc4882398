package modern

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// The fuzz target of the modern front's header rules (issue 15); the
// whole /mcp handler's is package aggregator's (FuzzHandler). `make fuzz`
// runs each for FUZZTIME.

// FuzzModernHeaders: the header rules never panic, and a request they
// accept carries matching Mcp-Method and, on tools/call, Mcp-Name.
func FuzzModernHeaders(f *testing.F) {
	f.Add("2026-07-28", "tools/call", "echo", "=?base64?ZWNobw==?=", "us", `{"name":"echo","arguments":{"r":"us"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`)
	f.Add("2026-07-28", "tools/list", "", "", "", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`)
	f.Add("", "x", "=?base64?!!?=", "\x00", "42.0", `{"_meta":1}`)
	specs := []paramHeader{{Name: "R", Path: []string{"r"}}, {Name: "N", Path: []string{"o", "n"}}}
	f.Fuzz(func(t *testing.T, version, method, name, param, param2, params string) {
		if !json.Valid([]byte(params)) || !strings.HasPrefix(strings.TrimSpace(params), "{") {
			return
		}
		r := httptest.NewRequest("POST", "/mcp", nil)
		for k, v := range map[string]string{"Mcp-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name, "Mcp-Param-R": param, "Mcp-Param-N": param2} {
			r.Header[k] = []string{v}
		}
		m := &wire.Message{Raw: []byte(params), ID: []byte("1"), Method: method, Params: []byte(params)}
		req, herr := validateModern(r, m, r.Header.Get("Mcp-Protocol-Version"), Versions)
		if herr != nil {
			if herr.Status != http.StatusBadRequest {
				t.Fatalf("status %d", herr.Status)
			}
			return
		}
		if req.version != version || !IsVersion(version) {
			t.Fatalf("accepted version %q (header %q)", req.version, version)
		}
		_ = checkParamHeaders(r, m.Params, specs)
	})
}
