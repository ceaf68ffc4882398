package main

// Catalog hot reload (SPEC §6.3) and the control commands status, stop and
// reload (SPEC §8): the daemon's side (the reloader, the control handler
// and their run.Group actors) and the CLI's.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/oklog/run"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/adapters/plugin"
	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// Client-side bounds of the control commands.
const (
	statusTimeout = 5 * time.Second
	// reloadTimeout covers the drain and a restart's start.
	reloadTimeout = supervisor.DefaultDrain + supervisor.DefaultStartTimeout + 15*time.Second
	// stopTimeout covers the daemon's shutdown: HTTP drain, then the
	// servers' stop sequence.
	stopTimeout = 30 * time.Second
)

// addControlActors adds the catalog watcher and the control socket to g.
// Add them after the supervisor: their interrupts wait for a reload in
// progress, and the supervisor's interrupt is what cuts a restart's start
// short.
func (d *daemon) addControlActors(g *run.Group, ctl *ipc.ControlServer, sup *supervisor.Supervisor, gw *aggregator.Gateway, logger *slog.Logger, addr string) {
	rl := newReloader(d.settings, d.config, d.cat, sup, gw, logger)
	rl.adapterLog = d.log

	watchCtx, watchCancel := context.WithCancel(context.Background())
	trigger := triggerStart // the first call catches up with the start
	w := &catalog.Watcher{
		Path:          d.settings.CatalogFile,
		Logger:        logger,
		NotifyAtStart: true,
		OnChange: func() {
			_, _ = rl.reload(watchCtx, trigger) // logged there
			trigger = "catalog file changed"
		},
	}
	g.Add(func() error { return w.Run(watchCtx) }, func(error) { watchCancel() })

	// SIGHUP reloads, as daemons conventionally do; by default it would
	// kill the daemon without a word, and logrotate configurations send
	// it. Registered now, before readiness, so that none is missed.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	hupCtx, hupCancel := context.WithCancel(context.Background())
	g.Add(func() error {
		defer signal.Stop(hup)
		for {
			select {
			case <-hupCtx.Done():
				return nil
			case <-hup:
				logger.Info("SIGHUP: reloading the catalog")
				_, _ = rl.reload(hupCtx, triggerSignal) // logged there
			}
		}
	}, func(error) { hupCancel() })

	handle := func(ctx context.Context, req ipc.Request) ipc.Response {
		switch req.Cmd {
		case ipc.CmdStatus:
			b, err := json.Marshal(d.status(gw, addr, d.started))
			if err != nil {
				return ipc.Response{Error: "encode status: " + err.Error()}
			}
			return ipc.Response{OK: true, Status: b}
		case ipc.CmdStop:
			logger.Info("stopping: requested with mcp-gateway stop")
			return ipc.Response{OK: true, PID: os.Getpid()}
		case ipc.CmdReload:
			res, err := rl.reload(ctx, triggerCommand)
			if err != nil {
				return ipc.Response{Error: err.Error()}
			}
			return ipc.Response{OK: true, Reload: res}
		}
		return ipc.Response{Error: fmt.Sprintf("unknown command %q; want status, stop or reload", req.Cmd)}
	}
	g.Add(func() error {
		if err := ctl.Serve(handle); !errors.Is(err, ipc.ErrStopRequested) {
			return err
		}
		return nil // stop: end the group, as SIGTERM does
	}, func(error) { ctl.Close() })
}

// triggerStart is the reload the watcher makes as it starts, to catch up
// with a change to the file made while the servers were starting; it is
// logged only if it changed something.
const triggerStart = "changed while the gateway started"

// triggerCommand is an operator's `mcp-gateway reload`: it always resolves
// every server again, re-running the external adapters too.
const triggerCommand = "mcp-gateway reload"

// triggerSignal is a SIGHUP, which reloads as `mcp-gateway reload` does.
const triggerSignal = "SIGHUP"

// reloader re-reads the catalog and applies it to the running servers.
// One reload runs at a time, whether the watcher or `reload` asked.
type reloader struct {
	settings Settings
	config   map[string]json.RawMessage
	sup      *supervisor.Supervisor
	gw       *aggregator.Gateway
	log      *slog.Logger
	// adapterLog receives external adapters' output ([adapter:<file>]).
	adapterLog plugin.Log

	mu  sync.Mutex
	cat *catalog.Catalog // the last good catalog
}

// newReloader starts from cat, the catalog the servers were resolved
// against, so that the watcher's first look catches up with any change
// made while they started.
func newReloader(s Settings, config []byte, cat *catalog.Catalog, sup *supervisor.Supervisor, gw *aggregator.Gateway, log *slog.Logger) *reloader {
	r := &reloader{settings: s, sup: sup, gw: gw, log: log, cat: cat}
	// The config was validated at start; this cannot fail.
	_ = json.Unmarshal(config, &r.config)
	return r
}

