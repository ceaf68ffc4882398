package aggregator

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"
)

// Golden transcripts of the relay (issue 21; STYLE §8): for each exchange,
// the bytes a client sends and gets back, and the bytes each server gets
// and sends, in the order they crossed the wire. The relay's job is to
// change nothing but names, so a transcript is where a change to a byte
// shows. Refresh them after an intended change with
//
//	go test ./aggregator -run TestTranscripts -update
//
// and read the diff. Values that differ between runs (session and task
// ids, sealed requestStates, times) are replaced by placeholders.

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/transcripts")

// A transcriptCase is one exchange: the fake servers behind the gateway
// (name → environment) and what the client does.
type transcriptCase struct {
	name    string
	comment string
	servers map[string]map[string]string
	run     func(tr *transcriber)
}

var transcriptCases = []transcriptCase{{
	name:    "legacy-call",
	comment: "A legacy session's tools/call: arguments, _meta and an unknown member reach the server byte for byte, and its result comes back so.",
	servers: map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"raw","inputSchema":{"type":"object"}}]`,
		"MCP_FAKE_RESULT": `{"content":[{"type":"text","text":"x"}],"structuredContent":{"big":9007199254740993,"z":1,"a":2}}`}},
	run: func(tr *transcriber) {
		tr.initialize()
		tr.legacy(`{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"raw","arguments":{"n":9007199254740993,"b":[1,2]},"_meta":{"trace":"x"},"unknown":true}}`)
	},
}, {
	name:    "renamed-tool",
	comment: "Two servers offer echo: the second's is exported as b_echo, and the call reaches b under the tool's own name.",
	servers: map[string]map[string]string{"a": nil, "b": {"MCP_FAKE_NAME": "b"}},
	run: func(tr *transcriber) {
		tr.initialize()
		tr.legacy(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		tr.legacy(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"b_echo","arguments":{"text":"hi"}}}`)
	},
}, {
	name:    "modern-call",
	comment: "A modern (2026-07-28) tools/call to a legacy server: no session; the result gains resultType.",
	servers: map[string]map[string]string{"s": nil},
	run: func(tr *transcriber) {
		tr.modern(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, "tools/call", "echo")
	},
}, {
	name:    "modern-server",
	comment: "A legacy session's call to a modern server: the request carries request _meta (protocol version, the session's capabilities and clientInfo), every other byte kept.",
	servers: map[string]map[string]string{"m": {"MCP_FAKE_MODERN": "1"}},
	run: func(tr *transcriber) {
		tr.initialize()
		tr.legacy(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"k":1}}}`)
	},
}, {
	name:    "progress",
	comment: "A call with a progressToken: the server sees the gateway's own token; the client gets its own back on each notification.",
	servers: map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"progress","inputSchema":{"type":"object"}}]`}},
	run: func(tr *transcriber) {
		tr.initialize()
		tr.legacy(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"n":2},"_meta":{"progressToken":"tok-1"}}}`)
	},
}, {
	name:    "server-request",
	comment: "A legacy server's sampling/createMessage during a call, relayed on the call's stream; the client's answer reaches the server as written.",
	servers: map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sample","inputSchema":{"type":"object"}}]`}},
	run: func(tr *transcriber) {
		tr.initialize()
		tr.legacyAnswering(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample"}}`,
			`{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m","extra":1}`)
	},
}, {
	name:    "mrtr-bridge",
	comment: "A legacy server's elicitation/create during a modern client's call: the client gets an InputRequiredResult, and its retry answers the server.",
	servers: map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"elicit","inputSchema":{"type":"object"}}]`}},
	run: func(tr *transcriber) {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
		res := tr.modern(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"elicit",`+meta+`}}`, "tools/call", "elicit")
		state := regexp.MustCompile(`"requestState":("[^"]+")`).FindStringSubmatch(res)
		if state == nil {
			tr.t.Fatalf("no requestState in %s", res)
		}
		tr.modern(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"elicit","requestState":`+state[1]+
			`,"inputResponses":{"elicitation-1":{"action":"accept","content":{"name":"ada"}}},`+meta+`}}`, "tools/call", "elicit")
	},
}, {
	name:    "surface",
	comment: "Prompts and resources of two servers (SPEC §4.8): b's prompt greet is exported as b_greet and reaches b as greet; a URI b's tool result carried is read back from b; a modern read gains resultType and the caching hints.",
	servers: map[string]map[string]string{
		"a": {"MCP_FAKE_PROMPTS": `[{"name":"greet","arguments":[{"name":"who"}]}]`, "MCP_FAKE_RESOURCES": `[{"uri":"test://a","name":"a"}]`},
		"b": {"MCP_FAKE_NAME": "b", "MCP_FAKE_TOOLS": `[{"name":"link","inputSchema":{"type":"object"}}]`,
			"MCP_FAKE_PROMPTS": `[{"name":"greet","zz":9007199254740993}]`, "MCP_FAKE_TEMPLATES": `[{"uriTemplate":"test://b/{x}","name":"b"}]`}},
	run: func(tr *transcriber) {
		tr.initialize()
		tr.legacy(`{"jsonrpc":"2.0","id":2,"method":"prompts/list"}`)
		tr.legacy(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"b_greet","arguments":{"who":"ada"},"_meta":{"k":1.50}}}`)
		tr.legacy(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"link","arguments":{"uri":"test://elsewhere/1"}}}`)
		tr.legacy(`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"test://elsewhere/1"}}`)
		tr.modern(`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"test://a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			"resources/read", "test://a")
	},
}, {
	name:    "task",
	comment: "A legacy session's task-augmented call to a tool its server did not mark for tasks: the gateway makes the task; tasks/result answers what the call would have, with related-task _meta.",
	servers: map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"sleep","inputSchema":{"type":"object"}}]`}},
	run: func(tr *transcriber) {
		tr.initialize()
		// The call sleeps, so that the task is still working when its
		// CreateTaskResult is rendered.
		tr.legacy(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":200},"task":{"ttl":60000}}}`)
		id := regexp.MustCompile(`"taskId":"([^"]+)"`).FindStringSubmatch(tr.last)
		if id == nil {
			tr.t.Fatalf("no taskId in %s", tr.last)
		}
		tr.legacy(`{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"` + id[1] + `"}}`)
		tr.legacy(`{"jsonrpc":"2.0","id":4,"method":"tasks/get","params":{"taskId":"` + id[1] + `"}}`)
	},
}}

