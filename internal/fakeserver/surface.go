package fakeserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The server surface beyond tools (prompts, resources, templates,
// subscriptions, completion, logging/setLevel), in either mode:
//
//	MCP_FAKE_PROMPTS=<json>    the prompts/list "prompts" array; declares prompts
//	MCP_FAKE_RESOURCES=<json>  the resources/list "resources" array
//	MCP_FAKE_TEMPLATES=<json>  the resources/templates/list "resourceTemplates"
//	                           array; either declares resources (subscribe, listChanged)
//	MCP_FAKE_NO_SUBSCRIBE=1    declare resources without subscribe
//	MCP_FAKE_NO_COMPLETIONS=1  with prompts, do not declare completions (and answer
//	                           completion/complete all the same)
//	MCP_FAKE_PROMPTS2, MCP_FAKE_RESOURCES2, MCP_FAKE_TEMPLATES2
//	                           the lists after the tools changeprompts / changeresources
//	MCP_FAKE_FAIL_LIST=<method> answer that list method with -32603
//	MCP_FAKE_READ_RESULT=<json> resources/read's result verbatim (default:
//	                           {"contents":[{"uri":<uri>,"text":"<uri> from <name>"}]})
//
// prompts/get answers a message whose text is its params as received (of
// the prompt askme: the answer to the elicitation/create it sends first);
// completion/complete a value that is its params as received. Legacy mode
// records prompts/get, resources/read, completion/complete,
// resources/subscribe, resources/unsubscribe and logging/setLevel in
// MCP_FAKE_RECORD_FILE (modern mode records every request). Tools:
//
//	changeprompts             → prompts/list_changed (MCP_FAKE_PROMPTS2 from now on)
//	changeresources           → resources/list_changed (…RESOURCES2, …TEMPLATES2)
//	touch {"uri": u}          → notifications/resources/updated for u, if subscribed
//	                            (modern: on each listen watching u, tagged with it)
//	link {"uri": u}           → a resource_link to u
//	embed {"uri": u}          → an embedded resource u

// surfaceCaps are the capabilities the surface env declares, as members
// of a capabilities object (with a leading comma), "" for none.
func surfaceCaps() string {
	caps := ""
	if os.Getenv("MCP_FAKE_PROMPTS") != "" {
		caps += `,"prompts":{"listChanged":true}`
		if os.Getenv("MCP_FAKE_NO_COMPLETIONS") == "" {
			caps += `,"completions":{}`
		}
	}
	if os.Getenv("MCP_FAKE_RESOURCES") != "" || os.Getenv("MCP_FAKE_TEMPLATES") != "" {
		caps += fmt.Sprintf(`,"resources":{"subscribe":%t,"listChanged":true}`, os.Getenv("MCP_FAKE_NO_SUBSCRIBE") == "")
	}
	return caps
}

// surfaceMethod answers the surface's methods; it reports whether method
// is one.
func (s *server) surfaceMethod(id json.RawMessage, method string, params json.RawMessage) bool {
	switch method {
	case "prompts/list", "resources/list", "resources/templates/list":
		if os.Getenv("MCP_FAKE_FAIL_LIST") == method {
			s.replyErr(id, -32603, method+" failed on purpose", "")
			return true
		}
		s.reply(id, s.surfaceList(method))
		return true
	case "prompts/get", "resources/read", "completion/complete", "resources/subscribe", "resources/unsubscribe", "logging/setLevel":
	default:
		return false
	}
	if !s.modern {
		record(method, params)
	}
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	switch method {
	case "prompts/get":
		var g struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(params, &g)
		text := string(params)
		if g.Name == "askme" { // asks the client first; its answer is the text
			text = string(s.request("elicitation/create", `{"message":"context?","requestedSchema":{"type":"object","properties":{"context":{"type":"string"}}}}`))
		}
		s.reply(id, `{"messages":[{"role":"user","content":{"type":"text","text":`+quote(text)+`}}]}`)
	case "resources/read":
		if r := os.Getenv("MCP_FAKE_READ_RESULT"); r != "" {
			s.reply(id, r)
			return true
		}
		s.reply(id, `{"contents":[{"uri":`+quote(p.URI)+`,"mimeType":"text/plain","text":`+quote(p.URI+" from "+os.Getenv("MCP_FAKE_NAME"))+`}]}`)
	case "completion/complete":
		s.reply(id, `{"completion":{"values":[`+quote(string(params))+`],"total":1,"hasMore":false}}`)
	case "resources/subscribe", "resources/unsubscribe":
		s.mu.Lock()
		if s.subscribed == nil {
			s.subscribed = map[string]bool{}
		}
		s.subscribed[p.URI] = method == "resources/subscribe"
		s.mu.Unlock()
		s.reply(id, `{}`)
	case "logging/setLevel":
		s.reply(id, `{}`)
	}
	return true
}

// surfaceList renders one of the three lists from the environment.
func (s *server) surfaceList(method string) string {
	member, env := "prompts", "MCP_FAKE_PROMPTS"
	switch method {
	case "resources/list":
		member, env = "resources", "MCP_FAKE_RESOURCES"
	case "resources/templates/list":
		member, env = "resourceTemplates", "MCP_FAKE_TEMPLATES"
	}
	s.mu.Lock()
	changed := s.changed[env]
	s.mu.Unlock()
	if changed {
		env += "2"
	}
	list := os.Getenv(env)
	if list == "" {
		list = "[]"
	}
	return `{"` + member + `":` + list + `}`
}

// surfaceCall runs the surface's tools; it reports whether name is one.
func (s *server) surfaceCall(id json.RawMessage, name string, args json.RawMessage) bool {
	var a struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(args, &a)
	switch name {
	case "changeprompts":
		s.setChanged("MCP_FAKE_PROMPTS")
		s.notify("notifications/prompts/list_changed", s.listChangedParams())
		s.reply(id, text("changed prompts"))
	case "changeresources":
		s.setChanged("MCP_FAKE_RESOURCES", "MCP_FAKE_TEMPLATES")
		s.notify("notifications/resources/list_changed", s.listChangedParams())
		s.reply(id, text("changed resources"))
	case "touch":
		s.touch(a.URI)
		s.reply(id, text("touched"))
	case "link":
		s.reply(id, `{"content":[{"type":"resource_link","uri":`+quote(a.URI)+`,"name":"link"}]}`)
	case "embed":
		s.reply(id, `{"content":[{"type":"resource","resource":{"uri":`+quote(a.URI)+`,"text":"embedded"}}]}`)
	default:
		return false
	}
	return true
}

func (s *server) setChanged(envs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = map[string]bool{}
	}
	for _, e := range envs {
		s.changed[e] = true
	}
}