// reload loads the catalog file. If it is invalid, it logs why and changes
// nothing (the last good catalog stays). Otherwise it resolves every
// configured server again, one key at a time, and restarts gracefully
// those whose launch spec changed; a key that no longer resolves (its
// entry gone from the file, and no built-in one) keeps its running server
// on its last spec, with a warning. The aggregated tool list is then
// rebuilt, which notifies clients once if it changed (SPEC §4.5).
func (r *reloader) reload(ctx context.Context, trigger string) (*ipc.ReloadResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cat, err := catalog.Load(r.settings.CatalogFile)
	if err != nil {
		r.log.Error("catalog reload failed; the last good catalog stays in force", "trigger", trigger, "error", err)
		return nil, fmt.Errorf("reload catalog (the last good catalog stays in force): %w", err)
	}
	res := &ipc.ReloadResult{}
	res.Added, res.Removed, res.Changed = diffCatalogs(r.cat, cat)
	r.cat = cat
	if trigger != triggerCommand && trigger != triggerSignal && len(res.Added)+len(res.Removed)+len(res.Changed) == 0 {
		// The file was touched but no entry changed, so no catalog spec
		// can have; only an operator's reload re-runs the adapters.
		return res, nil
	}

	list, closeAll, err := adapterList(r.settings, cat, r.adapterLog)
	if err != nil {
		r.log.Error("catalog reload failed: external adapters", "trigger", trigger, "error", err)
		return nil, err
	}
	defer closeAll()
	specs := map[string]adapters.LaunchSpec{}
	for _, u := range r.sup.Upstreams() {
		name := u.Name()
		doc, err := json.Marshal(map[string]json.RawMessage{name: r.config[name]})
		if err != nil {
			continue
		}
		servers, _, err := adapters.Parse(doc, list)
		if err == nil && len(servers) != 1 {
			err = errors.New("resolved to nothing")
		}
		if err != nil {
			res.Kept = append(res.Kept, ipc.ServerError{Server: name, Error: err.Error()})
			r.log.Warn("server no longer resolves against the catalog; it keeps running on its last command", "server", name, "error", err)
			continue
		}
		specs[name] = servers[0].Spec
	}
	for _, up := range r.sup.Reload(ctx, specs, supervisor.DefaultDrain) {
		if !up.Changed {
			continue
		}
		res.Updated = append(res.Updated, up.Server)
		if up.Restarted {
			res.Restarted = append(res.Restarted, up.Server)
		}
		if up.Err != nil { // logged by the supervisor
			res.Failed = append(res.Failed, ipc.ServerError{Server: up.Server, Error: up.Err.Error()})
		}
	}
	r.gw.Rebuild()

	attrs := []any{"trigger", trigger}
	for _, f := range []struct {
		key   string
		names []string
	}{{"added", res.Added}, {"removed", res.Removed}, {"changed", res.Changed}, {"updated", res.Updated}, {"restarted", res.Restarted}, {"failed", serverNames(res.Failed)}, {"kept", serverNames(res.Kept)}} {
		if len(f.names) > 0 {
			attrs = append(attrs, f.key, strings.Join(f.names, ","))
		}
	}
	if len(attrs) == 2 {
		if trigger == triggerStart {
			return res, nil // the usual case: nothing to catch up with
		}
		attrs = append(attrs, "changes", "none")
	}
	r.log.Info("catalog reloaded", attrs...)
	return res, nil
}

func serverNames(errs []ipc.ServerError) []string {
	var names []string
	for _, e := range errs {
		names = append(names, e.Server)
	}
	return names
}

// diffCatalogs names the entries added, removed and changed from a to b.
func diffCatalogs(a, b *catalog.Catalog) (added, removed, changed []string) {
	for _, n := range b.Names() {
		eb, _ := b.Lookup(n)
		ea, ok := a.Lookup(n)
		switch {
		case !ok:
			added = append(added, n)
		case entryKey(ea) != entryKey(eb):
			changed = append(changed, n)
		}
	}
	for _, n := range a.Names() {
		if _, ok := b.Lookup(n); !ok {
			removed = append(removed, n)
		}
	}
	return added, removed, changed
}

func entryKey(e *catalog.Entry) string {
	b, _ := json.Marshal(e) // map keys sorted: deterministic
	return string(e.Source) + " " + string(b)
}

