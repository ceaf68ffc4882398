package adapters_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

// httpView is the part of an HTTP server's LaunchSpec the http adapter
// decides.
type httpView struct {
	Kind    string
	Argv    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	Secrets []string
}

func TestParseHTTPServer(t *testing.T) {
	tests := []struct {
		name  string
		doc   string
		want  httpView
		warns []string
	}{
		{"url only", `{"remote": {"url": "https://mcp.example.com/mcp"}}`,
			httpView{Kind: "http", URL: "https://mcp.example.com/mcp"}, nil},
		{"headers are secrets", `{"remote": {"url": "http://127.0.0.1:8080/mcp", "headers": {"Authorization": "Bearer hosted-key", "X-Team": "blue"}}}`,
			httpView{Kind: "http", URL: "http://127.0.0.1:8080/mcp",
				Headers: map[string]string{"Authorization": "Bearer hosted-key", "X-Team": "blue"},
				Secrets: []string{"Bearer hosted-key", "blue"}}, nil},
		{"runCmd starts it, envs are its environment", `{"local": {"url": "http://127.0.0.1:3001/mcp", "runCmd": "node server.js", "envs": {"PORT": "3001"}}}`,
			httpView{Kind: "http", Argv: []string{"/bin/sh", "-c", "node server.js"}, Env: map[string]string{"PORT": "3001"},
				URL: "http://127.0.0.1:3001/mcp", Secrets: []string{"3001"}}, nil},
		{"a catalog name with url is an HTTP server", `{"time": {"url": "https://time.example/mcp"}}`,
			httpView{Kind: "http", URL: "https://time.example/mcp"}, nil},
		{"url secrets: password and query values", `{"exa": {"url": "https://u:pw-secret@mcp.exa.ai/mcp?exaApiKey=k-123&x=1"}}`,
			httpView{Kind: "http", URL: "https://u:pw-secret@mcp.exa.ai/mcp?exaApiKey=k-123&x=1", Secrets: []string{"1", "k-123", "pw-secret"}}, nil},
		{"null headers", `{"remote": {"url": "http://h/mcp", "headers": null}}`,
			httpView{Kind: "http", URL: "http://h/mcp"}, nil},
		{"envs without runCmd are ignored", `{"remote": {"url": "http://h/mcp", "envs": {"A": "b"}}}`,
			httpView{Kind: "http", URL: "http://h/mcp", Secrets: []string{"b"}}, []string{"envs are ignored without runCmd"}},
		{"unknown property", `{"remote": {"url": "http://h/mcp", "timeout": 3}}`,
			httpView{Kind: "http", URL: "http://h/mcp"}, []string{`unknown property "timeout" ignored`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			servers, warns, err := adapters.Parse([]byte(tc.doc), builtinList())
			if err != nil {
				t.Fatal(err)
			}
			if len(servers) != 1 {
				t.Fatalf("%d servers", len(servers))
			}
			s := servers[0].Spec
			got := httpView{s.Kind, s.Argv, s.Env, s.URL, s.Headers, s.Secrets}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if len(warns) != len(tc.warns) {
				t.Fatalf("warnings %q, want %d", warns, len(tc.warns))
			}
			for i, w := range tc.warns {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %q, want it to contain %q", warns[i], w)
				}
			}
		})
	}
}