// touch sends notifications/resources/updated for uri to whoever is
// subscribed to it.
func (s *server) touch(uri string) {
	s.mu.Lock()
	subscribed := s.subscribed[uri]
	var listens []string
	for id, u := range s.resourceListens {
		if u == uri {
			listens = append(listens, id)
		}
	}
	s.mu.Unlock()
	if subscribed {
		s.notify("notifications/resources/updated", `{"uri":`+quote(uri)+`}`)
	}
	for _, id := range listens {
		s.notify("notifications/resources/updated", `{"_meta":{"io.modelcontextprotocol/subscriptionId":`+id+`},"uri":`+quote(uri)+`}`)
	}
}

// listenResources takes a modern subscriptions/listen whose filter names
// resourceSubscriptions: it watches each URI (one listen per URI is what
// the gateway sends, but any number is kept) and acknowledges them. It
// reports whether the filter named any.
func (s *server) listenResources(id json.RawMessage, params json.RawMessage) bool {
	var p struct {
		Notifications struct {
			URIs []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	_ = json.Unmarshal(params, &p)
	if len(p.Notifications.URIs) == 0 {
		return false
	}
	agreed := []string{}
	s.mu.Lock()
	if s.resourceListens == nil {
		s.resourceListens = map[string]string{}
	}
	for _, u := range p.Notifications.URIs {
		if os.Getenv("MCP_FAKE_NO_SUBSCRIBE") != "" {
			continue
		}
		s.resourceListens[string(id)] = u
		agreed = append(agreed, quote(u))
	}
	s.mu.Unlock()
	s.notify("notifications/subscriptions/acknowledged", `{"_meta":{"io.modelcontextprotocol/subscriptionId":`+string(id)+`},"notifications":{"resourceSubscriptions":[`+strings.Join(agreed, ",")+`]}}`)
	return true
}

// cancelListen drops a resource listen the client cancelled.
func (s *server) cancelListen(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	_ = json.Unmarshal(params, &p)
	s.mu.Lock()
	delete(s.resourceListens, string(p.RequestID))
	s.mu.Unlock()
}

func quote(v string) string {
	b, _ := json.Marshal(v)
	return string(b)
}
