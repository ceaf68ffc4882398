package fakeserver

// The fake at work: Main's read loop, and the dispatch of each request
// to its method and each tools/call to its tool (the modern, task, ask
// and surface ones in their own files).

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
	"time"
)

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
