package aggregator

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/legacy"
	"github.com/mcp-gateway/mcp-gateway/aggregator/wire"
)

// At shutdown the GET streams end first (Gateway.EndStreams), so that
// the daemon's drain waits only for calls: an open GET stream held every
// shutdown for the whole drain.
func TestEndStreamsEndsGETStreams(t *testing.T) {
	srv, gw := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	done := drain(openGET(t, c))
	gw.EndStreams()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the GET stream is still open 10 s after EndStreams")
	}
	// The session itself lives on.
	result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"ping"}`))
}

// Answers that do not read the body close the connection at once, even
// while the caller still owes a chunked body: before, net/http waited to
// drain it, so callers without the token could hold descriptors (found by
// an adversarial review).
func TestUnreadBodiesDoNotHoldConnections(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	for what, head := range map[string]string{
		"no token":       "POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
		"foreign Origin": "POST /mcp HTTP/1.1\r\nHost: x\r\nOrigin: https://evil.example\r\nAuthorization: Bearer " + testToken + "\r\nTransfer-Encoding: chunked\r\n\r\n",
		"/health":        "GET /health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
		"unknown path":   "GET /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(conn, head)
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadAll(conn); err != nil {
			t.Errorf("%s: the connection is still open 5 s later (%v)", what, err)
		}
		conn.Close()
	}
}

// What one client can make the gateway hold is bounded (found by an
// adversarial review): a batch's length, and a session's initialize.
func TestBatchAndInitializeAreBounded(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	c := newClient(t, srv)
	batch := "[" + strings.TrimSuffix(strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, wire.MaxBatch+1), ",") + "]"
	resp, b := send(t, "POST", c.url, batch, map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": "2025-03-26"})
	wantRPCError(t, "a batch over the limit", resp, b, 400, -32600)
	big := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"` + strings.Repeat("x", legacy.MaxInitializeParams) + `","version":"1"}}}`
	resp, b = send(t, "POST", c.url, big, nil)
	if resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(string(b), `"code":-32602`) {
		t.Errorf("an initialize of %d bytes: %d %.200s, want -32602 and no session", len(big), resp.StatusCode, b)
	}
}

// A GET stream that DELETE or a newer GET ends, while nothing is being
// written to it, ends as a complete response (the chunked body's last
// chunk), not cut off: a client then sees the stream end, not an error it
// may answer by reconnecting (found by a new-user run: curl exit 18).
func TestGETStreamEndsCleanly(t *testing.T) {
	for _, how := range []string{"DELETE", "newer GET"} {
		t.Run(how, func(t *testing.T) {
			srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
			c := newClient(t, srv)
			first := openGET(t, c)
			defer first.Body.Close()
			ended := make(chan error, 1)
			go func() { _, err := io.Copy(io.Discard, first.Body); ended <- err }()
			if how == "DELETE" {
				if resp, b := send(t, "DELETE", c.url, "", sessionHeaders(c)); resp.StatusCode != 200 && resp.StatusCode != 204 {
					t.Fatalf("DELETE: %d %s", resp.StatusCode, b)
				}
			} else {
				second := openGET(t, c)
				defer second.Body.Close()
			}
			select {
			case err := <-ended:
				if err != nil {
					t.Errorf("the GET stream ended with %v, want a complete response", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the GET stream is still open 10 s later")
			}
		})
	}
}

// openGET opens c's session's GET stream.
func openGET(t *testing.T, c *rawClient) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", c.url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /mcp: %v %v", resp, err)
	}
	return resp
}
