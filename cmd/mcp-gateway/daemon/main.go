package daemon

// The daemon process's entry point: what arrives on its pipes.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/mcp-gateway/mcp-gateway/ipc"
)

// Main is the daemon process's entry point (`mcp-gateway __daemon`, the
// keeper's child, SPEC §2.6): it reads its config, token and settings on
// the hand-over pipe, reports on the report pipe, and runs until it
// stops. version is the gateway's, for initialize, status and telemetry.
func Main(stderr io.Writer, version string) int {
	hand := os.NewFile(ipc.HandoverFD, "handover")
	repw := os.NewFile(ipc.ReportFD, "report")
	if hand == nil || repw == nil {
		fmt.Fprintln(stderr, "mcp-gateway: this command is internal; use mcp-gateway --config")
		return 2
	}
	// Inherited without close-on-exec: set it, or every server started
	// before the ready report would hold the report pipe (and could write
	// a report of its own to the launcher).
	syscall.CloseOnExec(ipc.HandoverFD)
	syscall.CloseOnExec(ipc.ReportFD)
	report := ipc.NewReporter(repw)
	// The first report gives the launcher the daemon's pid: its child is
	// the keeper, and the daemon is what it may have to kill.
	report.Send(ipc.Report{Event: ipc.EventProgress, Message: "daemon started", PID: os.Getpid()})
	h, err := ipc.ReadHandover(hand)
	hand.Close()
	if err != nil {
		report.Send(ipc.Report{Event: ipc.EventFailed, Error: err.Error()})
		return 1
	}
	var s Settings
	if err := json.Unmarshal(h.Settings, &s); err != nil {
		report.Send(ipc.Report{Event: ipc.EventFailed, Error: "decode settings: " + err.Error()})
		return 1
	}
	d := &daemon{settings: s, config: h.Config, token: h.Token, warm: h.Warm, report: report, version: version}
	if err := d.run(); err != nil {
		return 1
	}
	return 0
}
