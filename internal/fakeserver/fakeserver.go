// Package fakeserver is a misbehaving-on-demand MCP stdio server for tests.
// A test binary becomes the server when MCP_FAKE is set: its TestMain calls
// Main first. The server speaks raw newline-delimited JSON-RPC (no SDK), so
// tests control every byte.
//
// Environment:
//
//	MCP_FAKE=1                 be the server
//	MCP_FAKE_TOOLS=<json>      the tools/list "tools" array, raw (default: DefaultTools)
//	MCP_FAKE_TOOLS_FILE=<path> the same, read from a file (for lists over 128 KiB)
//	MCP_FAKE_BANNER=1          print a blank and a non-JSON line before and between replies
//	MCP_FAKE_STDERR=<bytes>    write this much stderr at start
//	MCP_FAKE_STDERR_FLOOD=<MiB/s>,<ms>  write stderr at that rate for that long from
//	                           the start, in 4 KiB lines, while serving
//	MCP_FAKE_START_DELAY=<ms>  sleep before answering initialize
//	MCP_FAKE_EXIT_AT_START=<code>  exit at once with code, after a stderr line
//	MCP_FAKE_COUNT_FILE=<path> append one line per start (spawn counting)
//	MCP_FAKE_PAGE=<n>          paginate tools/list n tools a page
//	MCP_FAKE_NAME=<s>          echo appends " from <s>"
//	MCP_FAKE_CANCEL_FILE=<path> append the params of each notifications/cancelled
//	MCP_FAKE_WIRE_FILE=<path>  append every line read ("> " then the line) and written
//	                           ("< " then the line), byte for byte: the wire, for
//	                           golden transcripts
//
// Tools (by name, whatever the list says):
//
//	echo {"text": s}          → text content s
//	raw                       → MCP_FAKE_RESULT verbatim as the result
//	fail                      → JSON-RPC error {code: -32042, message, data}
//	sleep {"ms": n}           → sleep, then text "slept" ("started": path → create path first)
//	crash                     → SIGKILL itself (after sleep "ms", default 0)
//	big {"bytes": n, "ms": d} → after d ms, text content of n bytes
//	stderr {"bytes": n}       → write n bytes to stderr, then text "ok"
//	env                       → text content: the environment, one per line
//	say {"text": s}           → write s to stderr, then text "said"
//	pid                       → text content: this process's pid
//	progress {"n": k, "ms": d}→ k progress notifications d ms apart, then "done"
//	log                       → a notifications/message, then "logged"
//	sample                    → sampling/createMessage to the client; its result as text
//	elicit                    → elicitation/create to the client; its result as text
//	askanswer                 → elicitation/create and the call's reply ("answered") in one
//	                            write, without waiting for the answer
//	sleepask {"ms": d, "n": k} → k progress notifications (with a progressToken), create
//	                            "started", sleep d ms, then elicit; its result as text
//	askraw                    → elicit, then MCP_FAKE_RESULT verbatim as the result
//	askcrash {"ms": d}        → elicit, then SIGKILL itself d ms later, unanswered
//	fork                      → start a sleeping grandchild; text: its pid
//	forksetsid                → the same, in a session of its own (setsid)
//	closeout                  → reply, then close stdout and keep running
//	deep                      → a result nested 20,000 arrays deep
//	change                    → send tools/list_changed (tools from MCP_FAKE_TOOLS2 from now on)
//	changeflood {"n": k}      → send k tools/list_changed at once, then text "flooded"
//	lists                     → text content: how many tools/list it has answered
//	endless                   → write "x" to stdout forever, with no newline
//	mktask                    → a task (see tasks.go)
//
// Prompts, resources, templates, subscriptions, completion and
// logging/setLevel: see surface.go.
//
// Modern mode (MCP 2026-07-28; see modern.go):
//
//	MCP_FAKE_MODERN=1          refuse initialize with -32022 listing only 2026-07-28;
//	                           answer server/discover and subscriptions/listen; reject
//	                           any request without the required _meta with -32602
//	MCP_FAKE_RECORD_FILE=<path> append "<method> <params>" per request received
//	MCP_FAKE_MODERN_SUPPORTED=<json> the "supported" list initialize is refused with
//
// and, in modern mode, the tools
//
//	change                    → list_changed on the listen stream (tagged with its id)
//	changeuntagged            → list_changed not tagged with any subscription
//	endlisten                 → end the listen stream gracefully (answer its request)
//	log                       → a notifications/message only if the request set a logLevel
//	mrtr {"rounds": n}        → InputRequiredResult asking (elicitation/create, key "ask")
//	                            for a name n times, state bound to this process; then
//	                            text "hello <names>"
package fakeserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// DefaultTools is the tools/list of a fake without MCP_FAKE_TOOLS.
const DefaultTools = `[{"name":"echo","description":"Echo text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]`

