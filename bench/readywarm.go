package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// readyWarm is the warm figure: `mcp-gateway warm` of the pulled three
// (as a template runs it before its snapshot), then `mcp-gateway --config`
// of the same three, timed from its start to exit 0: it hands its config
// to the warm daemon, which adopts the three as they run (SPEC §2.9).
// The launch has MCP_GATEWAY_PORT in its environment, as an SDK's has,
// and the warm run has not: the gateway's own variables take no part in
// adoption (SPEC §2.9, §7.1; issue 33).
func (r *runner) readyWarm(ctx context.Context) error {
	p, err := r.pullServers(ctx)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(r.cfg.TempDir, "warm-")
	if err != nil {
		return err
	}
	warm := exec.CommandContext(ctx, r.cfg.Bin.Gateway, append(append([]string{"warm"}, p.warmArgs...), gatewayPaths(dir, p.servers)...)...)
	// The launch's code dir (off, LaunchGatewayWith): it is in the
	// servers' environment, which adoption compares (SPEC §7.1, §2.9).
	warm.Env = append(append(os.Environ(), CodeDirEnv+"=off"), r.cfg.GatewayEnv...)
	if out, err := warm.CombinedOutput(); err != nil {
		return fmt.Errorf("mcp-gateway warm: %v\n%s", err, out)
	}
	gw, err := r.startGatewayWith(ctx, p.config, LaunchOptions{Dir: dir, ServersDir: p.servers, Env: []string{"MCP_GATEWAY_PORT=0"}})
	if err != nil {
		return err
	}
	defer gw.close()
	log, _ := os.ReadFile(filepath.Join(dir, "gateway.log"))
	if !strings.Contains(string(log), `adopted=filesystem,memory,sequentialthinking starting=""`) {
		return fmt.Errorf("the warm daemon did not adopt the three servers:\n%s", tailFile(filepath.Join(dir, "gateway.log")))
	}
	r.add("ready.warm", "gateway", millis(gw.proc.Ready))
	return gw.close()
}

func (cfg Config) readyWarmDefs() []figDef {
	return []figDef{{"ready.warm", "Ready time after warm, the same three servers adopted", "ms",
		[]target{{on: "gateway", max: true, limit: 50, text: "≤ 50 ms"}},
		"`mcp-gateway warm` of the three pulled servers first (untimed); gateway: `mcp-gateway --config` start → exit 0, with MCP_GATEWAY_PORT in its environment, handing its config to the warm daemon; a cold start of the same three is ready.pulled"}}
}