func TestParseHTTPServerRejects(t *testing.T) {
	const secret = "s3cr3t-header-value"
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"ftp scheme", `{"r": {"url": "ftp://h/mcp"}}`, []string{`server "r"`, "url must start with http:// or https://", `"ftp:"`}},
		{"no scheme", `{"r": {"url": "h:8080/mcp"}}`, []string{`server "r"`, "http:// or https://"}},
		{"relative", `{"r": {"url": "/mcp"}}`, []string{`server "r"`, "http:// or https://"}},
		{"no host", `{"r": {"url": "http:///mcp"}}`, []string{`server "r"`, "url has no host"}},
		{"empty", `{"r": {"url": ""}}`, []string{`server "r"`, "url is empty"}},
		{"not a string", `{"r": {"url": 3}}`, []string{`server "r"`, "url: want a string, got a number"}},
		{"control character", `{"r": {"url": "http://h/m\ncp"}}`, []string{`server "r"`, "url has control characters"}},
		{"with installCmd", `{"r": {"url": "http://h/mcp", "runCmd": "x", "installCmd": "npm ci"}}`, []string{`server "r"`, "installCmd cannot be used with url"}},
		{"on a github key", `{"github/a/b": {"url": "http://h/mcp", "runCmd": "x"}}`, []string{`server "github/a/b"`, "url cannot be used on a github/<owner>/<repo> key"}},
		{"empty runCmd", `{"r": {"url": "http://h/mcp", "runCmd": " "}}`, []string{`server "r"`, "runCmd is empty"}},
		{"headers without url", `{"r": {"runCmd": "x", "headers": {"A": "b"}}}`, []string{`server "r"`, `headers are sent to an HTTP server: add "url"`}},
		{"headers not an object", `{"r": {"url": "http://h/mcp", "headers": ["A"]}}`, []string{`server "r"`, "headers: want an object", "got an array"}},
		{"header name with space", `{"r": {"url": "http://h/mcp", "headers": {"X Key": "` + secret + `"}}}`, []string{`server "r"`, `"X Key" is not a valid header name`}},
		{"header name with colon", `{"r": {"url": "http://h/mcp", "headers": {"X:Key": "` + secret + `"}}}`, []string{`"X:Key" is not a valid header name`}},
		{"empty header name", `{"r": {"url": "http://h/mcp", "headers": {"": "` + secret + `"}}}`, []string{`"" is not a valid header name`}},
		{"value with CR LF", `{"r": {"url": "http://h/mcp", "headers": {"X-Key": "` + secret + `\r\nX-Evil: 1"}}}`, []string{`server "r"`, "headers: X-Key: value has CR, LF"}},
		{"value with LF", `{"r": {"url": "http://h/mcp", "headers": {"X-Key": "a\n` + secret + `"}}}`, []string{"headers: X-Key: value has CR, LF"}},
		{"value not a string", `{"r": {"url": "http://h/mcp", "headers": {"X-Key": 12}}}`, []string{"headers: X-Key: value must be a string, got a number"}},
		{"value null", `{"r": {"url": "http://h/mcp", "headers": {"X-Key": null}}}`, []string{"headers: X-Key: value must be a string, got null"}},
		{"the gateway's session header", `{"r": {"url": "http://h/mcp", "headers": {"mcp-session-id": "` + secret + `"}}}`, []string{"headers: Mcp-Session-Id is set by the gateway itself"}},
		{"an Mcp-Param header", `{"r": {"url": "http://h/mcp", "headers": {"Mcp-Param-Region": "` + secret + `"}}}`, []string{"headers: Mcp-Param-Region is set by the gateway itself"}},
		{"content type", `{"r": {"url": "http://h/mcp", "headers": {"Content-Type": "text/plain"}}}`, []string{"Content-Type is set by the gateway itself"}},
		{"the same header twice", `{"r": {"url": "http://h/mcp", "headers": {"X-Key": "` + secret + `", "x-key": "` + secret + `"}}}`, []string{`"X-Key" and "x-key" are the same header`}},
		{"url with a key in the query, bad scheme", `{"r": {"url": "ws://h/mcp?key=` + secret + `"}}`, []string{`"ws:"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, warns, err := adapters.Parse([]byte(tc.doc), builtinList())
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q, want it to contain %q", msg, w)
				}
			}
			if line, ok := unnamedLine(msg); !ok {
				t.Errorf("error line %q names no key", line)
			}
			for _, s := range append(warns, msg) {
				if strings.Contains(s, secret) {
					t.Errorf("message shows a header value or url secret: %q", s)
				}
			}
		})
	}
}

func TestUnknownNameListsTheHTTPForm(t *testing.T) {
	_, _, err := adapters.Parse([]byte(`{"nope": {}}`), builtinList())
	if err == nil || !strings.Contains(err.Error(), `{"url": "https://…/mcp"`) {
		t.Errorf("error %v, want it to name the url form", err)
	}
}

func TestLaunchSpecEqualComparesTheEndpoint(t *testing.T) {
	a := adapters.LaunchSpec{Kind: "http", URL: "http://h/mcp", Headers: map[string]string{"K": "1"}}
	for _, b := range []adapters.LaunchSpec{
		{Kind: "http", URL: "http://h/other", Headers: map[string]string{"K": "1"}},
		{Kind: "http", URL: "http://h/mcp", Headers: map[string]string{"K": "2"}},
		{Kind: "http", URL: "http://h/mcp"},
	} {
		if a.Equal(b) {
			t.Errorf("%+v equals %+v", a, b)
		}
	}
	if !a.Equal(adapters.LaunchSpec{Kind: "http", URL: "http://h/mcp", Headers: map[string]string{"K": "1"}}) {
		t.Error("a spec differs from its copy")
	}
}
