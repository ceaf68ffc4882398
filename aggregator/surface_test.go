package aggregator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The server surface beyond tools, merged (SPEC §3.8, §4.8): prompts,
// resources, templates, completion.

const (
	alphaPrompts   = `[{"name":"greet","title":"Greet","arguments":[{"name":"who","required":true}],"zz":{"n":9007199254740993}},{"name":"only.alpha"}]`
	betaPrompts    = `[{"name":"greet","description":"beta's"}]`
	alphaResources = `[{"uri":"test://shared","name":"shared","size":9007199254740993},{"uri":"test://alpha","name":"alpha"}]`
	betaResources  = `[{"uri":"test://shared","name":"shared too"},{"uri":"test://beta","name":"beta"}]`
	alphaTemplates = `[{"uriTemplate":"test://items/{id}","name":"items"}]`
	betaTemplates  = `[{"uriTemplate":"test://items/{id}","name":"beta items"},{"uriTemplate":"test://beta/{+path}","name":"beta files"}]`
)

func surfaceServers() map[string]map[string]string {
	tools := `[{"name":"link","inputSchema":{"type":"object"}},{"name":"embed","inputSchema":{"type":"object"}}]`
	return map[string]map[string]string{
		"alpha": {"MCP_FAKE_NAME": "alpha", "MCP_FAKE_TOOLS": tools, "MCP_FAKE_PROMPTS": alphaPrompts, "MCP_FAKE_RESOURCES": alphaResources, "MCP_FAKE_TEMPLATES": alphaTemplates},
		"beta":  {"MCP_FAKE_NAME": "beta", "MCP_FAKE_TOOLS": tools, "MCP_FAKE_PROMPTS": betaPrompts, "MCP_FAKE_RESOURCES": betaResources, "MCP_FAKE_TEMPLATES": betaTemplates},
	}
}

func TestPromptsMergedAndRenamed(t *testing.T) {
	srv, _ := startGateway(t, surfaceServers())
	c := newClient(t, srv)
	got := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`)))
	// alpha's as sent (keys, order, the big number); beta's greet renamed.
	want := `{"prompts":[` + alphaPrompts[1:len(alphaPrompts)-1] + `,{"name":"beta_greet","description":"beta's"}]}`
	want = strings.Replace(want, `{"name":"only.alpha"}`, `{"name":"only_alpha"}`, 1)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("prompts/list (-want +got):\n%s", diff)
	}
	// Each name reaches its server under the original name, params as sent.
	for name, wantText := range map[string]string{
		"greet":      `{"name":"greet","arguments":{"who":"Ada"},"_meta":{"k":1.50}}`,
		"beta_greet": `{"name":"greet","arguments":{"who":"Ada"},"_meta":{"k":1.50}}`,
		"only_alpha": `{"name":"only.alpha","arguments":{"who":"Ada"},"_meta":{"k":1.50}}`,
	} {
		res := result(t, c.rpc(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":%q,"arguments":{"who":"Ada"},"_meta":{"k":1.50}}}`, name)))
		var r struct {
			Messages []struct {
				Content struct{ Text string } `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(res, &r); err != nil || len(r.Messages) != 1 || r.Messages[0].Content.Text != wantText {
			t.Errorf("prompts/get %s: upstream saw %s, want %s", name, res, wantText)
		}
	}
	e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"nope"}}`))
	if string(e["code"]) != "-32602" || !strings.Contains(string(e["message"]), "nope") {
		t.Errorf("unknown prompt: %v", e)
	}
}

