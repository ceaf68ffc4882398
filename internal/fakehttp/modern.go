package fakehttp

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcp-gateway/mcp-gateway/internal/mcpheader"
)

const modernVersion = "2026-07-28"

// serveModern is Streamable HTTP of MCP 2026-07-28: no session, no GET,
// every request's headers checked against its body.
func (s *Server) serveModern(w http.ResponseWriter, r *http.Request, m message) {
	if r.Method != http.MethodPost {
		writeJSON(w, http.StatusMethodNotAllowed, errorResponse(nil, -32000, "Method not allowed.", ""))
		return
	}
	if m.Method == "initialize" {
		writeJSON(w, http.StatusBadRequest, errorResponse(m.ID, -32022, "Unsupported protocol version", `{"supported":["`+modernVersion+`"],"requested":"2025-11-25"}`))
		return
	}
	if !m.isRequest() {
		s.answered(m)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if e := s.checkHeaders(r, m); e != "" {
		writeJSON(w, http.StatusBadRequest, errorResponse(m.ID, -32020, "Header mismatch: "+e, ""))
		return
	}
	switch m.Method {
	case "server/discover":
		writeJSON(w, http.StatusOK, response(m.ID, `{"resultType":"complete","supportedVersions":["`+modernVersion+`"],"capabilities":{"tools":{"listChanged":true}},`+
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fakehttp-modern","version":"2"}},"ttlMs":60000,"cacheScope":"public"}`))
	case "subscriptions/listen":
		st := openStream(w)
		st.send(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(m.ID) + `}}}`)
		s.mu.Lock()
		s.listens[string(m.ID)] = st
		s.mu.Unlock()
		st.hold(r)
		s.mu.Lock()
		delete(s.listens, string(m.ID))
		s.mu.Unlock()
	case "tools/list", "ping":
		writeJSON(w, http.StatusOK, s.handle(r, m, nil, true))
	case "tools/call":
		if s.fault(w, r, m) {
			return
		}
		st := openStream(w)
		if res := s.handle(r, m, st.send, true); res != "" {
			st.send(res)
		}
	default:
		writeJSON(w, http.StatusNotFound, errorResponse(m.ID, -32601, "Method not found: "+m.Method, ""))
	}
}

// checkHeaders checks MCP-Protocol-Version, Mcp-Method, Mcp-Name and the
// Mcp-Param headers of the tool's x-mcp-header parameters against the
// body; it returns what is wrong, or "".
func (s *Server) checkHeaders(r *http.Request, m message) string {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	if v := r.Header.Get("Mcp-Protocol-Version"); v != modernVersion || p.Meta.Version != v {
		return fmt.Sprintf("MCP-Protocol-Version %q, _meta protocolVersion %q", v, p.Meta.Version)
	}
	if got := r.Header.Get("Mcp-Method"); got != m.Method {
		return fmt.Sprintf("Mcp-Method %q, method %q", got, m.Method)
	}
	if m.Method != "tools/call" {
		return ""
	}
	if got, _ := mcpheader.Decode(r.Header.Get("Mcp-Name"), true); got != p.Name {
		return fmt.Sprintf("Mcp-Name %q, name %q", got, p.Name)
	}
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	s.mu.Lock()
	_ = json.Unmarshal([]byte(s.tools), &tools)
	s.mu.Unlock()
	for _, t := range tools {
		if t.Name != p.Name {
			continue
		}
		for _, param := range mcpheader.Params(t.InputSchema) {
			v, ok := mcpheader.ValueAt(p.Arguments, param.Path)
			want, _ := mcpheader.Text(v)
			if got, _ := mcpheader.Decode(r.Header.Get("Mcp-Param-"+param.Name), true); ok && got != want {
				return fmt.Sprintf("Mcp-Param-%s %q, argument %q", param.Name, got, want)
			}
		}
	}
	return ""
}