// statusDoc is what `status` shows: the /health document (SPEC §3.3) with
// each server's uptime, plus the daemon's own facts. Servers shadows the
// embedded Health.Servers.
type statusDoc struct {
	aggregator.Health
	Servers       []serverStatus `json:"servers"`
	PID           int            `json:"pid"`
	Version       string         `json:"version"`
	Addr          string         `json:"addr"`
	StartedAt     time.Time      `json:"startedAt"`
	UptimeSeconds int64          `json:"uptimeSeconds"`
	CatalogFile   string         `json:"catalogFile"`
	LogFile       string         `json:"logFile"`
}

type serverStatus struct {
	supervisor.Status
	UptimeSeconds int64 `json:"uptimeSeconds,omitempty"`
}

func (d *daemon) status(gw *aggregator.Gateway, addr string, started time.Time) statusDoc {
	h := gw.Health()
	doc := statusDoc{
		Health: h, Servers: []serverStatus{}, PID: os.Getpid(), Version: version, Addr: displayAddr(addr),
		StartedAt: started, UptimeSeconds: int64(time.Since(started).Seconds()),
		CatalogFile: d.settings.CatalogFile, LogFile: d.settings.LogFile,
	}
	doc.Health.Servers = nil
	for _, st := range h.Servers {
		s := serverStatus{Status: st}
		if !st.StartedAt.IsZero() {
			s.UptimeSeconds = int64(time.Since(st.StartedAt).Seconds())
		}
		doc.Servers = append(doc.Servers, s)
	}
	return doc
}

// runStatus is `mcp-gateway status` (SPEC §8.1).
func runStatus(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("status", "Usage: mcp-gateway status [--json] [--run-dir DIR]\n\nShows the running gateway and its servers: state, pid, uptime, restarts, last exit, last error, tools and calls. Exits 1 if no gateway is running.", stderr)
	asJSON := fs.Bool("json", false, "print the status document as JSON")
	sf := addSettingsFlags(fs, false)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
	defer cancel()
	resp, err := ipc.Control(ctx, sf.s.RunDir, ipc.Request{Cmd: ipc.CmdStatus})
	if err != nil {
		return controlFailed(stderr, "status", sf.s.RunDir, err)
	}
	if *asJSON {
		var out bytes.Buffer
		if err := json.Indent(&out, resp.Status, "", "  "); err != nil {
			fmt.Fprintln(stderr, "mcp-gateway: status: the daemon sent invalid JSON:", err)
			return 1
		}
		fmt.Fprintln(stdout, out.String())
		return 0
	}
	var doc statusDoc
	if err := json.Unmarshal(resp.Status, &doc); err != nil {
		fmt.Fprintln(stderr, "mcp-gateway: status: decode the daemon's answer:", err)
		return 1
	}
	printStatus(stdout, doc)
	return 0
}

func printStatus(w io.Writer, doc statusDoc) {
	fmt.Fprintf(w, "mcp-gateway %s: %s, pid %d, up %s, http://%s/mcp, %s, %s\n",
		doc.Version, doc.Status, doc.PID, duration(doc.UptimeSeconds), displayAddr(doc.Addr), count(doc.ServerCount, "server"), count(doc.ToolCount, "tool"))
	fmt.Fprintf(w, "catalog file %s; log %s\n\n", doc.CatalogFile, doc.LogFile)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tPID\tUPTIME\tPROTOCOL\tRESTARTS\tTOOLS\tCALLS\tLAST EXIT\tLAST ERROR")
	for _, s := range doc.Servers {
		pid, up := "-", "-"
		if s.PID > 0 {
			pid, up = fmt.Sprint(s.PID), duration(s.UptimeSeconds)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", s.Name, s.State, pid, up, protocol(s.Status), s.Restarts, s.Tools, s.Calls,
			orDash(s.LastExit), orDash(oneLine(s.LastError, 80)))
	}
	tw.Flush()
}

