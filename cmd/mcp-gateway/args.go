package main

// What every command shares in reading its arguments and printing its
// answer: a flag set that prints its usage, parse errors as exit
// statuses, the config of --config or --config-file, and counts in
// words.

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/mcp-gateway/mcp-gateway/internal/boundedfile"
)

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
