package legacy

import (
	"context"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/relay"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file keeps the servers' log level in step with the sessions'
// (SPEC §4.8). A legacy session's logging/setLevel applies to that
// session only: the gateway filters each session's log messages at its
// own level (peer.go), and asks each server for the most verbose level
// any session set, so that no session misses a message it asked for.
// When no session holds a level any more, the servers are set back to
// "debug", what the SDKs send without one (every message). A modern
// request carries its own level (_meta io.modelcontextprotocol/logLevel),
// which reaches a modern server as it is.

// levelWait bounds the servers' logging/setLevel of one change.
const levelWait = 10 * time.Second

// levels is the level the servers were last asked for; "" until a
// session first set one.
type levels struct {
	mu   sync.Mutex
	sent string
}

// apply asks every server (ups) for the most verbose level the
// sessions (all) hold, if that changed; the servers are asked at once, each bounded.
func (l *levels) apply(all []*Session, ups []*supervisor.Upstream) {
	l.mu.Lock()
	defer l.mu.Unlock()
	want := ""
	for _, s := range all {
		s.mu.Lock()
		l := s.level
		s.mu.Unlock()
		if l != "" && (want == "" || relay.LogLevels[l] < relay.LogLevels[want]) {
			want = l
		}
	}
	if want == "" && l.sent != "" {
		want = "debug"
	}
	if want == "" || want == l.sent {
		return
	}
	l.sent = want
	ctx, cancel := context.WithTimeout(context.Background(), levelWait)
	defer cancel()
	var wg sync.WaitGroup
	for _, u := range ups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.SetLogLevel(ctx, want)
		}()
	}
	wg.Wait()
}
