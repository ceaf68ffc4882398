package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// session is the one Mcp-Session-Id the echo gives every initialize; it
// takes any session, or none, after that: the figure measures the
// gateway's HTTP client, not the server's sessions.
const session = "bench-echo"

// writers are reused response buffers.
var writers = sync.Pool{New: func() any { b := &bytes.Buffer{}; return &reply{b: b, w: bufio.NewWriterSize(b, 4096)} }}

type reply struct {
	b   *bytes.Buffer
	w   *bufio.Writer
	big []byte
}

// serveHTTP serves the echo over Streamable HTTP (MCP 2025-11-25) on addr,
// at any path: each POSTed request answered with one JSON body, a
// notification with 202, GET and DELETE with 405. It prints "listening on
// http://ADDR/mcp" once it listens.
func serveHTTP(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	io.WriteString(os.Stdout, "listening on http://"+l.Addr().String()+"/mcp\n")
	return http.Serve(l, http.HandlerFunc(handle))
}

func handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	rp := writers.Get().(*reply)
	defer writers.Put(rp)
	rp.b.Reset()
	var delay time.Duration
	if !answer(rp.w, body, &rp.big, &delay) {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	rp.w.Flush()
	h := w.Header()
	h["Content-Type"] = []string{"application/json"}
	h["Mcp-Session-Id"] = []string{session}
	w.Write(rp.b.Bytes())
}
