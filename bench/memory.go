package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
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
	gw, err := r.startGateway(ctx, servers)
	if err != nil {
		return err
	}
	defer gw.close()
	if err := r.memoryIdle(gw.proc); err != nil {
		return err
	}
	first, err := gw.open(ctx, eraLegacy)
	if err != nil {
		return err
	}
	tools, err := toolNames(ctx, first)
	if err != nil {
		return err
	}
	rest, retries, err := openSessions(ctx, gw, cfg.MemSessions-1)
	if err != nil {
		return err
	}
	r.add("mem.sessions.retries", "gateway", float64(retries))
	if err := spreadCalls(ctx, append([]*Session{first}, rest...), tools, cfg.MemCalls); err != nil {
		return err
	}
	after, err := ReadMem(gw.proc.PID)
	if err != nil {
		return err
	}
	r.add("mem.sessions.rss", "gateway", mib(after.RSS))
	r.add("mem.sessions.hwm", "gateway", mib(after.HWM))
	r.add("mem.sessions.anon", "gateway", mib(after.Anon))
	return gw.close()
}

// memoryIdle reads the idle daemon's memory, its keeper's (one per
// daemon), and its upstreams' (per server, from /health).
//
// The daemon is idle once it is ready, which startGateway waited for (the
// launcher exits 0 on the daemon's ready report: servers started, tool
// list built). What it does after that (its run group's actors start, the
// catalog watcher's first look and its 100 ms and 500 ms ticks) moved
// RssAnon by 0–32 KiB over the next 1.5 s, read every 2 ms, less than the
// figure moves from one repetition to the next, so there is nothing more
// to wait for. The daemon is read before /health is asked: serving that
// one request adds ~0.1 MiB of RssAnon.
func (r *runner) memoryIdle(g *Gateway) error {
	idle, err := ReadMem(g.PID)
	if err != nil {
		return err
	}
	r.add("mem.idle.rss", "gateway", mib(idle.RSS))
	r.add("mem.idle.hwm", "gateway", mib(idle.HWM))
	r.add("mem.idle.anon", "gateway", mib(idle.Anon))
	keeper, err := ReadMem(g.Keeper)
	if err != nil {
		return fmt.Errorf("read the keeper's memory: %w", err)
	}
	r.add("mem.keeper.rss", "gateway", mib(keeper.RSS))
	r.add("mem.keeper.anon", "gateway", mib(keeper.Anon))
	servers, _ := g.ServerPIDs()
	var upRSS float64
	for i := range servers {
		u, _ := ReadMem(g.upstreamPID(i))
		upRSS += mib(u.RSS) / float64(len(servers))
	}
	r.add("mem.upstream.rss", "gateway", upRSS)
	return nil
}

// openSessions opens n legacy sessions on e, up to 16 at once, and
// returns them with the number of 503s it retried.
func openSessions(ctx context.Context, e httpSide, n int) ([]*Session, int64, error) {
	o := &sessionOpener{e: e}
	o.returned.L = &o.mu
	sessions := make([]*Session, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sessions[i], errs[i] = o.open(ctx)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	return sessions, o.retries, nil
}

// sessionOpener opens legacy sessions from several goroutines, and
// retries a 503 once no other open is in flight.
//
// A 503 below the cap came from gateways before c8ba90a, whose cap
// counted a session twice from go-sdk's registering it until its
// initialize response started: with no initialize in flight (the client
// has seen every response start), none is counted twice. This tree's cap
// (aggregator/sessions.go) counts each session once, so a 503 from it
// means the cap is reached, and the retries end at once.
type sessionOpener struct {
	e        httpSide
	mu       sync.Mutex
	returned sync.Cond // broadcast when an open returns; L is &mu
	inFlight int       // opens sent and not yet answered
	retries  int64     // 503s retried
}

// maxOpenTries bounds the tries of one session's open.
const maxOpenTries = 51

func (o *sessionOpener) open(ctx context.Context) (*Session, error) {
	for try := 1; ; try++ {
		o.mu.Lock()
		o.inFlight++
		o.mu.Unlock()
		s, err := o.e.open(ctx, eraLegacy)
		o.mu.Lock()
		o.inFlight--
		o.returned.Broadcast()
		if err == nil || !strings.Contains(err.Error(), "HTTP 503") || try == maxOpenTries {
			o.mu.Unlock()
			return s, err
		}
		o.retries++
		for o.inFlight > 0 {
			o.returned.Wait()
		}
		o.mu.Unlock()
	}
}

// spreadCalls makes calls echo calls on each of sessions at once, each
// call to the next of tools, so that every server gets its share.
func spreadCalls(ctx context.Context, sessions []*Session, tools []string, calls int) error {
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range calls {
				tool := tools[(i+j)%len(tools)]
				params := []byte(`{"name":"` + tool + `","arguments":{"message":"hello"}}`)
				if errs[i] = echoed(sessions[i].Call(ctx, "tools/call", params)); errs[i] != nil {
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
	return nil
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

// memoryDefs are the rows of figure 4.
func (cfg Config) memoryDefs() []figDef {
	return []figDef{
		{"mem.idle.rss", fmt.Sprintf("Daemon VmRSS, idle, %d servers", cfg.MemServers), "MiB", nil, ""},
		{"mem.idle.hwm", fmt.Sprintf("Daemon VmHWM, idle, %d servers", cfg.MemServers), "MiB", nil, ""},
		{"mem.idle.anon", fmt.Sprintf("Daemon RssAnon, idle, %d servers", cfg.MemServers), "MiB", []target{{on: "gateway", max: true, limit: 4, text: "≤ 4 MiB"}},
			"VmRSS minus the mapped pages of the executable (RssFile), which every mcp-gateway process shares"},
		{"mem.sessions.rss", fmt.Sprintf("Daemon VmRSS after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", nil,
			"sessions opened at once and still open when measured"},
		{"mem.sessions.hwm", fmt.Sprintf("Daemon VmHWM after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", nil, ""},
		{"mem.sessions.anon", fmt.Sprintf("Daemon RssAnon after %d sessions × %d calls", cfg.MemSessions, cfg.MemCalls), "MiB", []target{{on: "gateway", max: true, limit: 24, text: "≤ 24 MiB"}}, ""},
		{"mem.sessions.retries", "503s retried while opening those sessions, 16 at a time", "count", nil,
			"a 503 below the cap: sessionCap counts a session twice while its initialize is in flight"},
		{"mem.keeper.rss", "Keeper VmRSS (not the daemon's)", "MiB", nil, "one `mcp-gateway __keeper` process per daemon, its parent"},
		{"mem.keeper.anon", "Keeper RssAnon: its own memory", "MiB", nil, "the rest of its VmRSS is the shared executable"},
		{"mem.upstream.rss", "Go echo VmRSS, per server", "MiB", nil, ""},
	}
}
