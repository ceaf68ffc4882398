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
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-gateway/mcp-gateway/bench"
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
	fail(http.Serve(ln, bench.NewFloorProxy(up)))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "floor:", err)
	os.Exit(1)
}
