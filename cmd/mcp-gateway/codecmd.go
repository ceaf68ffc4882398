package main

// `mcp-gateway code --out DIR` (SPEC §12.1's template use): the code API
// of the running daemon's merged tools, written into DIR, for inspection
// or for a template to ship, without the daemon's own --code-dir.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcp-gateway/mcp-gateway/codeapi"
	"github.com/mcp-gateway/mcp-gateway/ipc"
)

// runCode is `mcp-gateway code --out DIR`: it asks the daemon of the run
// dir for its merged tool list over the control socket (which carries
// each tool's server, which tools/list does not), and writes the tree
// into DIR as the daemon writes its own (codeapi.Write: replaced
// atomically). The tree reaches the daemon at its real address and
// reads the token as the daemon's tree does (SPEC §12.3).
func runCode(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("code", "Usage: mcp-gateway code --out DIR [--run-dir DIR]\n\nWrites the running gateway's merged tools as a code API (INDEX.md, python/mcp_tools/…, js/…; see docs/code.md) into DIR, replacing an earlier tree there (a file, or a directory of other files, is refused). Exits 1 if no gateway is running.", stderr)
	out := fs.String("out", "", "the directory to write the tree into (required)")
	sf := addSettingsFlags(fs, false)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *out == "" {
		fmt.Fprintln(stderr, "mcp-gateway: code: give --out DIR")
		return 2
	}
	dir, err := filepath.Abs(*out)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-gateway: code: resolve --out %q: %v\n", *out, err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
	defer cancel()
	resp, err := ipc.Control(ctx, sf.s.RunDir, ipc.Request{Cmd: ipc.CmdCode})
	if err != nil {
		return controlFailed(stderr, "code", sf.s.RunDir, err)
	}
	if !resp.OK {
		fmt.Fprintf(stderr, "mcp-gateway: code: %s\n", resp.Error)
		return 1
	}
	var in codeapi.Input
	if err := json.Unmarshal(resp.Code, &in); err != nil {
		fmt.Fprintln(stderr, "mcp-gateway: code: the daemon sent an invalid tool list:", err)
		return 1
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		fmt.Fprintf(stderr, "mcp-gateway: code: %v\n", err)
		return 1
	}
	if err := codeapi.Write(dir, in); err != nil {
		fmt.Fprintf(stderr, "mcp-gateway: code: %v\n", err)
		return 1
	}
	tools := 0
	for _, s := range in.Servers {
		tools += len(s.Tools)
	}
	fmt.Fprintf(stdout, "mcp-gateway: wrote %s of %s to %s (read %s first)\n", count(tools, "tool"), count(len(in.Servers), "server"), dir, filepath.Join(dir, "INDEX.md"))
	return 0
}
