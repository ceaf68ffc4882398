package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// StdioClient speaks newline-delimited JSON-RPC to a server it spawned, the
// way the gateway does: one writer under a mutex, one reader goroutine that
// hands each response to its waiting caller by id, any number of requests
// in flight. It is the "direct" side of every figure.
type StdioClient struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser

	wmu sync.Mutex

	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan []byte
	err     error
	dead    chan struct{}
	exited  chan struct{}
	stderr  *tailBuffer
	started time.Time
}

// StartStdio spawns argv with pipes on stdin and stdout.
func StartStdio(argv []string) (*StdioClient, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c := &StdioClient{cmd: cmd, stdin: stdin, pending: map[int64]chan []byte{},
		dead: make(chan struct{}), exited: make(chan struct{}), stderr: &tailBuffer{}}
	cmd.Stderr = c.stderr
	c.started = time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", argv[0], err)
	}
	go c.readLoop(stdout)
	go func() { _ = cmd.Wait(); close(c.exited) }()
	return c, nil
}

// Started is when the process was spawned.
func (c *StdioClient) Started() time.Time { return c.started }

// PID is the server's process id.
func (c *StdioClient) PID() int { return c.cmd.Process.Pid }

// Initialize runs initialize, notifications/initialized and tools/list.
// It returns when the initialize response arrived (for spawn→initialize
// times).
func (c *StdioClient) Initialize(ctx context.Context) (initialized time.Time, err error) {
	if _, err := c.Call(ctx, "initialize", []byte(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)); err != nil {
		return time.Time{}, fmt.Errorf("initialize: %w", err)
	}
	initialized = time.Now()
	if err := c.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		return time.Time{}, err
	}
	if _, err := c.Call(ctx, "tools/list", []byte(`{}`)); err != nil {
		return time.Time{}, fmt.Errorf("tools/list: %w", err)
	}
	return initialized, nil
}

// Call sends a request and returns the raw result, or an error for a
// JSON-RPC error response.
func (c *StdioClient) Call(ctx context.Context, method string, params []byte) ([]byte, error) {
	id := c.nextID.Add(1)
	ch := make(chan []byte, 1)
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.pending[id] = ch
	c.mu.Unlock()

	buf := make([]byte, 0, len(params)+len(method)+64)
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = strconv.AppendInt(buf, id, 10)
	buf = append(buf, `,"method":"`...)
	buf = append(buf, method...)
	buf = append(buf, `","params":`...)
	buf = append(buf, params...)
	buf = append(buf, "}\n"...)
	if err := c.write(buf); err != nil {
		return nil, err
	}
	select {
	case line := <-ch:
		return resultOf(line)
	case <-c.dead:
		c.mu.Lock()
		err := c.err
		c.mu.Unlock()
		return nil, err
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return nil, ctx.Err()
	}
}

func (c *StdioClient) write(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.stdin.Write(b)
	return err
}

func (c *StdioClient) readLoop(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64<<10)
	var err error
	var line []byte // reused: growing a fresh 8 MiB line costs more than one copy
	for {
		line, err = readLine(r, line[:0])
		if err != nil {
			break
		}
		raw, ok := jsonrpc.Member(line, "id")
		if !ok {
			continue // a notification (server-everything sends some)
		}
		if _, isRequest := jsonrpc.Member(line, "method"); isRequest {
			continue
		}
		id, ok := jsonrpc.ParseIntID(raw)
		if !ok {
			continue
		}
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			ch <- bytes.Clone(line)
		}
	}
	c.mu.Lock()
	c.err = fmt.Errorf("server stdout closed (%v); stderr: %s", err, c.stderr.String())
	close(c.dead)
	c.mu.Unlock()
}

// Close closes stdin and waits for the server to exit (killing it after
// 3 s).
func (c *StdioClient) Close() {
	_ = c.stdin.Close()
	select {
	case <-c.exited:
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// resultOf splits a response line into its result or its error.
func resultOf(line []byte) ([]byte, error) {
	var result, rpcErr []byte
	_ = jsonrpc.Members(line, func(k, v []byte) bool {
		switch string(k) {
		case "result":
			result = v
		case "error":
			rpcErr = v
		}
		return true
	})
	if rpcErr != nil {
		return nil, fmt.Errorf("JSON-RPC error: %s", truncate(rpcErr, 300))
	}
	if result == nil {
		return nil, fmt.Errorf("response without result: %s", truncate(line, 300))
	}
	return result, nil
}

// readLine appends the next line (without its newline) to buf; lines may
// be of any length.
func readLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		switch {
		case err == nil:
			buf = buf[:len(buf)-1]
			if n := len(buf); n > 0 && buf[n-1] == '\r' {
				buf = buf[:n-1]
			}
			return buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return buf, nil
		default:
			return buf, err
		}
	}
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + fmt.Sprintf("… (%d bytes)", len(b))
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = append(t.b[:0], t.b[len(t.b)-4096:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
