package aggregator

import (
	"net/http"
	"testing"
	"time"
)

// At shutdown the GET streams end first (Gateway.EndStreams), so that
// the daemon's drain waits only for calls: an open GET stream held every
// shutdown for the whole drain.
func TestEndStreamsEndsGETStreams(t *testing.T) {
	srv, gw := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	req, _ := http.NewRequest("GET", c.url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /mcp: %v %v", resp, err)
	}
	done := drain(resp)
	gw.EndStreams()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the GET stream is still open 10 s after EndStreams")
	}
	// The session itself lives on.
	result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
}
