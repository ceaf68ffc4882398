package bench

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// ready is figure 3: `mcp-gateway --config` with n fake servers that each
// take StartDelay to answer initialize (launcher start → exit 0), against
// the slowest of n such servers spawned directly in parallel
// (spawn → initialize response).
func (r *runner) ready(ctx context.Context) error {
	cfg := r.cfg
	argv := []string{cfg.Bin.Echo, "--start-delay", cfg.StartDelay.String()}
	for _, n := range cfg.ReadyServers {
		slowest, err := readyDirect(ctx, argv, n)
		if err != nil {
			return err
		}
		servers := map[string]string{}
		for i := range n {
			servers[fmt.Sprintf("s%d", i+1)] = runCmd(argv)
		}
		gw, err := r.startGateway(ctx, servers)
		if err != nil {
			return err
		}
		if err := gw.close(); err != nil {
			return err
		}
		id := fmt.Sprintf("ready.%d", n)
		r.add(id, "direct", millis(slowest))
		r.add(id, "gateway", millis(gw.proc.Ready))
	}
	return nil
}

// readyDirect spawns n servers argv in parallel and returns the slowest
// one's time from spawn to its initialize response.
func readyDirect(ctx context.Context, argv []string, n int) (time.Duration, error) {
	times := make([]time.Duration, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := StartStdio(argv)
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close()
			at, err := c.Initialize(ctx)
			times[i], errs[i] = at.Sub(c.Started()), err
		}()
	}
	wg.Wait()
	slowest := time.Duration(0)
	for i := range n {
		if errs[i] != nil {
			return 0, errs[i]
		}
		slowest = max(slowest, times[i])
	}
	return slowest, nil
}

// readyDefs are the rows of figure 3, one per ReadyServers; the target is
// judged on the last.
func (cfg Config) readyDefs() []figDef {
	var defs []figDef
	for i, s := range cfg.ReadyServers {
		d := figDef{fmt.Sprintf("ready.%d", s), fmt.Sprintf("Ready time, %d server(s) with a %s start delay", s, cfg.StartDelay), "ms", nil,
			"direct: slowest of the servers spawned in parallel, spawn → initialize response; gateway: `mcp-gateway --config` start → exit 0"}
		if i == len(cfg.ReadyServers)-1 {
			d.ts = []target{{on: "diff", max: true, limit: 50, text: "≤ slowest server + 50 ms"}}
		}
		defs = append(defs, d)
	}
	return defs
}
