package fakeserver

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"time"
)

// askCall serves the tools that ask the client something at moments a
// test chooses (the MRTR bridge's detach, SPEC §4.6), and reports
// whether name is one of them.
func (s *server) askCall(id json.RawMessage, name string, params json.RawMessage) bool {
	var p struct {
		Arguments struct {
			MS      int    `json:"ms"`
			N       int    `json:"n"`
			Started string `json:"started"`
		} `json:"arguments"`
		Meta struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(params, &p)
	a := p.Arguments
	switch name {
	case "askanswer":
		// The server asks exactly as it answers.
		s.mu.Lock()
		s.nextID++
		rid := fmt.Sprintf(`"s%d"`, s.nextID)
		s.mu.Unlock()
		s.writeRaw(`{"jsonrpc":"2.0","id":` + rid + `,"method":"elicitation/create","params":{"message":"late"}}` + "\n" +
			`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + text("answered") + `}`)
	case "sleepask":
		for i := 1; i <= a.N; i++ {
			if p.Meta.ProgressToken != nil {
				s.notify("notifications/progress", fmt.Sprintf(`{"progressToken":%s,"progress":%d}`, p.Meta.ProgressToken, i))
			}
		}
		if a.Started != "" {
			_ = os.WriteFile(a.Started, nil, 0o644)
		}
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		res := s.request("elicitation/create", `{"message":"after sleep"}`)
		s.reply(id, text(string(res)))
	case "askraw":
		s.request("elicitation/create", `{"message":"then raw"}`)
		s.reply(id, os.Getenv("MCP_FAKE_RESULT"))
	case "askcrash":
		go s.request("elicitation/create", `{"message":"then crash"}`)
		time.Sleep(time.Duration(a.MS) * time.Millisecond)
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	default:
		return false
	}
	return true
}
