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
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
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

// Main runs the fake server on stdin/stdout until stdin closes, and
// returns the exit code.
func Main() int {
	if n, _ := strconv.Atoi(os.Getenv("MCP_FAKE_STDERR")); n > 0 {
		os.Stderr.WriteString(strings.Repeat(strings.Repeat("e", 99)+"\n", n/100+1))
	}
	if v := os.Getenv("MCP_FAKE_STDERR_FLOOD"); v != "" {
		go floodStderr(v)
	}
	if p := os.Getenv("MCP_FAKE_COUNT_FILE"); p != "" {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, os.Getpid())
			f.Close()
		}
	}
	if code := os.Getenv("MCP_FAKE_EXIT_AT_START"); code != "" {
		fmt.Fprintln(os.Stderr, "fatal: cannot start, missing FAKE_API_KEY")
		n, _ := strconv.Atoi(code)
		return n
	}
	s := &server{out: bufio.NewWriterSize(os.Stdout, 1<<20), banner: os.Getenv("MCP_FAKE_BANNER") != "", waits: map[string]chan json.RawMessage{},
		modern: os.Getenv("MCP_FAKE_MODERN") != ""}
	s.tools = os.Getenv("MCP_FAKE_TOOLS")
	if p := os.Getenv("MCP_FAKE_TOOLS_FILE"); p != "" {
		b, _ := os.ReadFile(p)
		s.tools = string(b)
	}
	if s.tools == "" {
		s.tools = DefaultTools
	}
	if s.banner {
		s.writeRaw("")
		s.writeRaw("Fake server v1 starting (this is not JSON)")
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var wg sync.WaitGroup
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			s.wire("> ", strings.TrimSuffix(string(line), "\n"))
		}
		if len(strings.TrimSpace(string(line))) > 0 {
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &msg) == nil {
				if msg.Method == "notifications/cancelled" {
					s.cancelListen(msg.Params)
					if p := os.Getenv("MCP_FAKE_CANCEL_FILE"); p != "" {
						if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
							fmt.Fprintln(f, string(msg.Params))
							f.Close()
						}
					}
				}
				if msg.Method == "" {
					s.mu.Lock()
					ch := s.waits[string(msg.ID)]
					s.mu.Unlock()
					if ch != nil {
						if msg.Error != nil {
							ch <- msg.Error
						} else {
							ch <- msg.Result
						}
					}
				} else if len(msg.ID) > 0 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						s.handle(msg.ID, msg.Method, msg.Params)
					}()
				}
			}
		}
		if err != nil {
			break
		}
	}
	wg.Wait()
	return 0
}

