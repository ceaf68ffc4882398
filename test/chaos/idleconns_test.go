package chaos

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// TestIdleUpstreamConnsClosed: after a burst of concurrent calls to an
// HTTP server (SPEC §5.6), the connections the server then closes as
// idle (Node's http server does after 5 s) are closed by the gateway
// too, not kept open on its side (CLOSE_WAIT), one fd each. The chaos
// run found the daemon's fds still up after the load: its pool of idle
// connections to an HTTP server looked only at the newest when a call
// needed one, so those under it stayed in CLOSE_WAIT, up to 64 a
// server, for as long as the gateway ran.
func TestIdleUpstreamConnsClosed(t *testing.T) {
	nm := needNPM(t)
	dir := t.TempDir()
	ports, err := freePorts(2)
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`{"web": {"url": "http://127.0.0.1:%d/mcp", "runCmd": "PORT=%d exec node %s streamableHttp"}}`,
		ports[1], ports[1], filepath.Join(nm, ".bin", "mcp-server-everything"))
	g, err := launchGateway(gatewayBin, dir, config, ports[0], nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.stop(); err != nil {
			t.Error(err)
		}
	})
	c := newClient(g.url, g.token)
	defer c.close()
	for round := range 3 { // 16 at once: 16 connections to the server
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				a, err := c.modern(ctx, "tools/call", "echo", map[string]any{"name": "echo", "arguments": map[string]any{"message": fmt.Sprint(round, i)}}, false, nil)
				if err != nil || a.Error != nil || !strings.Contains(string(a.Result), "Echo: ") {
					t.Errorf("echo: %v %v %s", err, a.Error, a.Result)
				}
			})
		}
		wg.Wait()
	}
	toServer := fmt.Sprintf("->:%d ", ports[1])
	upstream := func(state string) int {
		n := 0
		for k, v := range fdKinds(g.pid) {
			if strings.Contains(k, toServer) && strings.HasSuffix(k, state) {
				n += v
			}
		}
		return n
	}
	if n := upstream("ESTABLISHED"); n < 2 {
		t.Fatalf("%d connections to the server after 16 concurrent calls, want several: %v", n, fdKinds(g.pid))
	}
	// The server closes them after its keep-alive timeout (5 s); then the
	// gateway must close its side too.
	// (One connection stays: the session's GET stream, SPEC §7.9.)
	if !testwait.Until(20*time.Second, func() bool { return upstream("ESTABLISHED") <= 1 && upstream("CLOSE_WAIT") == 0 }) {
		t.Fatalf("connections to the server 20 s after the calls: %d established, %d in CLOSE_WAIT, want at most 1 and 0: %v",
			upstream("ESTABLISHED"), upstream("CLOSE_WAIT"), fdKinds(g.pid))
	}
}
