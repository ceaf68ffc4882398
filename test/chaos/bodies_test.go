package chaos

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChunkedBodyNearTheLimit: a request body sent without a
// Content-Length (chunked) is held to the same limit as one with it
// (SPEC §3.9): one just under the limit passes, one past it gets 413 with
// a JSON-RPC error, at once, on a gateway nothing else is using. The
// chaos run's bad-body burst found both getting 503 ("the memory budget
// is held by other requests") after a 5 s wait: the body was read in
// pieces charged twice their size, and the last piece, allocated whole
// past what the body still could hold, did not fit in the clients' half
// of the budget. A small --memory-budget (32 MiB: an 8 MiB limit) keeps
// the test cheap; the default (256 MiB: 64 MiB) fails the same way.
func TestChunkedBodyNearTheLimit(t *testing.T) {
	nm := needNPM(t)
	dir := t.TempDir()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`{"everything": {"runCmd": "exec node %s"}}`, filepath.Join(nm, ".bin", "mcp-server-everything"))
	g, err := launchGateway(gatewayBin, dir, config, port, nil, "--memory-budget", "32MiB")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.stop(); err != nil {
			t.Error(err)
		}
	})
	const limit = 8 << 20 // MaxBody of a 32 MiB budget: a quarter
	c := newClient(g.url, g.token)
	defer c.close()
	hdr := http.Header{"Mcp-Protocol-Version": {modernVersion}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"echo"}}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"chaos","version":"1"}}`
	head := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"echo","arguments":{"message":"`
	tail := `"}}}`
	for _, tc := range []struct {
		name   string
		size   int // the whole body's
		status int
	}{
		{"just under the limit", limit - 1024, http.StatusOK},
		{"at the limit", limit, http.StatusOK},
		{"past the limit", limit + 1<<20, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// A MultiReader has no length: net/http sends it chunked.
			body := io.MultiReader(strings.NewReader(head), io.LimitReader(repeat('x'), int64(tc.size-len(head)-len(tail))), strings.NewReader(tail))
			start := time.Now()
			status, answer, err := c.raw(ctx, body, "application/json", hdr)
			if err != nil {
				t.Fatal(err)
			}
			if status != tc.status {
				t.Fatalf("HTTP %d after %v, want %d: %.300s", status, time.Since(start).Round(time.Millisecond), tc.status, answer)
			}
			if want := `"error"`; tc.status != http.StatusOK && !strings.Contains(string(answer), want) {
				t.Errorf("answer %.300s, want a JSON-RPC error", answer)
			}
			if want := "Echo: xxx"; tc.status == http.StatusOK && !strings.Contains(string(answer), want) {
				t.Errorf("answer %.300s, want the echo", answer)
			}
		})
	}
}