// Enabled reports whether this process should be the fake server.
func Enabled() bool { return os.Getenv("MCP_FAKE") != "" }

type server struct {
	wmu    sync.Mutex
	wireMu sync.Mutex
	out    *bufio.Writer
	banner bool
	nextID int
	mu     sync.Mutex
	waits  map[string]chan json.RawMessage
	tools  string
	lists  int // tools/list answered

	modern   bool
	listenID json.RawMessage // the open subscriptions/listen's id (modern)

	// The surface (surface.go), under mu: the URIs resources/subscribe
	// holds, the lists swapped to their "2" env, and the modern resource
	// listens (their id → the URI they watch).
	subscribed      map[string]bool
	changed         map[string]bool
	resourceListens map[string]string
}

func (s *server) writeRaw(line string) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	for _, l := range strings.Split(line, "\n") {
		s.wire("< ", l)
	}
	s.out.WriteString(line)
	s.out.WriteByte('\n')
	s.out.Flush()
}

// wire appends one line to MCP_FAKE_WIRE_FILE, if set, under s.wireMu so
// that the lines read and written keep their order.
func (s *server) wire(dir, line string) {
	p := os.Getenv("MCP_FAKE_WIRE_FILE")
	if p == "" {
		return
	}
	s.wireMu.Lock()
	defer s.wireMu.Unlock()
	if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.WriteString(dir + line + "\n")
		f.Close()
	}
}

// record appends "<method> <params>" to MCP_FAKE_RECORD_FILE, if set.
func record(method string, params json.RawMessage) {
	p := os.Getenv("MCP_FAKE_RECORD_FILE")
	if p == "" {
		return
	}
	if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintln(f, method+" "+string(params))
		f.Close()
	}
}

func (s *server) reply(id json.RawMessage, result string) {
	if s.modern {
		result = withResultType(result)
	}
	s.writeRaw(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
	if s.banner {
		s.writeRaw("")
		s.writeRaw("log: handled a request")
	}
}

func (s *server) replyErr(id json.RawMessage, code int, msg, data string) {
	e := fmt.Sprintf(`{"code":%d,"message":%q`, code, msg)
	if data != "" {
		e += `,"data":` + data
	}
	s.writeRaw(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":` + e + `}}`)
}

// withResultType adds "resultType":"complete" to a result object that has
// no resultType (every modern result carries one).
func withResultType(result string) string {
	if !strings.HasPrefix(result, "{") || strings.Contains(result, `"resultType"`) {
		return result
	}
	if strings.HasPrefix(result, "{}") {
		return `{"resultType":"complete"}` + result[2:]
	}
	return `{"resultType":"complete",` + result[1:]
}

func (s *server) notify(method, params string) {
	s.writeRaw(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`)
}

// listChangedParams tags a list_changed with the open subscription, if any.
func (s *server) listChangedParams() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.modern || s.listenID == nil {
		return `{}`
	}
	return `{"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(s.listenID) + `}}`
}

func text(t string) string {
	b, _ := json.Marshal(t)
	return `{"content":[{"type":"text","text":` + string(b) + `}]}`
}

// request sends a server-to-client request and waits for its answer.
func (s *server) request(method, params string) json.RawMessage {
	s.mu.Lock()
	s.nextID++
	id := fmt.Sprintf(`"s%d"`, s.nextID)
	ch := make(chan json.RawMessage, 1)
	s.waits[id] = ch
	s.mu.Unlock()
	s.writeRaw(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		return json.RawMessage(`"no answer"`)
	}
}

// Argv returns the argv that runs this test binary as the fake server.
// Pass the behaviour through env.
func Argv() []string {
	self, _ := os.Executable()
	return []string{self, "-test.run=^$"}
}

// ShellCommand returns a runCmd starting this test binary as the fake
// server with env set ("K=V" pairs).
func ShellCommand(env ...string) string {
	var b strings.Builder
	b.WriteString("MCP_FAKE=1 ")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		b.WriteString(k + "=" + shellQuote(v) + " ")
	}
	b.WriteString("exec ")
	for i, a := range Argv() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// WaitFile waits up to 10 s for path to exist: the file the sleep tool's
// "started" argument names, say, which tells a test that the call reached
// the server. It fails the test if the file does not appear.
func WaitFile(t testing.TB, path string) {
	t.Helper()
	testwait.For(t, 0, path+" to be created", func() bool {
		_, err := os.Stat(path)
		return err == nil
	})
}

// instructions is `,"<member>":<MCP_FAKE_INSTRUCTIONS as a JSON string>`,
// or "" when that is unset: a legacy fake says it as its initialize's
// instructions, a modern one as its serverInfo's description.
func instructions(member string) string {
	v, ok := os.LookupEnv("MCP_FAKE_INSTRUCTIONS")
	if !ok {
		return ""
	}
	b, _ := json.Marshal(v)
	return `,"` + member + `":` + string(b)
}
