package modern

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is the caching hints of a modern result (MCP 2026-07-28
// server/utilities/caching; SPEC §3.10): the ttlMs and cacheScope of
// server/discover's result and of the merged lists, and those the gateway
// adds to a resources/read result that has none. It uses nothing else of
// the package.

// cacheTTL is the ttlMs of server/discover's result and of the merged
// lists (server/utilities/caching); a change within it is announced on
// every subscriptions/listen stream that asked. cacheScope is "private":
// the lists are this sandbox's, behind its token.
const cacheTTL = 60 * time.Second

// cacheHint is a result's ttlMs and cacheScope (server/utilities/caching).
type cacheHint struct {
	ttlMs int64
	scope string
}

var (
	// listCache is the merged lists': as tools/list's (cacheTTL).
	listCache = cacheHint{cacheTTL.Milliseconds(), "private"}
	// readCache is a resources/read result's that has none (a legacy
	// server's): the gateway cannot know how long the contents stay
	// fresh, so they are stale at once; private, as they are the
	// sandbox's.
	readCache = cacheHint{0, "private"}
)

// withCacheHints adds ttlMs and cacheScope to a complete result that
// lacks them (MCP 2026-07-28: cacheable results carry both); a server's
// own are kept.
func withCacheHints(res json.RawMessage, hint cacheHint) json.RawMessage {
	var ttl, scope bool
	_ = jsonrpc.Members(res, func(k, _ []byte) bool {
		ttl = ttl || jsonrpc.KeyIs(k, "ttlMs")
		scope = scope || jsonrpc.KeyIs(k, "cacheScope")
		return true
	})
	var add []string
	if !ttl {
		add = append(add, fmt.Sprintf(`"ttlMs":%d`, hint.ttlMs))
	}
	if !scope {
		add = append(add, fmt.Sprintf(`"cacheScope":%q`, hint.scope))
	}
	if len(add) == 0 {
		return res
	}
	body := trimRight(res)
	out := make([]byte, 0, len(body)+40)
	out = append(out, body[:len(body)-1]...)
	if t := jsonrpc.TrimLeft(body[1 : len(body)-1]); len(t) > 0 {
		out = append(out, ',')
	}
	out = append(out, strings.Join(add, ",")...)
	return append(out, '}')
}

func trimRight(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}
