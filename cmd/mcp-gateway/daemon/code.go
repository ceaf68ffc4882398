package daemon

// Code mode (SPEC §12): the daemon writes the merged tools as a code API
// under --code-dir at ready and after every change of the merged list; the
// generator and the writer are package codeapi's, which knows nothing of
// HTTP or of the daemon. Here: the actor that owns the writer, the code
// dir in the servers' environment (SPEC §7.1), and the answer to the
// control command that `mcp-gateway code --out DIR` sends. The --code-dir
// setting is the CLI's (cmd/mcp-gateway/settings.go).

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator"
	"github.com/mcp-gateway/mcp-gateway/codeapi"
	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// codeSettle is how long the code actor lets a burst of list changes
// (a reload restarting several servers, each relisting) settle before it
// writes once: well inside SPEC §12.1's second.
const codeSettle = 100 * time.Millisecond

// withCodeDir is env with MCP_GATEWAY_CODE_DIR set to dir, so that a
// server's own children find the code API (SPEC §7.1), or, with code mode
// off (dir ""), without it.
func withCodeDir(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, supervisor.CodeDirEnv+"=") {
			out = append(out, kv)
		}
	}
	if dir != "" {
		out = append(out, supervisor.CodeDirEnv+"="+dir)
	}
	return out
}

// codeURL is the endpoint as code in the sandbox reaches it on loopback
// (SPEC §12.3), from the address the daemon listens on: an unspecified
// host (all interfaces) is reached at 127.0.0.1, a given one as it is.
func codeURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr + "/mcp"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/mcp"
}

// codeInput is what the code API is made of: gw's merged list now, the
// daemon's URL and its token file (never the token, SPEC §12.1).
func codeInput(gw *aggregator.Gateway, url, tokenFile string) codeapi.Input {
	in := codeapi.Input{URL: url, TokenFile: tokenFile}
	for _, s := range gw.MergedTools() {
		srv := codeapi.Server{Name: s.Server, Description: s.Instructions, Tools: make([]codeapi.Tool, 0, len(s.Tools))}
		for _, t := range s.Tools {
			srv.Tools = append(srv.Tools, codeapi.Tool{Name: t.Name, Definition: t.Definition})
		}
		in.Servers = append(in.Servers, srv)
	}
	return in
}

// codeActor writes the code API at dir (SPEC §12.1): once as it starts
// (the daemon is ready then), and again after every change of the merged
// tool list, a burst of changes settling for codeSettle into one write.
// It alone owns the writer; the hook it installs on gw only signals it, so
// no call or rebuild ever waits for a write. A write that fails is logged
// with the dir, and the next change tries again; it never stops the
// daemon.
func codeActor(gw *aggregator.Gateway, dir, url, tokenFile string, logger *slog.Logger) actor {
	kick := make(chan struct{}, 1)
	gw.OnToolsChanged(func() {
		select {
		case kick <- struct{}{}:
		default: // a write is due already
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	w := &codeapi.Writer{Dir: dir, Spare: true}
	write := func() {
		start := time.Now()
		in := codeInput(gw, url, tokenFile)
		err := os.MkdirAll(filepath.Dir(dir), 0o755)
		if err == nil {
			err = w.Write(in)
		}
		if err != nil {
			logger.Error("code API: write failed", "dir", dir, "error", err)
			return
		}
		tools := 0
		for _, s := range in.Servers {
			tools += len(s.Tools)
		}
		logger.Info("code API written", "dir", dir, "servers", len(in.Servers), "tools", tools, "ms", time.Since(start).Milliseconds())
	}
	return actor{func() error {
		defer func() {
			if err := w.Close(); err != nil { // the work after the last write; the spare and the pool
				logger.Error("code API: write failed", "dir", dir, "error", err)
			}
		}()
		write()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-kick:
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(codeSettle):
			}
			select {
			case <-kick: // folded into this write
			default:
			}
			write()
		}
	}, func(error) {
		gw.OnToolsChanged(nil)
		cancel()
	}}
}

// codeResponse is the control socket's answer to `code`: the code API's
// input, as the daemon would write it.
func codeResponse(gw *aggregator.Gateway, url, tokenFile string) ipc.Response {
	b, err := json.Marshal(codeInput(gw, url, tokenFile))
	if err != nil {
		return ipc.Response{Error: "encode the tool list: " + err.Error()}
	}
	return ipc.Response{OK: true, Code: b}
}
