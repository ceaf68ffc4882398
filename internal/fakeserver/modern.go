package fakeserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// modernVersion is the one revision the modern fake speaks.
const modernVersion = "2026-07-28"

// modernHandle answers what only a modern server answers, and rejects
// requests a modern server must reject (MCP 2026-07-28 basic/index
// "_meta": a missing required field is -32602; basic/versioning: an
// unsupported version is -32022). It records every request first. It
// reports whether the request is left to the common handler.
func (s *server) modernHandle(id json.RawMessage, method string, params json.RawMessage) bool {
	record(method, params)
	if method == "initialize" {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(params, &p)
		s.replyErr(id, -32022, "Unsupported protocol version", fmt.Sprintf(`{"supported":%s,"requested":%q}`, supported(), p.ProtocolVersion))
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	var version string
	caps := p.Meta["io.modelcontextprotocol/clientCapabilities"]
	if json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &version) != nil || len(caps) == 0 || caps[0] != '{' {
		s.replyErr(id, -32602, "Invalid params: missing required _meta field io.modelcontextprotocol/protocolVersion or clientCapabilities", "")
		return false
	}
	if version != modernVersion {
		s.replyErr(id, -32022, "Unsupported protocol version", fmt.Sprintf(`{"supported":[%q],"requested":%q}`, modernVersion, version))
		return false
	}
	switch method {
	case "server/discover":
		s.reply(id, `{"supportedVersions":["`+modernVersion+`"],"capabilities":{"tools":{"listChanged":true},"logging":{}`+surfaceCaps()+`},`+
			`"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake-modern","version":"2"`+instructions("description")+`}},"ttlMs":60000,"cacheScope":"public"}`)
	case "subscriptions/listen":
		if s.listenResources(id, params) { // surface.go
			return false
		}
		s.mu.Lock()
		s.listenID = id
		s.mu.Unlock()
		s.notify("notifications/subscriptions/acknowledged", `{"_meta":{"io.modelcontextprotocol/subscriptionId":`+string(id)+`},"notifications":{"toolsListChanged":true}}`)
	default:
		return true
	}
	return false
}

// supported is the version list the fake refuses initialize with:
// MCP_FAKE_MODERN_SUPPORTED (a JSON array), by default [modernVersion].
func supported() string {
	if v := os.Getenv("MCP_FAKE_MODERN_SUPPORTED"); v != "" {
		return v
	}
	return `["` + modernVersion + `"]`
}

// modernCall runs the tools only the modern fake has; it reports whether
// name is one.
func (s *server) modernCall(id json.RawMessage, name string, params json.RawMessage) bool {
	switch name {
	case "endlisten":
		s.endListen()
		s.reply(id, text("listen ended"))
	case "changeuntagged":
		s.notify("notifications/tools/list_changed", `{}`)
		s.reply(id, text("changed, untagged"))
	case "mrtr":
		s.mrtr(id, params)
	default:
		return false
	}
	return true
}

// endListen answers the open subscriptions/listen, which ends it (MCP
// 2026-07-28 basic/patterns/subscriptions "Graceful Closure").
func (s *server) endListen() {
	s.mu.Lock()
	id := s.listenID
	s.listenID = nil
	s.mu.Unlock()
	if id != nil {
		s.reply(id, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":`+string(id)+`}}`)
	}
}

func hasLogLevel(params json.RawMessage) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	_, ok := p.Meta["io.modelcontextprotocol/logLevel"]
	return ok
}

// mrtr asks for a name, round after round (MCP 2026-07-28 basic/patterns/
// mrtr). Its requestState is "<pid>|<round>|<names>": a retry that reaches
// another process, or carries no answer, is an error.
func (s *server) mrtr(id json.RawMessage, params json.RawMessage) {
	var p struct {
		Arguments struct {
			Rounds int `json:"rounds"`
		} `json:"arguments"`
		RequestState   *string `json:"requestState"`
		InputResponses map[string]struct {
			Action  string `json:"action"`
			Content struct {
				Name string `json:"name"`
			} `json:"content"`
		} `json:"inputResponses"`
	}
	_ = json.Unmarshal(params, &p)
	round, names := 0, ""
	if p.RequestState != nil {
		parts := strings.SplitN(*p.RequestState, "|", 3)
		if len(parts) != 3 || parts[0] != strconv.Itoa(os.Getpid()) {
			s.replyErr(id, -32602, "requestState was not issued by this process", "")
			return
		}
		ans, ok := p.InputResponses["ask"]
		if !ok || ans.Action != "accept" {
			s.replyErr(id, -32602, "inputResponses lacks an accepted answer to \"ask\"", "")
			return
		}
		round, _ = strconv.Atoi(parts[1])
		round++
		names = strings.TrimSpace(parts[2] + " " + ans.Content.Name)
	}
	if round >= p.Arguments.Rounds {
		s.reply(id, text("hello "+names))
		return
	}
	state, _ := json.Marshal(fmt.Sprintf("%d|%d|%s", os.Getpid(), round, names))
	s.reply(id, `{"resultType":"input_required","inputRequests":{"ask":{"method":"elicitation/create","params":{"mode":"form",`+
		`"message":"name #`+strconv.Itoa(round+1)+`?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},`+
		`"requestState":`+string(state)+`}`)
}