func TestTranscripts(t *testing.T) {
	for _, tc := range transcriptCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			servers := map[string]map[string]string{}
			var names []string
			for name, env := range tc.servers {
				e := map[string]string{"MCP_FAKE_WIRE_FILE": filepath.Join(dir, name+".wire")}
				for k, v := range env {
					e[k] = v
				}
				servers[name] = e
				names = append(names, name)
			}
			sort.Strings(names)
			srv, _ := startGatewayOpts(t, servers, HTTPOptions{MaxSessions: 3})
			tr := &transcriber{t: t, url: srv.URL + "/mcp", ids: map[string]string{}}
			tc.run(tr)
			ar := &txtar.Archive{Comment: []byte(tc.comment + "\n")}
			ar.Files = append(ar.Files, txtar.File{Name: "client", Data: []byte(tr.norm(tr.out.String()))})
			for _, name := range names {
				b, err := os.ReadFile(filepath.Join(dir, name+".wire"))
				if err != nil {
					t.Fatal(err)
				}
				ar.Files = append(ar.Files, txtar.File{Name: "server " + name, Data: []byte(tr.norm(string(b)))})
			}
			compareGolden(t, filepath.Join("testdata", "transcripts", tc.name+".txtar"), txtar.Format(ar))
		})
	}
}

// compareGolden compares got with the golden file at path, or rewrites it
// under -update.
func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got), or run with -update after an intended change:\n%s", path, diff)
	}
}

// transcriber is the client side of a transcript: it sends raw requests
// and records them and their answers, byte for byte, in out.
type transcriber struct {
	t       *testing.T
	url     string
	session string
	out     strings.Builder
	last    string            // the last answer's body
	ids     map[string]string // values that differ between runs → placeholders
}

