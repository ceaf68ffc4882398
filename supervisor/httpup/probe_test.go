package httpup

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// TestBrokenAnswerProbesOnce: a server whose every answer is an SSE
// stream that ends before its response gets one ping for a broken call,
// not a ping for each ping's broken answer, and the call ends at its
// deadline at the latest, with the server's url in its error. Before the
// fix, each probe's ping probed again on the caller's goroutine: the call
// never ended and the server got thousands of requests a second.
func TestBrokenAnswerProbesOnce(t *testing.T) {
	srv := newFuzzServer(t, []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"+
		`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`+"\n\n"))
	defer srv.close()
	log := logfile.New(io.Discard)
	conn := rpc.NewConn("broken", log, rpc.Hooks{})
	tr := New(conn, Config{Name: "broken", Log: log, Client: NewClient(), URL: srv.url, Lost: conn.Fail})
	defer func() {
		conn.Fail(errors.New("test: end"))
		tr.Close(true)
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ended := make(chan error, 1)
	go func() {
		_, err := conn.Call(ctx, "tools/call", json.RawMessage(`{"name":"echo","arguments":{}}`), nil)
		ended <- err
	}()
	var err error
	select {
	case err = <-ended:
	case <-time.After(5 * time.Second):
		t.Fatalf("the call did not end 3 s past its deadline; the server got %d requests", srv.requests.Load())
	}
	if err == nil || !strings.Contains(err.Error(), srv.url) || !strings.Contains(err.Error(), "before the response") {
		t.Errorf("err = %v, want the stream's early end, naming %s", err, srv.url)
	}
	if n := srv.requests.Load(); n != 2 {
		t.Errorf("the server got %d requests, want 2: the call and one ping", n)
	}
}
