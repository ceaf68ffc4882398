package main

// `mcp-gateway status` (SPEC §8.1): how the CLI prints the document the
// daemon sends (daemon.StatusDoc).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

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
	var doc daemon.StatusDoc
	if err := json.Unmarshal(resp.Status, &doc); err != nil {
		fmt.Fprintln(stderr, "mcp-gateway: status: decode the daemon's answer:", err)
		return 1
	}
	printStatus(stdout, doc)
	return 0
}

func printStatus(w io.Writer, doc daemon.StatusDoc) {
	endpoint := "http://" + daemon.DisplayAddr(doc.Addr) + "/mcp"
	if doc.Status == daemon.StatusWarm {
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
func exported(doc daemon.StatusDoc, n, offered int) string {
	if doc.Status == daemon.StatusWarm || n == offered {
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