// initialize opens a legacy session (2025-11-25).
func (tr *transcriber) initialize() {
	tr.legacy(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"transcript","version":"1"}}}`)
	tr.legacy(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// legacy posts body in the session and records the exchange.
func (tr *transcriber) legacy(body string) string {
	return tr.post(tr.legacyHeaders(), body, nil)
}

// legacyAnswering posts body and answers the first server-to-client
// request on its stream with result.
func (tr *transcriber) legacyAnswering(body, result string) string {
	return tr.post(tr.legacyHeaders(), body, func(data string) {
		if id := regexp.MustCompile(`^\{"jsonrpc":"2.0","id":([^,]+),"method"`).FindStringSubmatch(data); id != nil {
			tr.legacy(`{"jsonrpc":"2.0","id":` + id[1] + `,"result":` + result + `}`)
		}
	})
}

func (tr *transcriber) legacyHeaders() []string {
	if tr.session == "" {
		return nil
	}
	return []string{"Mcp-Session-Id", tr.session, "Mcp-Protocol-Version", "2025-11-25"}
}

// modern posts a 2026-07-28 request with its required headers.
func (tr *transcriber) modern(body, method, name string) string {
	h := []string{"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		h = append(h, "Mcp-Name", name)
	}
	return tr.post(h, body, nil)
}

// post sends one POST with the headers (name, value pairs), records it and
// its answer (an SSE answer event by event, onEvent called with each
// event's data as it comes), and returns the answer's body.
func (tr *transcriber) post(headers []string, body string, onEvent func(data string)) string {
	tr.t.Helper()
	req, _ := http.NewRequest("POST", tr.url, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	fmt.Fprintf(&tr.out, "> POST /mcp\n")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
		fmt.Fprintf(&tr.out, "> %s: %s\n", headers[i], headers[i+1])
	}
	fmt.Fprintf(&tr.out, "> %s\n", body)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tr.t.Fatal(err)
	}
	defer resp.Body.Close()
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		tr.session = id
	}
	fmt.Fprintf(&tr.out, "< %d %s\n", resp.StatusCode, resp.Header.Get("Content-Type"))
	var got bytes.Buffer
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		got.Write(b)
		if len(b) > 0 {
			fmt.Fprintf(&tr.out, "< %s\n", strings.TrimSuffix(string(b), "\n"))
		}
	} else {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				continue
			}
			fmt.Fprintf(&tr.out, "< %s\n", line)
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				got.WriteString(data + "\n")
				if onEvent != nil {
					onEvent(data)
				}
			}
		}
	}
	tr.out.WriteString("\n")
	tr.last = got.String()
	return tr.last
}

// The values that differ between runs, each replaced by a placeholder
// numbered in the order it first appears (so that a transcript still
// shows which ones are the same).
var transcriptVolatile = []struct {
	kind string
	re   *regexp.Regexp
}{
	{"session", regexp.MustCompile(`\b[0-9a-f]{32}\b`)},
	{"state", regexp.MustCompile(`[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{43}`)},
	{"task", regexp.MustCompile(`"taskId":"([A-Za-z0-9_-]{22})"`)},
	{"time", regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z`)},
}

// norm replaces the run-dependent values in s.
func (tr *transcriber) norm(s string) string {
	for _, v := range transcriptVolatile {
		s = v.re.ReplaceAllStringFunc(s, func(m string) string {
			value := m
			if sub := v.re.FindStringSubmatch(m); len(sub) > 1 {
				value = sub[1]
			}
			p, ok := tr.ids[v.kind+"\x00"+value]
			if !ok {
				n := 0
				for k := range tr.ids {
					if strings.HasPrefix(k, v.kind+"\x00") {
						n++
					}
				}
				p = fmt.Sprintf("<%s-%d>", v.kind, n+1)
				if v.kind == "time" {
					p = "<time>"
				}
				tr.ids[v.kind+"\x00"+value] = p
			}
			return strings.Replace(m, value, p, 1)
		})
	}
	return s
}
