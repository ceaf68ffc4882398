package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// memory is figure 4: the daemon's VmRSS and VmHWM idle with MemServers
// servers, then after MemSessions sessions (open at once, and kept open)
// have each made MemCalls calls, spread over the servers.
func (r *runner) memory(ctx context.Context) error {
	cfg := r.cfg
	servers := map[string]string{}
	for i := range cfg.MemServers {
		servers[string(rune('a'+i))] = runCmd([]string{cfg.Bin.Echo})
	}
	g, err := r.launch(ctx, config(servers), cfg.TempDir)
	if err != nil {
		return err
	}
	defer g.Stop()
	time.Sleep(500 * time.Millisecond) // let the daemon settle after start
	idle, err := ReadMem(g.PID)
	if err != nil {
		return err
	}
	r.add("mem.idle.rss", "gateway", mib(idle.RSS))
	r.add("mem.idle.hwm", "gateway", mib(idle.HWM))
	r.add("mem.idle.anon", "gateway", mib(idle.Anon))
	shims, _ := g.ServerPIDs()
	var shimRSS, shimAnon, upRSS float64
	for i, p := range shims {
		m, _ := ReadMem(p)
		shimRSS += mib(m.RSS) / float64(len(shims))
		shimAnon += mib(m.Anon) / float64(len(shims))
		u, _ := ReadMem(g.upstreamPID(i))
		upRSS += mib(u.RSS) / float64(len(shims))
	}
	r.add("mem.shim.rss", "gateway", shimRSS)
	r.add("mem.shim.anon", "gateway", shimAnon)
	r.add("mem.upstream.rss", "gateway", upRSS)

	hc := NewHTTPClient(g.URL, g.Token)
	defer hc.CloseIdle()
	first, err := hc.NewSession(ctx)
	if err != nil {
		return err
	}
	tools, err := toolNames(ctx, first)
	if err != nil {
		return err
	}
	sessions := make([]*Session, cfg.MemSessions)
	sessions[0] = first
	// Sessions are opened by up to 16 clients at once. Concurrent
	// initializes near the cap can get a 503 although fewer than
	// MaxSessions sessions exist (sessionCap counts a session that go-sdk
	// has registered but whose initialize is still in flight twice), so a
	// 503 is retried and counted.
	var retries atomic.Int64
	errs := make([]error, cfg.MemSessions)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range sessions {
		if sessions[i] != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			for try := 0; ; try++ {
				sessions[i], errs[i] = hc.NewSession(ctx)
				if errs[i] == nil || !strings.Contains(errs[i].Error(), "HTTP 503") || try == 50 {
					return
				}
				retries.Add(1)
				time.Sleep(20 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	r.add("mem.sessions.retries", "gateway", float64(retries.Load()))
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range cfg.MemCalls {
				tool := tools[(i+j)%len(tools)]
				params := []byte(`{"name":"` + tool + `","arguments":{"message":"hello"}}`)
				res, err := sessions[i].Call(ctx, "tools/call", params)
				if err == nil && !bytes.Contains(res, []byte("hello")) {
					err = fmt.Errorf("unexpected result %s", truncate(res, 200))
				}
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	after, err := ReadMem(g.PID)
	if err != nil {
		return err
	}
	r.add("mem.sessions.rss", "gateway", mib(after.RSS))
	r.add("mem.sessions.hwm", "gateway", mib(after.HWM))
	r.add("mem.sessions.anon", "gateway", mib(after.Anon))
	for _, s := range sessions {
		s.Close()
	}
	return g.Stop()
}

func toolNames(ctx context.Context, s *Session) ([]string, error) {
	res, err := s.Call(ctx, "tools/list", []byte(`{}`))
	if err != nil {
		return nil, err
	}
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &list); err != nil {
		return nil, err
	}
	var names []string
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("tools/list is empty")
	}
	return names, nil
}
