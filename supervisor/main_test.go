package supervisor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/fakehttp"
	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

func TestMain(m *testing.M) {
	if fakeserver.Enabled() {
		os.Exit(fakeserver.Main())
	}
	if fakehttp.Enabled() {
		os.Exit(fakehttp.Main())
	}
	os.Exit(m.Run())
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fake returns a supervisor over one fake server named "fake" with env.
func fake(t *testing.T, env map[string]string) (*Supervisor, *Upstream, *syncBuffer) {
	t.Helper()
	e := map[string]string{"MCP_FAKE": "1"}
	for k, v := range env {
		e[k] = v
	}
	logBuf := &syncBuffer{}
	s := New([]adapters.Server{{Name: "fake", Spec: adapters.LaunchSpec{Argv: fakeserver.Argv(), Env: e}}}, Options{
		Log:          logfile.New(logBuf),
		StartTimeout: 20 * time.Second,
		Stop:         proc.StopTimeouts{CloseWait: time.Second, TermWait: time.Second},
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	u, _ := s.Upstream("fake")
	return s, u, logBuf
}

// callText calls a tool and returns its first text content; a result
// without one fails the test.
func callText(t *testing.T, u *Upstream, tool, args string) (string, error) {
	t.Helper()
	text, err := callWithin(u, tool, args, 20*time.Second)
	if errors.Is(err, errBadResult) {
		t.Fatal(err)
	}
	return text, err
}

// errBadResult is callWithin's error for a result without text content.
var errBadResult = errors.New("bad result")

// callWithin calls a tool, bounded by d, and returns its first text
// content or the error. Unlike callText it may run outside the test's
// goroutine.
func callWithin(u *Upstream, tool, args string, d time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := u.Call(ctx, "tools/call", json.RawMessage(`{"name":"`+tool+`","arguments":`+args+`}`), nil)
	if err != nil {
		return "", err
	}
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Content) == 0 {
		return "", fmt.Errorf("%w %s: %v", errBadResult, res, err)
	}
	return r.Content[0].Text, nil
}

func mustText(t *testing.T, u *Upstream, tool, args string) string {
	t.Helper()
	s, err := callText(t, u, tool, args)
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return s
}

func contains(t *testing.T, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s = %q, want it to contain %q", what, s, sub)
	}
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