// runStop is `mcp-gateway stop`: the daemon shuts down as on SIGTERM, and
// stop returns once it is gone.
func runStop(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("stop", "Usage: mcp-gateway stop [--run-dir DIR]\n\nStops the running gateway (as SIGTERM does: in-flight calls finish briefly, then every server is stopped) and waits until it is gone. Exits 1 if no gateway was running.", stderr)
	sf := addSettingsFlags(fs, false)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	runDir := sf.s.RunDir
	ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
	defer cancel()
	resp, err := ipc.Control(ctx, runDir, ipc.Request{Cmd: ipc.CmdStop})
	pid := resp.PID
	if err != nil {
		if !errors.Is(err, ipc.ErrNoDaemon) {
			return controlFailed(stderr, "stop", runDir, err)
		}
		// No control socket: a daemon still starting, or none.
		pid = ipc.Running(runDir)
		if pid == 0 {
			fmt.Fprintf(stderr, "mcp-gateway: no gateway is running (nothing holds %s)\n", runDir)
			return 1
		}
		if pid < 0 {
			fmt.Fprintf(stderr, "mcp-gateway: a gateway holds %s but its pid file is unreadable and it does not answer on its control socket\n", runDir)
			return 1
		}
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			fmt.Fprintf(stderr, "mcp-gateway: stop the gateway (pid %d): %v\n", pid, err)
			return 1
		}
	}
	deadline := time.Now().Add(stopTimeout)
	for !ipc.Gone(pid) || ipc.Running(runDir) == pid {
		if time.Now().After(deadline) {
			fmt.Fprintf(stderr, "mcp-gateway: the gateway (pid %d) is still stopping after %s; see its log\n", pid, stopTimeout)
			return 1
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Fprintf(stdout, "mcp-gateway: stopped (pid %d)\n", pid)
	return 0
}

// runReload is `mcp-gateway reload`: re-read the catalog file now.
func runReload(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("reload", "Usage: mcp-gateway reload [--json] [--run-dir DIR]\n\nMakes the running gateway re-read its catalog file now (it also does so by itself when the file changes), restarts the servers whose command or environment changed, and prints what changed. Exits 1 if the file is invalid (the last good catalog stays), a restart failed, or no gateway is running.", stderr)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	sf := addSettingsFlags(fs, false)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), reloadTimeout)
	defer cancel()
	resp, err := ipc.Control(ctx, sf.s.RunDir, ipc.Request{Cmd: ipc.CmdReload})
	if err != nil {
		return controlFailed(stderr, "reload", sf.s.RunDir, err)
	}
	res := resp.Reload
	if res == nil {
		res = &ipc.ReloadResult{}
	}
	if *asJSON {
		res.Normalize()
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(res)
	} else {
		printReload(stdout, res)
	}
	if len(res.Failed) > 0 {
		return 1
	}
	return 0
}

func printReload(w io.Writer, res *ipc.ReloadResult) {
	if len(res.Added)+len(res.Removed)+len(res.Changed) == 0 {
		fmt.Fprintln(w, "catalog: no entry changed")
	} else {
		fmt.Fprintf(w, "catalog: added %s; removed %s; changed %s\n", list(res.Added), list(res.Removed), list(res.Changed))
	}
	if len(res.Updated) == 0 {
		fmt.Fprintln(w, "servers: no command or environment changed; nothing restarted")
	}
	for _, name := range res.Updated {
		switch {
		case slices.Contains(res.Restarted, name):
			fmt.Fprintf(w, "restarted %s: its command or environment changed\n", name)
		case slices.ContainsFunc(res.Failed, func(e ipc.ServerError) bool { return e.Server == name }):
		default:
			fmt.Fprintf(w, "updated %s: its command or environment changed; it was not running and starts with the new one on its next call\n", name)
		}
	}
	for _, f := range res.Failed {
		fmt.Fprintf(w, "FAILED to restart: %s\n", f.Error) // the error names the server
	}
	for _, k := range res.Kept {
		fmt.Fprintf(w, "warning: kept running on its last command: %s\n", oneLine(k.Error, 200)) // the error names the server
	}
}

// controlFailed prints why a control command failed and returns 1.
func controlFailed(stderr io.Writer, cmd, runDir string, err error) int {
	if errors.Is(err, ipc.ErrNoDaemon) {
		switch pid := ipc.Running(runDir); {
		case pid > 0:
			fmt.Fprintf(stderr, "mcp-gateway: %s: the gateway (pid %d) does not answer on its control socket; it may be starting or stopping\n", cmd, pid)
		case pid < 0:
			fmt.Fprintf(stderr, "mcp-gateway: %s: a gateway holds %s but does not answer on its control socket\n", cmd, runDir)
		default:
			fmt.Fprintf(stderr, "mcp-gateway: %s: no gateway is running (nothing holds %s)\n", cmd, runDir)
		}
		return 1
	}
	fmt.Fprintf(stderr, "mcp-gateway: %s: %v\n", cmd, err)
	return 1
}

func duration(seconds int64) string {
	return (time.Duration(seconds) * time.Second).String()
}

// protocol shows a server's protocol version with its era (SPEC §7.8),
// "2026-07-28 (modern)"; the era alone while the server is not running.
func protocol(st supervisor.Status) string {
	switch {
	case st.Protocol != "" && st.Era != "":
		return st.Protocol + " (" + st.Era + ")"
	case st.Protocol != "":
		return st.Protocol
	}
	return orDash(st.Era)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func list(names []string) string {
	if len(names) == 0 {
		return "-"
	}
	return strings.Join(names, ", ")
}

// oneLine keeps the first line of s, cut to n runes.
func oneLine(s string, n int) string {
	s, _, cut := strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	} else if cut {
		return s + " …"
	}
	return s
}
