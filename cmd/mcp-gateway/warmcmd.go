package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/internal/jsonobj"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

const warmSynopsis = `Usage: mcp-gateway warm [flags] <server>...

Starts a warm gateway, for a template whose sandboxes start from a memory
snapshot (SPEC §2.9): a daemon with these catalog servers running and
initialised, which listens on no port and holds no token, and exits 0 once
they run. Take the snapshot after that. In each sandbox made from it,
'mcp-gateway --config' hands the warm daemon its config and token: every
server whose launch spec and environment equal a warm one's is kept as it
runs, the other warm ones are stopped, the rest start. --config or
--config-file gives servers that take properties, e.g.
  mcp-gateway warm memory --config '{"filesystem": {"paths": ["/data"]}}'
The paths, --startup-timeout, --memory-budget and --log-share are the warm
daemon's (a launch with another log file or memory budget is refused);
the endpoint's own flags (--port, --listen, --allowed-origins, …) are
those of the launch that hands it a config. Flags may come before or
after the names.`

// runWarm is `mcp-gateway warm <server>...` (SPEC §2.9).
func runWarm(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("warm", warmSynopsis, stderr)
	inline := fs.String("config", "", "more servers, as a config: JSON keyed by catalog name")
	file := fs.String("config-file", "", "read those from this file")
	sf := addSettingsFlags(fs, true)
	names, code, ok := parseInterleaved(fs, args)
	if !ok {
		return code
	}
	s, err := sf.resolve()
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 2
	}
	config, err := warmConfig(names, *inline, *file)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return configExit(err)
	}
	servers, warnings, _, err := daemon.Resolve(s, config, nil)
	if err != nil {
		printResolveError(stderr, err)
		return 1
	}
	printWarnings(stderr, warnings)
	if pid := ipc.Running(s.RunDir); pid != 0 {
		fmt.Fprintln(stderr, "mcp-gateway:", &ipc.RunningError{PID: pid, RunDir: s.RunDir})
		return 1
	}
	if _, set := os.LookupEnv(supervisor.TokenEnv); set {
		fmt.Fprintln(stderr, "mcp-gateway: warning: "+supervisor.TokenEnv+" is ignored: a warm gateway holds no token; the launch that hands it a config brings one")
	}
	rep, err := startDaemon(s, ipc.Handover{Config: config, Warm: true})
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	fmt.Fprintf(stdout, "mcp-gateway: warm (pid %d, %s, %s; no port, no token until `mcp-gateway --config`; run dir %s; log in %s)\n",
		rep.PID, count(len(servers), "server"), count(rep.Tools, "tool"), s.RunDir, s.LogFile)
	return 0
}

// warmConfig is the config of a warm daemon: the servers named, each
// with no properties, and those of --config or --config-file.
func warmConfig(names []string, inline, file string) ([]byte, error) {
	entries := map[string]json.RawMessage{}
	if inline != "" || file != "" {
		doc, err := readConfig(inline, file)
		if err != nil {
			return nil, err
		}
		if entries, err = jsonobj.Decode(bytes.TrimSpace(doc)); err != nil {
			return nil, fmt.Errorf("parse --config: %w", err)
		}
	}
	for _, n := range names {
		if _, dup := entries[n]; dup {
			return nil, usageError(fmt.Sprintf("server %q is named, and given in --config: give it once", n))
		}
		entries[n] = json.RawMessage(`{}`)
	}
	if len(entries) == 0 {
		return nil, usageError("warm: name at least one server, e.g. 'mcp-gateway warm memory'")
	}
	return json.Marshal(entries)
}
