package fakehttp

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
)

// Enabled reports whether this process should be the fake HTTP server.
func Enabled() bool { return os.Getenv("MCP_FAKE_HTTP") != "" }

// Main serves the fake on 127.0.0.1:$PORT until killed, and returns the
// exit code. The environment sets its options: MCP_FAKE_HTTP_ERA,
// MCP_FAKE_HTTP_JSON ("1"), MCP_FAKE_HTTP_RECORD (a file: one JSON line
// per request received).
func Main() int {
	o := Options{Era: os.Getenv("MCP_FAKE_HTTP_ERA"), JSON: os.Getenv("MCP_FAKE_HTTP_JSON") != ""}
	if path := os.Getenv("MCP_FAKE_HTTP_RECORD"); path != "" {
		var mu sync.Mutex
		o.Record = func(seen Seen) {
			b, _ := json.Marshal(seen)
			mu.Lock()
			defer mu.Unlock()
			if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				f.Write(append(b, '\n'))
				f.Close()
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakehttp:", err)
		return 1
	}
	fmt.Println("fakehttp listening on", l.Addr()) // stdout: not MCP here, logged
	if err := http.Serve(l, New(o)); err != nil {
		fmt.Fprintln(os.Stderr, "fakehttp:", err)
		return 1
	}
	return 0
}
