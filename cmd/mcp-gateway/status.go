package main

// `mcp-gateway status` (SPEC §8.1): the document the daemon sends and how
// the CLI prints it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

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
	CodeDir       string         `json:"codeDir,omitempty"` // the code API (SPEC §12); "" when off
}

type serverStatus struct {
	aggregator.ServerHealth
	UptimeSeconds int64 `json:"uptimeSeconds,omitempty"`
}

// statusWarm is the status of a warm daemon (SPEC §2.9): its servers run,
// it has no config, no port and no token yet.
const statusWarm = "warm"

func (d *daemon) status(gw *aggregator.Gateway, addr string) statusDoc {
	return d.statusOf(gw.Health(), addr)
}

// statusOf is the status document of health, the daemon listening on
// addr ("" for none).
func (d *daemon) statusOf(h aggregator.Health, addr string) statusDoc {
	if addr != "" {
		addr = displayAddr(addr)
	}
	doc := statusDoc{
		Health: h, Servers: []serverStatus{}, PID: os.Getpid(), Version: version, Addr: addr,
		StartedAt: d.started, UptimeSeconds: int64(time.Since(d.started).Seconds()),
		CatalogFile: d.settings.CatalogFile, LogFile: d.settings.LogFile,
	}
	if addr != "" { // a warm daemon writes none yet
		doc.CodeDir = d.settings.CodeDir
	}
	doc.Health.Servers = nil
	for _, st := range h.Servers {
		s := serverStatus{ServerHealth: st}
		if !st.StartedAt.IsZero() {
			s.UptimeSeconds = int64(time.Since(st.StartedAt).Seconds())
		}
		doc.Servers = append(doc.Servers, s)
	}
	return doc
}

// runStatus is `mcp-gateway status` (SPEC §8.1).
func runStatus(args []string, stdout, stderr io.Writer) int {
	resp, asJSON, code, ok := askDaemon(args, stderr, ipc.CmdStatus, "Usage: mcp-gateway status [--json] [--run-dir DIR]\n\nShows the running gateway and its servers: state, pid, uptime, restarts, last exit, last error, their tools, prompts, resources and resource templates, and calls. Exits 1 if no gateway is running.", "print the status document as JSON", statusTimeout)
	if !ok {
		return code
	}
	if asJSON {
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
	endpoint := "http://" + displayAddr(doc.Addr) + "/mcp"
	if doc.Status == statusWarm {
		endpoint = "no endpoint until `mcp-gateway --config` hands it a config"
	}
	fmt.Fprintf(w, "mcp-gateway %s: %s, pid %d, up %s, %s, %s, %s\n",
		doc.Version, doc.Status, doc.PID, duration(doc.UptimeSeconds), endpoint, count(doc.ServerCount, "server"), count(doc.ToolCount, "tool"))
	code := ""
	if doc.CodeDir != "" {
		code = "; code API " + doc.CodeDir
	}
	fmt.Fprintf(w, "catalog file %s; log %s%s\n\n", doc.CatalogFile, doc.LogFile, code)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tPID\tUPTIME\tPROTOCOL\tRESTARTS\tTOOLS\tPROMPTS\tRESOURCES\tTEMPLATES\tCALLS\tLAST EXIT\tLAST ERROR")
	for _, s := range doc.Servers {
		pid, up := "-", "-"
		if s.PID > 0 {
			pid = fmt.Sprint(s.PID)
		}
		if !s.StartedAt.IsZero() {
			up = duration(s.UptimeSeconds) // an HTTP server without a command has no pid
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\n", s.Name, s.State, pid, up, protocol(s.Status), s.Restarts,
			exported(doc, s.ToolsExported, s.Tools), exported(doc, s.PromptsExported, s.Prompts), s.Resources, s.Templates, s.Calls,
			orDash(s.LastExit), orDash(oneLine(s.LastError, 80)))
	}
	tw.Flush()
	for _, s := range doc.Servers {
		for _, u := range s.Unmatched {
			fmt.Fprintf(w, "warning: %s: %s\n", s.Name, u)
		}
	}
}

// exported shows how many of a server's offered tools (or prompts) the
// gateway exports, "9 of 11", where the entry's choice or the naming
// left some out (SPEC §4.9); the count alone where it exports them all.
// A warm daemon exports nothing yet: it shows what the servers offer.
func exported(doc statusDoc, n, offered int) string {
	if doc.Status == statusWarm || n == offered {
		return fmt.Sprint(offered)
	}
	return fmt.Sprintf("%d of %d", n, offered)
}

// protocol shows a server's protocol version with its era (SPEC §7.8),
// "2026-07-28 (modern)", and how it is reached when that is not stdio,
// "2025-11-25 (legacy, streamable-http)"; the era alone while the server
// is not running.
func protocol(st supervisor.Status) string {
	switch {
	case st.Protocol != "" && st.Era != "" && st.Transport != "" && st.Transport != "stdio":
		return st.Protocol + " (" + st.Era + ", " + st.Transport + ")"
	case st.Protocol != "" && st.Era != "":
		return st.Protocol + " (" + st.Era + ")"
	case st.Protocol != "":
		return st.Protocol
	}
	return orDash(st.Era)
}
