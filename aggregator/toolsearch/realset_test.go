package toolsearch

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/mcp-gateway/mcp-gateway/internal/realtools"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// realSet is the reference servers' tools as the gateway exports them
// (SPEC §4.1, §4.2, without the long-name rule they never need): the
// first server keeps a name, a later one's is prefixed with its server.
func realSet(t testing.TB) []Tool {
	t.Helper()
	return exported(realtools.Load(t), "")
}

// exported names tools as the registry would, each server's name given
// suffix (so that copies of the set have distinct names).
func exported(in []realtools.Tool, suffix string) []Tool {
	taken := map[string]bool{}
	out := make([]Tool, 0, len(in))
	for _, rt := range in {
		server := rt.Server + suffix
		name := unsafeName.ReplaceAllString(rt.Name, "_")
		if taken[name] || suffix != "" {
			name = unsafeName.ReplaceAllString(server, "_") + "_" + name
		}
		taken[name] = true
		def, err := jsonrpc.Replace(rt.Definition, "name", jsonrpc.Quote(name))
		if err != nil {
			panic(err)
		}
		out = append(out, Tool{Server: server, Name: name, Definition: def})
	}
	return out
}

// thousand is the real set ten times and more, with distinct servers and
// names, cut at n tools.
func thousand(t testing.TB, n int) []Tool {
	real := realtools.Load(t)
	var out []Tool
	out = append(out, exported(real, "")...)
	for k := 2; len(out) < n; k++ {
		out = append(out, exported(real, fmt.Sprintf("-%d", k))...)
	}
	return out[:n]
}
