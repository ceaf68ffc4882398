package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usageText = `mcp-gateway serves the tools, prompts and resources of MCP servers (stdio
and HTTP) on one MCP endpoint.

Usage:
  mcp-gateway --config '<json>' [flags]   start the daemon; exit 0 once it is ready
  mcp-gateway --config-file FILE [flags]  the same, config read from FILE
  mcp-gateway serve [flags]               run the daemon in the foreground
  mcp-gateway catalog [--json]            list the catalog servers
  mcp-gateway pull <server>...            pre-install servers (template builds)
  mcp-gateway warm <server>...            start them warm, for a template snapshot; --config hands over
  mcp-gateway status [--json]             show the running gateway and its servers
  mcp-gateway stop                        stop the running gateway and wait until it is gone
  mcp-gateway reload                      re-read the catalog file now; print what changed
  mcp-gateway code --out DIR              write the running gateway's tools as Python and JS code into DIR
  mcp-gateway version                     print the version

Run 'mcp-gateway <command> --help' for a command's flags.
`

// Main runs the CLI with args (without the program name) and returns the
// exit status: 0 success, 1 failure, 2 bad usage.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if run, ok := commands[args[0]]; ok {
			return run(args[1:], stdout, stderr)
		}
		switch args[0] {
		case "version", "--version", "-version":
			fs := newFlagSet("version", "Usage: mcp-gateway version\n\nPrints the version.", stderr)
			if code, ok := parseFlags(fs, args[1:]); !ok {
				return code
			}
			fmt.Fprintln(stdout, "mcp-gateway", version)
			return 0
		case daemonCommand:
			return daemon.Main(stderr, version)
		case proc.KeeperCommand:
			return runKeeper(stderr)
		case "help", "-h", "--help", "-help":
			fmt.Fprint(stdout, usageText+"\nThe launcher's flags:\n\n")
			return runLaunch([]string{"--help"}, stdout, stdout)
		}
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(stderr, "mcp-gateway: unknown command %q\n\n%s", args[0], usageText)
			return 2
		}
	}
	return runLaunch(args, stdout, stderr)
}

// commands are the subcommands that take their flags after the name.
var commands = map[string]func(args []string, stdout, stderr io.Writer) int{
	"serve":   runServe,
	"catalog": runCatalog,
	"pull":    runPull,
	"warm":    runWarm,
	"status":  runStatus,
	"stop":    runStop,
	"reload":  runReload,
	"code":    runCode,
}