func TestResourcesAndTemplatesMerged(t *testing.T) {
	srv, gw := startGateway(t, surfaceServers())
	c := newClient(t, srv)
	got := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)))
	want := `{"resources":[{"uri":"test://shared","name":"shared","size":9007199254740993},{"uri":"test://alpha","name":"alpha"},{"uri":"test://beta","name":"beta"}]}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources/list (-want +got):\n%s", diff)
	}
	got = string(result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"resources/templates/list","params":{}}`)))
	want = `{"resourceTemplates":[{"uriTemplate":"test://items/{id}","name":"items"},{"uriTemplate":"test://beta/{+path}","name":"beta files"}]}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources/templates/list (-want +got):\n%s", diff)
	}
	log := gatewayLog(gw)
	for _, line := range []string{`msg="resource listed by two servers; the first in server order serves it" resource=test://shared server=alpha also=beta`,
		`msg="resource template listed by two servers; the first in server order serves it" "resource template"=test://items/{id} server=alpha also=beta`} {
		if strings.Count(log, line) != 1 {
			t.Errorf("the log has %d times %q, want once:\n%s", strings.Count(log, line), line, log)
		}
	}
	if h := gw.Health(); h.Prompts != 3 || h.Resources != 3 || h.Templates != 2 || h.Servers[1].Resources != 2 || h.Servers[1].Templates != 2 {
		t.Errorf("health counts: %+v", h)
	}
}

// readFrom reads uri and returns the text, which names the server that
// served it, or the error.
func readFrom(t *testing.T, c *rawClient, uri string) (string, map[string]json.RawMessage) {
	t.Helper()
	msg := c.rpc(`{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":` + string(mustQuote(uri)) + `}}`)
	var m struct {
		Result struct {
			Contents []struct{ URI, Text string } `json:"contents"`
		} `json:"result"`
		Error map[string]json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatalf("read %s: %s", uri, msg)
	}
	if m.Error != nil {
		return "", m.Error
	}
	if len(m.Result.Contents) != 1 || m.Result.Contents[0].URI != uri {
		t.Fatalf("read %s: %s", uri, msg)
	}
	return m.Result.Contents[0].Text, nil
}

