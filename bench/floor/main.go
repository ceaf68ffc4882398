// Command floor is the smallest HTTP-to-stdio MCP proxy the benchmark can
// think of: it is not a gateway, it is the reference for what any gateway
// built on Go's net/http must cost at least. One upstream, one session
// (any Mcp-Session-Id is accepted), requests forwarded with the gateway's
// own id and answered as one application/json body; no go-sdk, no
// validation, no SSE. The benchmark reports it beside the gateway, so that
// a missed target can be split into what HTTP costs and what the gateway
// adds on top.
//
//	floor -- <upstream argv>…
//
// It prints "listening on http://127.0.0.1:PORT/mcp" when ready and serves
// until SIGTERM.
package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/mcp-gateway/mcp-gateway/bench"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

func main() {
	args := os.Args[1:]
	if len(args) < 2 || args[0] != "--" {
		fmt.Fprintln(os.Stderr, "usage: floor -- <upstream argv>…")
		os.Exit(2)
	}
	up, err := bench.StartStdio(args[1:])
	if err != nil {
		fail(err)
	}
	if _, err := up.Initialize(context.Background()); err != nil {
		fail(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	// On SIGTERM, close the upstream (it exits on EOF and is reaped) first.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-term
		up.Close()
		os.Exit(0)
	}()
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	fail(http.Serve(ln, &proxy{up: up}))
}

type proxy struct{ up *bench.StdioClient }

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	var body bytes.Buffer
	if r.ContentLength > 0 {
		body.Grow(int(r.ContentLength))
	}
	if _, err := body.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var id, method, params []byte
	_ = jsonrpc.Members(body.Bytes(), func(k, v []byte) bool {
		switch string(k) {
		case "id":
			id = v
		case "method":
			method = v
		case "params":
			params = v
		}
		return true
	})
	if len(id) == 0 {
		w.WriteHeader(http.StatusAccepted) // a notification
		return
	}
	name, ok := jsonrpc.Text(method)
	if !ok {
		http.Error(w, "bad method", http.StatusBadRequest)
		return
	}
	var result []byte
	var err error
	if name == "initialize" {
		result = []byte(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"1"}}`)
		w.Header().Set("Mcp-Session-Id", "floor")
	} else {
		if len(params) == 0 {
			params = []byte("{}")
		}
		result, err = p.up.Call(r.Context(), name, params)
	}
	out := make([]byte, 0, len(result)+len(id)+64)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	if err != nil {
		out = append(out, `,"error":{"code":-32603,"message":`...)
		out = strconv.AppendQuote(out, err.Error())
		out = append(out, `}}`...)
	} else {
		out = append(out, `,"result":`...)
		out = append(out, result...)
		out = append(out, '}')
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "floor:", err)
	os.Exit(1)
}