// floodStderr writes "<MiB/s>,<ms>" worth of stderr: 4 KiB lines, paced
// every 10 ms.
func floodStderr(spec string) {
	rateStr, msStr, _ := strings.Cut(spec, ",")
	mibps, _ := strconv.Atoi(rateStr)
	ms, _ := strconv.Atoi(msStr)
	line := strings.Repeat("f", 4095) + "\n"
	perTick := mibps << 20 / 100 / len(line)
	block := strings.Repeat(line, max(perTick, 1))
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	for next := time.Now(); time.Now().Before(end); next = next.Add(10 * time.Millisecond) {
		os.Stderr.WriteString(block)
		time.Sleep(time.Until(next.Add(10 * time.Millisecond)))
	}
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

func (s *server) notify(method, params string) {
	s.writeRaw(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`)
}

func text(t string) string {
	b, _ := json.Marshal(t)
	return `{"content":[{"type":"text","text":` + string(b) + `}]}`
}

func (s *server) handle(id json.RawMessage, method string, params json.RawMessage) {
	if s.modern && !s.modernHandle(id, method, params) {
		return
	}
	switch method {
	case "initialize":
		if ms, _ := strconv.Atoi(os.Getenv("MCP_FAKE_START_DELAY")); ms > 0 {
			time.Sleep(time.Duration(ms) * time.Millisecond)
		}
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(params, &p)
		s.reply(id, `{"protocolVersion":"`+p.ProtocolVersion+`","capabilities":{"tools":{"listChanged":true},"logging":{}`+surfaceCaps()+`},"serverInfo":{"name":"fake","version":"1"}`+instructions("instructions")+`}`)
	case "ping":
		s.reply(id, `{}`)
	case "tools/list":
		s.listTools(id, params)
	case "tools/call":
		s.call(id, params)
	case "tasks/get", "tasks/result", "tasks/cancel", "tasks/list":
		s.taskMethod(id, method, params) // tasks.go
	default:
		if !s.surfaceMethod(id, method, params) { // surface.go
			s.replyErr(id, -32601, "method not found: "+method, "")
		}
	}
}

func (s *server) listTools(id json.RawMessage, params json.RawMessage) {
	s.mu.Lock()
	tools := s.tools
	s.lists++
	s.mu.Unlock()
	page, _ := strconv.Atoi(os.Getenv("MCP_FAKE_PAGE"))
	if page <= 0 {
		s.reply(id, `{"tools":`+tools+`}`)
		return
	}
	var all []json.RawMessage
	_ = json.Unmarshal([]byte(tools), &all)
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(params, &p)
	start, _ := strconv.Atoi(p.Cursor)
	end := min(start+page, len(all))
	b, _ := json.Marshal(all[start:end])
	res := `{"tools":` + string(b)
	if end < len(all) {
		res += `,"nextCursor":"` + strconv.Itoa(end) + `"`
	}
	s.reply(id, res+`}`)
}

func (s *server) call(id json.RawMessage, params json.RawMessage) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	var a struct {
		Text  string `json:"text"`
		MS    int    `json:"ms"`
		Bytes int    `json:"bytes"`
		N     int    `json:"n"`
		// Started is a file that sleep creates as it starts, so that a
		// test knows the call reached the server.
		Started string `json:"started"`
	}
	_ = json.Unmarshal(p.Arguments, &a)
	switch p.Name {
	case "echo":
		if name := os.Getenv("MCP_FAKE_NAME"); name != "" {
			a.Text += " from " + name
		}
		s.reply(id, text(a.Text))
	case "args":
		s.reply(id, text(string(params)))
	case "raw":
		s.reply(id, os.Getenv("MCP_FAKE_RESULT"))
	case "fail":
		s.replyErr(id, -32042, "the fake failed on purpose", `{"why":"asked to","n":9007199254740993}`)
	case "sleep":
		if a.Started != "" {
			_ = os.WriteFile(a.Started, nil, 0o644)
		}
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		s.reply(id, text("slept"))
	case "crash":
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		fmt.Fprintln(os.Stderr, "panic: fake crash requested")
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	case "big":
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		s.reply(id, text(strings.Repeat("x", a.Bytes)))
	case "say":
		fmt.Fprintln(os.Stderr, a.Text)
		s.reply(id, text("said"))
	case "stderr":
		os.Stderr.WriteString(strings.Repeat(strings.Repeat("s", 99)+"\n", a.Bytes/100+1))
		s.reply(id, text("ok"))
	case "env":
		s.reply(id, text(strings.Join(os.Environ(), "\n")))
	case "pid":
		s.reply(id, text(strconv.Itoa(os.Getpid())))
	case "progress":
		for i := 1; i <= a.N; i++ {
			if p.Meta.ProgressToken != nil {
				s.notify("notifications/progress", fmt.Sprintf(`{"progressToken":%s,"progress":%d,"total":%d}`, p.Meta.ProgressToken, i, a.N))
			}
			time.Sleep(time.Duration(a.MS) * time.Millisecond)
		}
		s.reply(id, text("done"))
	case "log":
		if !s.modern || hasLogLevel(params) {
			s.notify("notifications/message", `{"level":"warning","logger":"fake","data":{"msg":"hello from the fake"}}`)
		}
		s.reply(id, text("logged"))
	case "sample":
		res := s.request("sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10}`)
		s.reply(id, text(string(res)))
	case "elicit":
		res := s.request("elicitation/create", `{"message":"pick n","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`)
		s.reply(id, text(string(res)))
	case "asktwice":
		// A second elicitation a.MS ms after the first, before the first
		// is answered; the answers, joined.
		first := make(chan json.RawMessage, 1)
		go func() { first <- s.request("elicitation/create", `{"message":"first ask"}`) }()
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		second := s.request("elicitation/create", `{"message":"second ask"}`)
		s.reply(id, text(string(<-first)+" "+string(second)))
	case "note":
		// MCP_FAKE_NOTE holds a notification's params, sent as they are.
		s.notify("notifications/message", os.Getenv("MCP_FAKE_NOTE"))
		s.reply(id, text("noted"))
	case "closeout":
		s.reply(id, text("closing stdout"))
		s.wmu.Lock()
		os.Stdout.Close()
		s.wmu.Unlock()
		time.Sleep(time.Hour)
	case "deep":
		s.reply(id, `{"content":[],"x":`+strings.Repeat("[", 20000)+strings.Repeat("]", 20000)+`}`)
	case "forksetsid":
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		_ = cmd.Start()
		s.reply(id, text(strconv.Itoa(cmd.Process.Pid)))
	case "fork":
		cmd := exec.Command("sleep", "300")
		_ = cmd.Start()
		s.reply(id, text(strconv.Itoa(cmd.Process.Pid)))
	case "endless":
		s.wmu.Lock() // nothing else is written after this
		chunk := []byte(strings.Repeat("x", 64<<10))
		for {
			if _, err := s.out.Write(chunk); err != nil {
				os.Exit(1)
			}
		}
	case "changeflood":
		for range a.N {
			s.notify("notifications/tools/list_changed", `{}`)
		}
		s.reply(id, text("flooded"))
	case "lists":
		s.mu.Lock()
		n := s.lists
		s.mu.Unlock()
		s.reply(id, text(strconv.Itoa(n)))
	case "change":
		s.mu.Lock()
		s.tools = os.Getenv("MCP_FAKE_TOOLS2")
		s.mu.Unlock()
		s.notify("notifications/tools/list_changed", s.listChangedParams())
		s.reply(id, text("changed"))
	default:
		if !s.askCall(id, p.Name, params) && !s.modernCall(id, p.Name, params) && !s.taskCall(id, p.Name, params) && !s.surfaceCall(id, p.Name, p.Arguments) {
			s.replyErr(id, -32602, "unknown tool "+p.Name, "")
		}
	}
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
