package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// runServe is `mcp-gateway serve`: the daemon in the foreground (SPEC §8.2),
// config from --config/--config-file, token from GATEWAY_ACCESS_TOKEN (or
// generated). This process is the daemon's keeper (proc.Keep), as the
// detached daemon's is: the daemon runs as its child, handed its config
// and token over a pipe, so that a kill -9 of the daemon still takes every
// server's tree down (SPEC §7.6). It prints the ready line, or the
// daemon's error, and returns once the daemon and all below it are gone,
// with the daemon's exit status. SIGTERM and SIGINT reach the daemon.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("serve", "Usage: mcp-gateway serve --config '<json>' | --config-file FILE [flags]\n\nRuns the gateway in the foreground (for debugging, containers and tests).", stderr)
	in, code, ok := parseDaemonInput(fs, args, stderr)
	if !ok {
		return code
	}
	token := tokenFromEnv(stderr)
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway: find own executable:", err)
		return 1
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway:", err)
		return 1
	}
	defer devnull.Close()
	handR, handW, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(stderr, "mcp-gateway: make hand-over pipe:", err)
		return 1
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		handR.Close()
		handW.Close()
		fmt.Fprintln(stderr, "mcp-gateway: make report pipe:", err)
		return 1
	}
	settings, _ := json.Marshal(in.settings)
	wrote := make(chan struct{})
	go func() { // joined below; the daemon reads it, or its end closes
		defer close(wrote)
		_ = ipc.WriteHandover(handW, ipc.Handover{Config: in.config, Token: token, Settings: settings})
	}()
	read := make(chan struct{})
	go func() { // joined below; it ends with the report pipe
		defer close(read)
		printReports(repR, in, stdout, stderr)
	}()
	closeTheirs := func() { handR.Close(); repW.Close() }
	code, err = proc.Keep([]string{self, daemonCommand}, supervisor.Environ(os.Environ(), nil), "/",
		[]*os.File{devnull, os.Stdout, os.Stderr, handR, repW}, func(int) { closeTheirs() })
	if err != nil {
		closeTheirs()
		fmt.Fprintln(stderr, "mcp-gateway:", err)
	}
	<-wrote
	<-read
	repR.Close()
	return code
}

// printReports prints the ready line on the daemon's ready report, or its
// error on a failed one.
func printReports(repR *os.File, in daemonInput, stdout, stderr io.Writer) {
	_ = ipc.ReadReports(repR, func(r ipc.Report) bool {
		switch r.Event {
		case ipc.EventReady:
			fmt.Fprintln(stdout, readyLine(r, len(in.servers), in.settings))
			return false
		case ipc.EventFailed:
			fmt.Fprintln(stderr, "mcp-gateway:", r.Error)
			return false
		}
		return true
	})
}
