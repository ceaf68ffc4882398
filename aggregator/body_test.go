package aggregator

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/body"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// rawPost sends a POST's head (and body, if any) on a connection of its
// own and returns the connection, to read the answer from.
func rawPost(t *testing.T, srv *httptest.Server, contentLength int, body []byte) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", testToken, contentLength)
	if _, err := conn.Write(body); err != nil {
		t.Fatal(err)
	}
	return conn
}

func readAnswer(t *testing.T, conn net.Conn, within time.Duration) (*http.Response, []byte) {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(within))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer within %v: %v", within, err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// A Content-Length over the limit is refused before a byte of the body
// arrives, and the connection closes.
func TestOverLimitContentLengthRefusedUnread(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": nil})
	conn := rawPost(t, srv, 200<<20, nil)
	resp, b := readAnswer(t, conn, 10*time.Second)
	wantRPCError(t, "200 MiB Content-Length, no body sent", resp, b, 413, 0)
	if !resp.Close {
		t.Errorf("413 without Connection: close: the body would be drained")
	}
}

// A body that does not fit in the budget waits, then gets 503 with
// Retry-After, unread; once the budget has room the same body passes.
func TestBodyOverTheBudgetGets503(t *testing.T) {
	mem := budget.New(budget.Minimum) // the clients' half: 16 MiB
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{Budget: mem})
	c := newClient(t, srv)
	held, err := mem.Alloc(context.Background(), budget.Clients, 15<<20, 15<<20)
	if err != nil {
		t.Fatal(err)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("m", 1<<20) + `"}}}`
	start := time.Now()
	resp, b := send(t, "POST", c.url, call, sessionHeaders(c))
	wantRPCError(t, "a body the budget has no room for", resp, b, 503, 0)
	if resp.Header.Get("Retry-After") == "" || time.Since(start) < body.AdmissionWait/2 {
		t.Errorf("503 after %v with Retry-After %q: want a brief wait, then Retry-After", time.Since(start), resp.Header.Get("Retry-After"))
	}
	runtime.KeepAlive(held)
	held = nil
	testwait.For(t, 0, "the held buffer to be collected", func() bool {
		runtime.GC()
		return mem.InUse(budget.Clients) == 0
	})
	if res := result(t, c.rpc(call)); !bytes.Contains(res, []byte("mmmm")) {
		t.Errorf("with room: %.200s", res)
	}
	// A small call (100 KiB, counted) is served from what is left at once.
	_, _ = mem.Alloc(context.Background(), budget.Clients, 15<<20, 15<<20)
	start = time.Now()
	result(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+strings.Repeat("s", 100<<10)+`"}}}`))
	if d := time.Since(start); d > time.Second {
		t.Errorf("a small call took %v with the budget held", d)
	}
}

// A stalled body gets 408 when the body timeout ends, naming no address.
func TestStalledBodyGets408WithoutAddresses(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{BodyTimeout: 300 * time.Millisecond})
	conn := rawPost(t, srv, 10<<20, bytes.Repeat([]byte(" "), 1<<20))
	resp, b := readAnswer(t, conn, 10*time.Second)
	wantRPCError(t, "a body stalled after 1 MiB of 10", resp, b, 408, 0)
	if strings.Contains(string(b), "127.0.0.1") || strings.Contains(string(b), "tcp") {
		t.Errorf("the answer names the socket: %s", b)
	}
}

// A chunked body (no Content-Length) is read in pieces and passes whole;
// one over the limit gets 413.
func TestChunkedBody(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{Budget: budget.New(budget.Default), MaxBodyBytes: 4 << 20})
	c := newClient(t, srv)
	text := strings.Repeat("c", 3<<20+12345)
	post := func(body string) (*http.Response, []byte) { return postChunked(t, c, body) }
	resp, b := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`)
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"text":"`+text+`"`)) {
		t.Errorf("chunked 3 MiB call: %d, %d bytes", resp.StatusCode, len(b))
	}
	resp, b = post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("d", 5<<20) + `"}}}`)
	wantRPCError(t, "chunked body over the limit", resp, b, 413, 0)
}

// A chunked body costs the budget what one of Content-Length does: one
// of 6 MiB passes a budget whose clients' half is 16 MiB (before, its
// pieces and their join were charged three times its size: 503).
func TestChunkedBodyChargedAsOneOfLength(t *testing.T) {
	srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": nil}, HTTPOptions{Budget: budget.New(32 << 20)})
	c := newClient(t, srv)
	text := strings.Repeat("c", 6<<20)
	body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + text + `"}}}`
	resp, b := postChunked(t, c, body)
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"text":"`+text+`"`)) {
		t.Errorf("chunked 6 MiB call in a 32 MiB budget: %d, %.200s", resp.StatusCode, b)
	}
}

// postChunked POSTs body in c's session without a Content-Length (so
// chunked), and returns the answer read whole.
func postChunked(t *testing.T, c *rawClient, body string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", c.url, io.MultiReader(strings.NewReader(body)))
	for k, v := range sessionHeaders(c) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}
