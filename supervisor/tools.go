package supervisor

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// maxToolPages bounds tools/list pagination against a server that returns
// the same cursor forever.
const maxToolPages = 1000

func listTools(ctx context.Context, c *conn) ([]Tool, error) {
	var (
		tools  []Tool
		cursor json.RawMessage
	)
	for page := 0; ; page++ {
		if page == maxToolPages {
			return nil, fmt.Errorf("more than %d pages; is the server repeating its cursor?", maxToolPages)
		}
		var params json.RawMessage
		if cursor != nil {
			params = jsonrpc.Encode([]jsonrpc.Field{{Key: "cursor", Value: cursor}})
		}
		res, err := c.call(ctx, "tools/list", params, nil)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor json.RawMessage   `json:"nextCursor"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, fmt.Errorf("decode result: %w", err)
		}
		for _, raw := range page.Tools {
			var t struct {
				Name string `json:"name"`
			}
			if err := json.Unmarshal(raw, &t); err != nil || t.Name == "" {
				c.log.Line(c.name, "[gateway] tool without a name in tools/list; dropped: "+truncate(c.log.Mask(string(raw)), 200))
				continue
			}
			tools = append(tools, Tool{Name: t.Name, Raw: raw})
		}
		if len(page.NextCursor) == 0 || string(page.NextCursor) == "null" || string(page.NextCursor) == `""` {
			return tools, nil
		}
		cursor = page.NextCursor
	}
}

// relist re-reads the tools after the server's own list_changed. Bursts
// are coalesced: while one re-list runs, further notifications make it
// run once more when it ends, never a second one alongside (20,000
// notifications started 20,000 concurrent tools/list, and the daemon's
// memory tripled).
func (u *Upstream) relist(r *run) {
	u.mu.Lock()
	if r.relisting {
		r.relistAgain = true
		u.mu.Unlock()
		return
	}
	r.relisting = true
	u.mu.Unlock()
	r.conn.handlers.Add(1)
	go func() {
		defer r.conn.handlers.Done()
		for u.relistOnce(r) {
		}
	}()
}

// relistOnce lists the tools once and reports whether another
// list_changed came meanwhile. The listing is bounded as a start's is, by
// Options.StartTimeout.
func (u *Upstream) relistOnce(r *run) (again bool) {
	ctx, cancel := context.WithTimeout(u.opts.ctx, u.opts.StartTimeout)
	defer cancel()
	tools, err := listTools(ctx, r.conn)
	u.mu.Lock()
	again, r.relistAgain = r.relistAgain, false
	if err != nil || u.cur != r {
		again = false // the run failed or ended: nothing to list again
	}
	r.relisting = again
	if err != nil || u.cur != r {
		u.mu.Unlock()
		if err != nil {
			u.opts.Logger.Warn("re-list tools after list_changed failed", "server", u.name, "error", err)
		}
		return false
	}
	changed := !sameTools(u.tools, tools)
	u.tools = tools
	u.mu.Unlock()
	if changed && u.opts.OnToolsChanged != nil {
		u.opts.OnToolsChanged(u.name)
	}
	return again
}

func sameTools(a, b []Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || string(a[i].Raw) != string(b[i].Raw) {
			return false
		}
	}
	return true
}
