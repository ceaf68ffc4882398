package fakehttp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// handle answers a request; out carries what the fake sends on the way.
// It returns the response, or "" when the client went first.
func (s *Server) handle(r *http.Request, m message, out func(string), modern bool) string {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		return response(m.ID, `{"protocolVersion":"`+p.ProtocolVersion+`","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"fakehttp","version":"1"}}`)
	case "ping":
		return response(m.ID, `{}`)
	case "tools/list":
		s.mu.Lock()
		tools := s.tools
		s.mu.Unlock()
		return response(m.ID, withType(`{"tools":`+tools+`}`, modern))
	case "tools/call":
		return s.call(r, m, out, modern)
	}
	return errorResponse(m.ID, -32601, "method not found: "+m.Method, "")
}

// withType adds resultType to a modern result.
func withType(result string, modern bool) string {
	if !modern || strings.Contains(result, `"resultType"`) {
		return result
	}
	return `{"resultType":"complete",` + strings.TrimPrefix(result, "{")
}

// callParams is what the tools read of a tools/call.
type callParams struct {
	Name      string `json:"name"`
	Arguments struct {
		Text  string `json:"text"`
		N     int    `json:"n"`
		MS    int    `json:"ms"`
		Bytes int    `json:"bytes"`
	} `json:"arguments"`
	Meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
	InputResponses map[string]struct {
		Content struct {
			Name string `json:"name"`
		} `json:"content"`
	} `json:"inputResponses"`
}

// call runs a tool.
func (s *Server) call(r *http.Request, m message, out func(string), modern bool) string {
	var p callParams
	_ = json.Unmarshal(m.Params, &p)
	a := p.Arguments
	ok := func(t string) string { return response(m.ID, withType(text(t), modern)) }
	switch p.Name {
	case "echo":
		return ok(a.Text)
	case "pid":
		return ok(strconv.Itoa(os.Getpid()))
	case "expire":
		s.Expire() // before the answer: the next request is surely 404
		return ok("expiring")
	case "progress":
		for i := 1; i <= a.N; i++ {
			if p.Meta.ProgressToken != nil {
				out(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":%d}}`, p.Meta.ProgressToken, i, a.N))
			}
		}
		return ok("done")
	case "log":
		out(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"fakehttp","data":"hello from the fake"}}`)
		return ok("logged")
	case "elicit":
		res, answered := s.ask(r, out, "elicitation/create", `{"message":"pick n","requestedSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`)
		if !answered {
			return ""
		}
		return ok(string(res))
	case "sleep":
		if !s.sleep(r, m, time.Duration(a.MS)*time.Millisecond) {
			return ""
		}
		return ok("slept")
	case "change":
		s.change()
		return ok("changed")
	case "mrtr":
		if resp, found := p.InputResponses["ask"]; found {
			return ok("hello " + resp.Content.Name)
		}
		return response(m.ID, `{"resultType":"input_required","inputRequests":{"ask":{"method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}},"requestState":"fake-state"}`)
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: fakehttp crash requested")
		os.Exit(3)
	}
	return errorResponse(m.ID, -32602, "unknown tool "+p.Name, "")
}

// ask sends the client a request on out and waits for its answer, or for
// the client to go.
func (s *Server) ask(r *http.Request, out func(string), method, params string) (json.RawMessage, bool) {
	s.mu.Lock()
	s.nextID++
	id := fmt.Sprintf(`"fake-%d"`, s.nextID)
	ch := make(chan json.RawMessage, 1)
	s.waits[id] = ch
	s.mu.Unlock()
	out(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
	select {
	case res := <-ch:
		return res, true
	case <-r.Context().Done():
		return nil, false
	}
}

// sleep waits d; it reports false, and records how, when the call is
// cancelled first: by notifications/cancelled, or by the client closing
// the answer.
func (s *Server) sleep(r *http.Request, m message, d time.Duration) bool {
	stop := make(chan struct{})
	s.mu.Lock()
	s.stops[string(m.ID)] = stop
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.stops, string(m.ID))
		s.mu.Unlock()
	}()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-stop:
		return false
	case <-r.Context().Done():
		s.mu.Lock()
		s.cancelled = append(s.cancelled, "closed "+string(m.ID))
		s.mu.Unlock()
		return false
	}
}

// change switches to Tools2 and tells every stream that listens.
func (s *Server) change() {
	s.mu.Lock()
	if s.opts.Tools2 != "" {
		s.tools = s.opts.Tools2
	}
	var streams []*stream
	for _, sess := range s.sessions {
		if sess.stream != nil {
			streams = append(streams, sess.stream)
		}
	}
	listens := map[string]*stream{}
	for id, st := range s.listens {
		listens[id] = st
	}
	s.mu.Unlock()
	for _, st := range streams {
		st.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	}
	for id, st := range listens {
		st.send(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}}}`)
	}
}

// fault answers the tools that misbehave at the HTTP level; it reports
// whether m was one.
func (s *Server) fault(w http.ResponseWriter, r *http.Request, m message) bool {
	var p callParams
	_ = json.Unmarshal(m.Params, &p)
	switch toolName(m) {
	case "stall":
		st := openStream(w)
		st.raw(`data: {"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[`)
		<-r.Context().Done()
	case "stalljson":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"content":[`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case "huge":
		st := openStream(w)
		st.raw(`data: {"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{"content":[{"type":"text","text":"`)
		chunk := strings.Repeat("h", 1<<20)
		for n := 0; n < p.Arguments.Bytes && r.Context().Err() == nil; n += len(chunk) {
			st.raw(chunk)
		}
		st.raw(`"}]}}` + "\n\n")
	case "html":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>")
	case "fail500":
		http.Error(w, "internal failure on purpose", http.StatusInternalServerError)
	case "redirect":
		http.Redirect(w, r, s.opts.RedirectTo, http.StatusTemporaryRedirect)
	case "closeearly":
		event := "early-" + strings.Trim(string(m.ID), `"`)
		s.mu.Lock()
		s.parked[event] = response(m.ID, text("resumed"))
		s.mu.Unlock()
		st := openStream(w)
		st.raw("id: " + event + "\nretry: 10\ndata:\n\n")
	default:
		return false
	}
	return true
}

// toolName is a tools/call's tool.
func toolName(m message) string {
	if m.Method != "tools/call" {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &p)
	return p.Name
}
