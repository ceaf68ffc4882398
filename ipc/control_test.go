package ipc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// serving starts a control server in a fresh run dir with h and returns the
// run dir and a channel with Serve's result. Close runs at the end.
func serving(t *testing.T, h Handler) (string, *ControlServer, <-chan error) {
	t.Helper()
	dir := shortDir(t)
	c, err := ListenControl(dir)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Serve(h) }()
	t.Cleanup(c.Close)
	return dir, c, done
}

// shortDir is a temporary directory with a short path: a unix socket path
// is limited to 107 bytes, and t.TempDir can exceed that with long names.
func shortDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func echoHandler(_ context.Context, req Request) Response {
	switch req.Cmd {
	case CmdStatus:
		return Response{OK: true, Status: json.RawMessage(`{"status":"ok"}`)}
	case CmdStop:
		return Response{OK: true, PID: 42}
	}
	return Response{Error: "unknown command " + req.Cmd}
}

func ctx5(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestControlRoundTrip(t *testing.T) {
	dir, _, _ := serving(t, echoHandler)
	st, err := os.Stat(filepath.Join(dir, ControlSocketName))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode()&os.ModeSocket == 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket with 0600", st.Mode())
	}
	resp, err := Control(ctx5(t), dir, Request{Cmd: CmdStatus})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.OK || resp.V != ControlVersion || string(resp.Status) != `{"status":"ok"}` {
		t.Errorf("status response %+v", resp)
	}
	if _, err := Control(ctx5(t), dir, Request{Cmd: "dance"}); err == nil || !strings.Contains(err.Error(), "unknown command dance") {
		t.Errorf("unknown command: %v", err)
	}
}

func TestControlWireFormat(t *testing.T) {
	dir, _, _ := serving(t, echoHandler)
	for _, tc := range []struct{ send, want string }{
		{`{"v":1,"cmd":"status"}`, `{"v":1,"ok":true,"status":{"status":"ok"}}`},
		{`{"v":2,"cmd":"status"}`, `{"v":1,"ok":false,"error":"unsupported control protocol version 2; this daemon speaks 1"}`},
		{`not json`, `"ok":false`},
	} {
		conn, err := net.Dial("unix", filepath.Join(dir, ControlSocketName))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, tc.send+"\n")
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(conn)
		conn.Close()
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("sent %s, got %s, want %s", tc.send, b, tc.want)
		}
	}
}

func TestControlNoDaemon(t *testing.T) {
	dir := shortDir(t)
	if _, err := Control(ctx5(t), dir, Request{Cmd: CmdStatus}); !errors.Is(err, ErrNoDaemon) {
		t.Errorf("no socket: %v, want ErrNoDaemon", err)
	}
	// A stale socket file (its daemon killed): nothing listens.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, ControlSocketName), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Control(ctx5(t), dir, Request{Cmd: CmdStatus}); !errors.Is(err, ErrNoDaemon) {
		t.Errorf("stale socket: %v, want ErrNoDaemon", err)
	}
	// A new server takes the stale socket's place.
	c, err := ListenControl(dir)
	if err != nil {
		t.Fatalf("listen over a stale socket: %v", err)
	}
	go c.Serve(echoHandler)
	defer c.Close()
	if _, err := Control(ctx5(t), dir, Request{Cmd: CmdStatus}); err != nil {
		t.Errorf("after taking over the stale socket: %v", err)
	}
}

// A client that connects and says nothing neither blocks other clients nor
// holds its connection past RequestTimeout.
func TestControlSilentClientTimesOut(t *testing.T) {
	dir, _, _ := serving(t, echoHandler)
	silent, err := net.Dial("unix", filepath.Join(dir, ControlSocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	start := time.Now()
	if _, err := Control(ctx5(t), dir, Request{Cmd: CmdStatus}); err != nil {
		t.Fatalf("status while a client is silent: %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("status took %v while a client was silent", d)
	}
	silent.SetReadDeadline(time.Now().Add(RequestTimeout + 3*time.Second))
	b, err := io.ReadAll(silent)
	if err != nil {
		t.Fatalf("silent client not dropped: %v", err)
	}
	if d := time.Since(start); d < RequestTimeout-100*time.Millisecond || d > RequestTimeout+2*time.Second {
		t.Errorf("silent client dropped after %v, want about %v", d, RequestTimeout)
	}
	if !strings.Contains(string(b), "no request within") {
		t.Errorf("silent client got %q", b)
	}
}

func TestControlStopEndsServe(t *testing.T) {
	dir, c, done := serving(t, echoHandler)
	resp, err := Control(ctx5(t), dir, Request{Cmd: CmdStop})
	if err != nil || resp.PID != 42 {
		t.Fatalf("stop: %+v, %v", resp, err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrStopRequested) {
			t.Errorf("Serve returned %v, want ErrStopRequested", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after stop")
	}
	c.Close()
	if _, err := os.Stat(filepath.Join(dir, ControlSocketName)); !os.IsNotExist(err) {
		t.Errorf("socket left after Close: %v", err)
	}
}

// Close cancels the handlers' context and waits for them, and Serve
// returns nil.
func TestControlCloseWaitsForHandlers(t *testing.T) {
	var mu sync.Mutex
	finished := false
	entered := make(chan struct{})
	dir, c, done := serving(t, func(ctx context.Context, req Request) Response {
		close(entered)
		<-ctx.Done()
		time.Sleep(100 * time.Millisecond) // a slow cleanup, which Close must wait for
		mu.Lock()
		finished = true
		mu.Unlock()
		return Response{Error: "cancelled"}
	})
	asked := make(chan struct{})
	go func() { // joined at the end
		defer close(asked)
		_, _ = Control(context.Background(), dir, Request{Cmd: CmdReload})
	}()
	select {
	case <-entered:
	case <-time.After(5 * time.Second):
		t.Fatal("handler not called")
	}
	c.Close()
	mu.Lock()
	if !finished {
		t.Error("Close returned before the handler finished")
	}
	mu.Unlock()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve returned %v after Close, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after Close")
	}
	select {
	case <-asked:
	case <-time.After(5 * time.Second):
		t.Fatal("the client did not return after Close")
	}
}

func TestControlClientHonoursContext(t *testing.T) {
	dir := shortDir(t)
	// A listener that accepts and never answers.
	ln, err := net.Listen("unix", filepath.Join(dir, ControlSocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Control(ctx, dir, Request{Cmd: CmdStatus})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want deadline exceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// Past maxControlConns requests at once, the next gets the daemon's "busy"
// answer, not a broken pipe.
func TestControlBusyIsAnAnswer(t *testing.T) {
	release := make(chan struct{})
	var held atomic.Int32
	dir, _, _ := serving(t, func(_ context.Context, req Request) Response {
		held.Add(1)
		<-release
		return echoHandler(context.Background(), req)
	})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(release)
	for range maxControlConns {
		wg.Go(func() { _, _ = Control(ctx5(t), dir, Request{Cmd: CmdStatus}) })
	}
	testwait.For(t, 5*time.Second, fmt.Sprintf("all %d requests to reach the handler", maxControlConns), func() bool { return held.Load() >= maxControlConns })
	_, err := Control(ctx5(t), dir, Request{Cmd: CmdStatus})
	if err == nil || !strings.Contains(err.Error(), "busy with other control requests") {
		t.Errorf("request past the limit: %v, want the busy answer", err)
	}
}
