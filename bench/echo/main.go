// Command echo is the benchmark's upstream: a stdio MCP server that costs
// as little as possible, so that what the benchmark measures is the
// gateway. It speaks raw newline-delimited JSON-RPC (no SDK) and answers
// requests one at a time, in order.
//
//	initialize                 → protocolVersion as asked, tools capability
//	notifications/initialized  → ignored (as every notification)
//	ping                       → {}
//	tools/list                 → one tool, echo
//	tools/call echo {"message": s}            → {"content":[{"type":"text","text":s}]}
//	tools/call echo {"message": s, "bytes": n} → text of n bytes instead
//	                                             (the "big" mode: an 8 MiB result
//	                                             from a small request, or a small
//	                                             result for an 8 MiB argument)
//
// Flags: --start-delay D sleeps D before answering initialize (a slow
// server, for the ready-time figures); --http ADDR serves the same over
// Streamable HTTP on ADDR instead of stdio (http.go).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

const tools = `{"tools":[{"name":"echo","description":"Echo the message, or reply with bytes bytes of text.","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"bytes":{"type":"integer"}}}}]}`

func main() {
	delay := flag.Duration("start-delay", 0, "sleep this long before answering initialize")
	addr := flag.String("http", "", "serve Streamable HTTP on this address instead of stdio")
	flag.Parse()
	if *addr != "" {
		if err := serveHTTP(*addr); err != nil {
			fmt.Fprintln(os.Stderr, "echo:", err)
			os.Exit(1)
		}
		return
	}
	if err := serve(os.Stdin, os.Stdout, *delay); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "echo:", err)
		os.Exit(1)
	}
}

func serve(in io.Reader, out io.Writer, delay time.Duration) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	var line, big []byte
	for {
		var err error
		line, err = readLine(r, line[:0])
		if err != nil {
			return err
		}
		if !answer(w, line, &big, &delay) {
			continue // a notification
		}
		w.WriteByte('\n')
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// answer writes the response to the message line, without a newline; it
// reports false, writing nothing, for a notification. big is the reply
// buffer of the bytes mode, kept between calls; delay is slept once,
// before the first initialize's answer.
func answer(w *bufio.Writer, line []byte, big *[]byte, delay *time.Duration) bool {
	var id, method, params []byte
	_ = jsonrpc.Members(line, func(k, v []byte) bool {
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
	if len(id) == 0 || string(id) == "null" {
		return false
	}
	w.WriteString(`{"jsonrpc":"2.0","id":`)
	w.Write(id)
	switch string(method) {
	case `"initialize"`:
		time.Sleep(*delay)
		*delay = 0
		version, ok := jsonrpc.Member(params, "protocolVersion")
		if !ok {
			version = []byte(`"2025-06-18"`)
		}
		w.WriteString(`,"result":{"protocolVersion":`)
		w.Write(version)
		w.WriteString(`,"capabilities":{"tools":{}},"serverInfo":{"name":"bench-echo","version":"1"}}}`)
	case `"ping"`:
		w.WriteString(`,"result":{}}`)
	case `"tools/list"`:
		w.WriteString(`,"result":`)
		w.WriteString(tools)
		w.WriteString(`}`)
	case `"tools/call"`:
		call(w, params, big)
	default:
		w.WriteString(`,"error":{"code":-32601,"message":"method not found"}}`)
	}
	return true
}

// call writes the rest of a tools/call's response.
func call(w *bufio.Writer, params []byte, big *[]byte) {
	var name, args []byte
	_ = jsonrpc.Members(params, func(k, v []byte) bool {
		switch string(k) {
		case "name":
			name = v
		case "arguments":
			args = v
		}
		return true
	})
	if string(name) != `"echo"` {
		w.WriteString(`,"error":{"code":-32602,"message":"unknown tool"}}`)
		return
	}
	text, size := []byte(`""`), -1
	_ = jsonrpc.Members(args, func(k, v []byte) bool {
		switch string(k) {
		case "message":
			text = v
		case "bytes":
			if n, ok := jsonrpc.ParseIntID(v); ok && n >= 0 {
				size = int(n)
			}
		}
		return true
	})
	if size >= 0 {
		*big = filler(*big, size)
		text = *big
	}
	w.WriteString(`,"result":{"content":[{"type":"text","text":`)
	w.Write(text)
	w.WriteString(`}]}}`)
}

// filler returns a JSON string of n letters (n+2 bytes with the quotes),
// reusing buf.
func filler(buf []byte, n int) []byte {
	if len(buf) == n+2 {
		return buf
	}
	buf = append(buf[:0], '"')
	for i := range n {
		buf = append(buf, 'a'+byte(i%26))
	}
	return append(buf, '"')
}

// readLine appends the next line (without its newline) to buf.
func readLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		default:
			return buf, err
		}
	}
}
