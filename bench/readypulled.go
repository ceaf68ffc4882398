package bench

import (
	"context"
	"os/exec"
)

// offlinePrefix runs a command in a network namespace of its own with no
// network at all (loopback down): a sandbox whose egress rules block the
// registry, where a registry lookup fails.
var offlinePrefix = []string{"unshare", "-n"}

// readyPulled is the pulled figures: `mcp-gateway --config` of memory,
// sequentialthinking and filesystem after `mcp-gateway pull` (their
// packages started from the servers dir, no npx), against the same three
// installs started directly with node in parallel; online, and with both
// sides in a network namespace without network (skipped where none can
// be made: unshare -n needs root).
func (r *runner) readyPulled(ctx context.Context) error {
	p, err := r.pullServers(ctx)
	if err != nil {
		return err
	}
	for _, v := range []struct {
		id     string
		prefix []string
	}{{"ready.pulled", nil}, {"ready.pulled.offline", offlinePrefix}} {
		if v.prefix != nil && exec.Command(v.prefix[0], append(v.prefix[1:], "true")...).Run() != nil {
			r.logf("%s skipped: no network namespace here (unshare -n needs root)", v.id)
			continue
		}
		slowest, err := readyDirectArgv(ctx, p.direct, v.prefix)
		if err != nil {
			return err
		}
		gw, err := r.startGatewayWith(ctx, p.config, LaunchOptions{ServersDir: p.servers, Prefix: v.prefix})
		if err != nil {
			return err
		}
		if err := gw.close(); err != nil {
			return err
		}
		r.add(v.id, "direct", millis(slowest))
		r.add(v.id, "gateway", millis(gw.proc.Ready))
	}
	return nil
}

func (cfg Config) readyPulledDefs() []figDef {
	note := "direct: the three pulled installs started with node in parallel, spawn → tools/list answered, the slowest; gateway: `mcp-gateway --config` start → exit 0, the same installs started from the servers dir"
	target := []target{{on: "ratio", max: true, limit: 1.15, text: "≤ 1.15× the same servers started with node"}}
	return []figDef{
		{"ready.pulled", "Ready time, memory + sequentialthinking + filesystem after pull", "ms", target, note},
		{"ready.pulled.offline", "Ready time, the same, without network (unshare -n)", "ms", target, note + "; both sides in a network namespace with no network"},
	}
}