func TestResourcesReadIsRoutedByURI(t *testing.T) {
	srv, _ := startGateway(t, surfaceServers())
	c, other := newClient(t, srv), newClient(t, srv)
	for uri, want := range map[string]string{
		"test://shared":       "test://shared from alpha",  // listed by both: the first
		"test://beta":         "test://beta from beta",     // listed
		"test://items/7":      "test://items/7 from alpha", // both templates: the first
		"test://beta/a/b?c=d": "test://beta/a/b?c=d from beta",
	} {
		if got, e := readFrom(t, c, uri); got != want {
			t.Errorf("read %s = %q %v, want %q", uri, got, e, want)
		}
	}
	// A URI beta's result carried to c goes back to beta, for c alone;
	// so does one that matches alpha's template (a result is more
	// particular than a pattern), but not a listed one.
	for _, tool := range []string{"link", "embed"} {
		uri := "test://only-beta-knows/" + tool
		c.rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"beta_` + tool + `","arguments":{"uri":"` + uri + `"}}}`)
		if got, e := readFrom(t, c, uri); got != uri+" from beta" {
			t.Errorf("read %s after beta's %s = %q %v", uri, tool, got, e)
		}
		if _, e := readFrom(t, other, uri); string(e["code"]) != "-32602" {
			t.Errorf("another session read %s: %v, want -32602", uri, e)
		}
	}
	c.rpc(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"beta_link","arguments":{"uri":"test://items/8"}}}`)
	c.rpc(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"beta_link","arguments":{"uri":"test://alpha"}}}`)
	if got, _ := readFrom(t, c, "test://items/8"); got != "test://items/8 from beta" {
		t.Errorf("read test://items/8 after beta's link = %q, want beta's", got)
	}
	if got, _ := readFrom(t, c, "test://alpha"); got != "test://alpha from alpha" {
		t.Errorf("read test://alpha after beta's link = %q, want alpha's (listed)", got)
	}
	_, e := readFrom(t, c, "test://nowhere")
	if string(e["code"]) != "-32602" || string(e["data"]) != `{"uri":"test://nowhere"}` || !strings.Contains(string(e["message"]), "test://nowhere") {
		t.Errorf("unroutable URI: %v", e)
	}
}

func TestCompletionIsRoutedByRef(t *testing.T) {
	srv, _ := startGateway(t, surfaceServers())
	c := newClient(t, srv)
	for _, tc := range []struct{ ref, upstream string }{
		{`{"type":"ref/prompt","name":"beta_greet"}`, `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"A"}}`},
		{`{"type":"ref/prompt","name":"greet"}`, `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"who","value":"A"}}`},
		{`{"type":"ref/resource","uri":"test://beta/{+path}"}`, `{"ref":{"type":"ref/resource","uri":"test://beta/{+path}"},"argument":{"name":"who","value":"A"}}`},
	} {
		res := result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":`+tc.ref+`,"argument":{"name":"who","value":"A"}}}`))
		var r struct {
			Completion struct{ Values []string } `json:"completion"`
		}
		if json.Unmarshal(res, &r) != nil || len(r.Completion.Values) != 1 || r.Completion.Values[0] != tc.upstream {
			t.Errorf("complete %s: upstream saw %s, want %s", tc.ref, res, tc.upstream)
		}
	}
	for _, ref := range []string{`{"type":"ref/prompt","name":"nope"}`, `{"type":"ref/resource","uri":"x://{y}"}`, `{"type":"ref/other"}`} {
		if e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"completion/complete","params":{"ref":`+ref+`,"argument":{"name":"a","value":""}}}`)); string(e["code"]) != "-32602" {
			t.Errorf("complete %s: %v, want -32602", ref, e)
		}
	}
}

func TestCapabilitiesFollowTheServers(t *testing.T) {
	caps := func(servers map[string]map[string]string) string {
		srv, _ := startGateway(t, servers)
		c := &rawClient{t: t, url: srv.URL + "/mcp"}
		var r struct {
			Result struct{ Capabilities json.RawMessage } `json:"result"`
		}
		_ = json.Unmarshal(c.rpc(initBody("2025-11-25")), &r)
		return string(r.Result.Capabilities)
	}
	if got := caps(map[string]map[string]string{"s": nil}); strings.Contains(got, "prompts") || strings.Contains(got, "resources") || strings.Contains(got, "completions") {
		t.Errorf("a tools-only server behind: capabilities %s", got)
	}
	got := caps(surfaceServers())
	for _, want := range []string{`"prompts":{"listChanged":true}`, `"resources":{"listChanged":true,"subscribe":true}`, `"completions":{}`, `"tools":{"listChanged":true}`} {
		if !strings.Contains(got, want) {
			t.Errorf("capabilities %s lack %s", got, want)
		}
	}
}

// A method whose capability no server offers is -32601 in both eras.
func TestSurfaceNoServerOffersIsMethodNotFound(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	for _, method := range []string{"prompts/list", "resources/read", "resources/subscribe", "completion/complete"} {
		if e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{}}`)); string(e["code"]) != "-32601" {
			t.Errorf("legacy %s: %v, want -32601", method, e)
		}
	}
	resp, b := send(t, "POST", srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"prompts/list","params":{`+modernMetaJSON+`}}`, modernHeaders("prompts/list", ""))
	wantRPCError(t, "modern prompts/list", resp, b, 404, -32601)
}

// A result's URIs are remembered only from a server that offers
// resources: one that does not could not be read back from, and its
// calls are not scanned.
func TestURIsOfAToolsOnlyServerAreNotRemembered(t *testing.T) {
	tools := `[{"name":"link","inputSchema":{"type":"object"}}]`
	srv, _ := startGateway(t, map[string]map[string]string{
		"plain": {"MCP_FAKE_TOOLS": tools},
		"res":   {"MCP_FAKE_NAME": "res", "MCP_FAKE_TOOLS": tools, "MCP_FAKE_RESOURCES": `[]`},
	})
	c := newClient(t, srv)
	c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"link","arguments":{"uri":"test://from-plain"}}}`)
	c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"res_link","arguments":{"uri":"test://from-res"}}}`)
	if _, e := readFrom(t, c, "test://from-plain"); string(e["code"]) != "-32602" {
		t.Errorf("a URI from a tools-only server's result: %v, want -32602", e)
	}
	if got, e := readFrom(t, c, "test://from-res"); got != "test://from-res from res" {
		t.Errorf("a URI from res's result: %q %v", got, e)
	}
}
