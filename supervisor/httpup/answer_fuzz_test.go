package httpup

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// The secret of the fuzzed transport's configured header: no error and
// no log line may show it.
const fuzzSecret = "fz-header-secret-3141"

// fuzzAnswers are whole HTTP answers an upstream may give, for the seeds
// of FuzzHTTPAnswer: each is also tried cut.
var fuzzAnswers = []string{
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 36\r\n\r\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
	"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n" +
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}`,
	"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n" +
		"event: message\nid: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n" +
		"id: 2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\n\n",
	"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"1a\r\n: ping\n\nretry: 10\nid: e1\n\n\r\n2b\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nretry: 5\nid: 7\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n",
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-1\r\nContent-Length: 94\r\n\r\n" +
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{}}}`,
	"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"elicitation/create\",\"params\":{\"message\":\"?\"}}\n\n",
	"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\r\nnot found",
	"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 71\r\n\r\n" +
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"header mismatch"}}`,
	"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\nContent-Length: 20\r\n\r\n<h1>oops " + fuzzSecret[:3] + "</h1>",
	"HTTP/1.1 307 Temporary Redirect\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 302 Found\r\nLocation: http://example.invalid/mcp\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: endpoint\ndata: /messages?session=1\n\n",
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9000\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":",
	"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello",
	"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + `[{"jsonrpc":"2.0","id":1,"result":1}]`,
	"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 44\r\n\r\n" +
		`{"jsonrpc":"2.0","id":"1","result":{"a":[]}}`,
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 36\r\n\r\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
	"garbage\r\n\r\n",
	"",
}

// FuzzHTTPAnswer: whatever an HTTP server answers (its status, headers,
// and a JSON or SSE body, cut at any byte), a request through the
// transport neither panics nor hangs: the call ends, by itself or at its
// deadline, with a result that is JSON or an error that is a JSON-RPC
// error, names the server's url, or (a redirect elsewhere) names where
// to; closing the transport ends everything it started; the server gets
// a bounded number of requests; and the configured header's value is in
// no error and no log line. The fake server answers every request of the
// exchange (a resumption, a new session, the ping after a broken answer,
// the HTTP+SSE fallback's GET) with the same bytes, then closes the
// connection. sel picks the method (its low two bits) and the era (bit 2:
// a modern server); cut, when not 0, is where the answer is cut.
func FuzzHTTPAnswer(f *testing.F) {
	for i, a := range fuzzAnswers {
		f.Add(uint8(i), []byte(a), uint16(0))
		if len(a) > 4 {
			f.Add(uint8(i+1), []byte(a), uint16(len(a)*2/3))
		}
	}
	methods := []string{"tools/call", "initialize", "tools/list", "ping"}
	f.Fuzz(func(t *testing.T, sel uint8, answer []byte, cut uint16) {
		if cut > 0 && int(cut) < len(answer) {
			answer = answer[:cut]
		}
		srv := newFuzzServer(t, answer)
		defer srv.close()

		var logged bytes.Buffer
		var logMu sync.Mutex
		log := logfile.New(lockedWriter{&logMu, &logged})
		log.AddSecrets(fuzzSecret)
		conn := rpc.NewConn("fz", log, rpc.Hooks{})
		if sel&4 != 0 {
			conn.SetModern("2026-07-28", json.RawMessage(`{"name":"mcp-gateway","version":"0"}`))
		}
		var lost atomic.Int32
		tr := New(conn, Config{Name: "fz", Log: log, Client: NewClient(), URL: srv.url, Headers: map[string]string{"Authorization": "Bearer " + fuzzSecret},
			Stall: 300 * time.Millisecond, Budget: budget.New(1 << 20),
			Lost: func(err error) { lost.Add(1); conn.Fail(fmt.Errorf("lost: %w", err)) }})

		method := methods[sel&3]
		params := json.RawMessage(`{"name":"echo","arguments":{"message":"m"}}`)
		if method == "initialize" {
			params = json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fz","version":"0"}}`)
		}
		const deadline = 500 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		type end struct {
			res json.RawMessage
			err error
		}
		ended := make(chan end, 1)
		go func() {
			res, err := conn.Call(ctx, method, params, nil)
			ended <- end{res, err}
		}()
		var e end
		select {
		case e = <-ended:
		case <-time.After(deadline + 3*time.Second):
			t.Fatalf("%s: no end %v past its deadline (%d requests to the server)", method, 3*time.Second, srv.requests.Load())
		}
		var rpcErr *jsonrpc.Error
		var redirect *redirectError
		switch {
		case e.err == nil:
			// Empty: a response with neither result nor error, which
			// package jsonrpc encodes to the client as the result {}.
			if len(e.res) > 0 && !json.Valid(e.res) {
				t.Errorf("%s: a result that is not JSON: %.200q", method, e.res)
			}
		case errors.As(e.err, &rpcErr), errors.As(e.err, &redirect): // names where it was sent
		case errors.Is(e.err, context.DeadlineExceeded) && ctx.Err() != nil:
			// the answer made it wait (a retry field before a resumption)
		case !strings.Contains(e.err.Error(), srv.url):
			t.Errorf("%s: an error that is no JSON-RPC error and names no url: %v", method, e.err)
		}
		if e.err != nil && strings.Contains(e.err.Error(), fuzzSecret) {
			t.Errorf("%s: the error shows the configured header: %v", method, e.err)
		}

		// As the run's owner does (supervisor/httprun.go): the connection
		// fails, the transport closes, the relays end.
		closed := make(chan struct{})
		go func() {
			conn.Fail(errors.New("fuzz: the run ends"))
			tr.Close(false)
			conn.WaitHandlers()
			close(closed)
		}()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Close did not return in 10 s", method)
		}
		if n := srv.requests.Load(); n > 40 {
			t.Errorf("%s: %d requests to the server for one call", method, n)
		}
		logMu.Lock()
		defer logMu.Unlock()
		if strings.Contains(logged.String(), fuzzSecret) {
			t.Errorf("%s: the log shows the configured header:\n%s", method, logged.String())
		}
	})
}

// fuzzServer answers every request on its listener with the same bytes,
// then closes the connection.
type fuzzServer struct {
	ln       net.Listener
	url      string
	answer   []byte
	requests atomic.Int32
	wg       sync.WaitGroup
}

func newFuzzServer(t *testing.T, answer []byte) *fuzzServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fuzzServer{ln: ln, url: "http://" + ln.Addr().String() + "/mcp", answer: answer}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.serve(c)
			}()
		}
	}()
	return s
}

// serve reads one request on c and answers it.
func (s *fuzzServer) serve(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	s.requests.Add(1)
	_, _ = io.Copy(io.Discard, req.Body)
	_, _ = c.Write(s.answer)
}

func (s *fuzzServer) close() {
	s.ln.Close()
	s.wg.Wait()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
