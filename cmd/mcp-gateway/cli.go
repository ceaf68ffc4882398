package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/cmd/mcp-gateway/daemon"
	"github.com/mcp-gateway/mcp-gateway/internal/boundedfile"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

const usage = `mcp-gateway serves the tools, prompts and resources of MCP servers (stdio
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
			fmt.Fprint(stdout, usage+"\nThe launcher's flags:\n\n")
			return runLaunch([]string{"--help"}, stdout, stdout)
		}
		if !strings.HasPrefix(args[0], "-") {
			fmt.Fprintf(stderr, "mcp-gateway: unknown command %q\n\n%s", args[0], usage)
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

// newFlagSet returns a FlagSet that prints its usage to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses and maps errors to an exit status (0 for --help).
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}

// usageError is a readConfig error that is bad usage (exit 2); the
// others, such as an unreadable file, are failures (exit 1).
type usageError string

func (e usageError) Error() string { return string(e) }

// configExit is the exit status for a readConfig error.
func configExit(err error) int {
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// readConfig returns the config from --config or --config-file.
func readConfig(inline, file string) ([]byte, error) {
	switch {
	case inline != "" && file != "":
		return nil, usageError("give --config or --config-file, not both")
	case inline != "":
		return bytes.TrimPrefix([]byte(inline), utf8BOM), nil
	case file != "":
		b, err := boundedfile.Read(file, maxConfigBytes)
		if err != nil {
			return nil, fmt.Errorf("read config file %s: %w", file, err)
		}
		return bytes.TrimPrefix(b, utf8BOM), nil
	default:
		return nil, usageError(`no config: give --config '<json>' (e.g. '{"memory": {}}') or --config-file FILE`)
	}
}

// maxConfigBytes bounds a config file: 16 MiB is far more than 64 servers need.
const maxConfigBytes = 16 << 20

// utf8BOM is dropped from the start of a config, as editors on some
// systems write one.
var utf8BOM = []byte("\xef\xbb\xbf")

// count says "1 server", "3 servers".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
