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
	"sync"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/supervisor/reloader"
)

// The control channel (SPEC §8.1): a unix socket in the run dir, beside the
// pid file, mode 0600, that `mcp-gateway status`, `stop` and `reload` talk
// to. One connection carries one request and one response, each a JSON
// document:
//
//	→ {"v": 1, "cmd": "status"}
//	← {"v": 1, "ok": true, "status": {…}}
//	→ {"v": 1, "cmd": "reload"}
//	← {"v": 1, "ok": true, "reload": {"restarted": ["time"], …}}
//	→ {"v": 1, "cmd": "stop"}
//	← {"v": 1, "ok": true, "pid": 42}
//	← {"v": 1, "ok": false, "error": "…"}
//
// "v" is the protocol version; a daemon answers a request of another
// version with ok false and says which it speaks. New fields may be added
// to a version; readers ignore fields they do not know.

// ControlSocketName is the control socket's name in the run dir.
const ControlSocketName = "control.sock"

// ControlVersion is the protocol version this package speaks.
const ControlVersion = 1

// Control commands.
const (
	CmdStatus = "status" // the daemon's state: Response.Status
	CmdStop   = "stop"   // shut down as on SIGTERM: Response.PID
	CmdReload = "reload" // re-read the catalog file now: Response.Reload
	CmdCode   = "code"   // the merged tools the code API is written from (SPEC §12): Response.Code
)

// Limits of the control server. A client that connects and says nothing is
// dropped after RequestTimeout, so it never holds a slot for long.
const (
	RequestTimeout  = 2 * time.Second
	responseTimeout = 5 * time.Second
	maxRequest      = 64 << 10
	maxResponse     = 16 << 20
	maxControlConns = 16
)

// ErrNoDaemon is returned by Control when nothing listens on the socket.
var ErrNoDaemon = errors.New("no gateway is running")

// ErrStopRequested is returned by ControlServer.Serve once a stop request
// has been answered.
var ErrStopRequested = errors.New("stop requested over the control socket")

// Request is what a client sends.
type Request struct {
	V   int    `json:"v"`
	Cmd string `json:"cmd"`
}

// Response is what the daemon answers. Status is the daemon's status
// document, opaque here (the CLI defines it).
type Response struct {
	V      int             `json:"v"`
	OK     bool            `json:"ok"`
	Error  string          `json:"error,omitempty"`
	PID    int             `json:"pid,omitempty"`
	Status json.RawMessage `json:"status,omitempty"`
	Reload *ReloadResult   `json:"reload,omitempty"`
	// Code is the code API's input (codeapi.Input's JSON), opaque here.
	Code json.RawMessage `json:"code,omitempty"`
}

// ReloadResult says what a catalog reload changed; the supervisor, which
// reloads (SPEC §6.3), defines it.
type ReloadResult = reloader.Result

// ServerError is one server and what went wrong with it.
type ServerError = reloader.ServerError

// Handler answers one request. ctx is cancelled when the server closes.
// It need not set V.
type Handler func(ctx context.Context, req Request) Response

// ControlServer serves the control socket. It runs each connection on its
// own goroutine, so a slow or silent client never blocks the daemon, and
// answers at most maxControlConns at once (more are refused at once).
type ControlServer struct {
	path string
	ln   *net.UnixListener

	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}

	mu       sync.Mutex
	closed   bool
	conns    sync.WaitGroup
	stopOnce sync.Once
	stopped  chan struct{} // closed once a stop request was answered
}

// ListenControl listens on the control socket in runDir, mode 0600. The
// caller must hold the run dir's pid lock (LockPID): a socket file already
// there is then a stale one from a killed daemon, and is removed.
func ListenControl(runDir string) (*ControlServer, error) {
	path := filepath.Join(runDir, ControlSocketName)
	ln, err := listenPrivate(path, "control socket")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &ControlServer{
		path: path, ln: ln, ctx: ctx, cancel: cancel,
		slots:   make(chan struct{}, maxControlConns),
		stopped: make(chan struct{}),
	}, nil
}

// listenPrivate listens on a unix socket at path, mode 0600, in a run dir
// whose pid lock the caller holds: a socket file already there is a stale
// one from a killed daemon, and is removed. The listener does not remove
// the file when closed; its owner does. what names it in errors.
func listenPrivate(path, what string) (*net.UnixListener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale %s: %w", what, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", what, err)
	}
	ln.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		os.Remove(path)
		return nil, fmt.Errorf("listen on %s: %w", what, err)
	}
	return ln, nil
}

// Path returns the socket's path.
func (c *ControlServer) Path() string { return c.path }

// Serve accepts connections and answers them with h until Close, then
// returns nil; or, once a stop request has been answered, it stops
// accepting and returns ErrStopRequested. Either way the caller then calls
// Close. It suits an oklog/run actor: execute Serve, interrupt Close.
func (c *ControlServer) Serve(h Handler) error {
	var delay time.Duration
	for {
		conn, err := c.ln.AcceptUnix()
		if err != nil {
			select {
			case <-c.stopped:
				return ErrStopRequested
			default:
			}
			c.mu.Lock()
			closed := c.closed
			c.mu.Unlock()
			if closed || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// EMFILE and the like: back off as net/http does.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		delay = 0
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			conn.Close()
			continue
		}
		c.conns.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.conns.Done()
			defer conn.Close()
			select {
			case c.slots <- struct{}{}:
				defer func() { <-c.slots }()
				c.handle(conn, h)
			default:
				// Read the request first: a reply to a client still writing
				// reached it as "broken pipe" instead of this.
				_ = conn.SetReadDeadline(time.Now().Add(time.Second))
				var req Request
				_ = json.NewDecoder(io.LimitReader(conn, maxRequest)).Decode(&req)
				c.reply(conn, Response{Error: "the daemon is busy with other control requests; try again"})
			}
		}()
	}
}

// handle reads one request, answers it, and for stop ends Serve after the
// answer has been written.
func (c *ControlServer) handle(conn *net.UnixConn, h Handler) {
	if err := checkPeer(conn); err != nil {
		c.reply(conn, Response{Error: err.Error()})
		return
	}
	_ = conn.SetReadDeadline(time.Now().Add(RequestTimeout))
	var req Request
	if err := json.NewDecoder(io.LimitReader(conn, maxRequest)).Decode(&req); err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			c.reply(conn, Response{Error: fmt.Sprintf("no request within %s", RequestTimeout)})
			return
		}
		c.reply(conn, Response{Error: "decode request: " + err.Error()})
		return
	}
	if req.V != ControlVersion {
		c.reply(conn, Response{Error: fmt.Sprintf("unsupported control protocol version %d; this daemon speaks %d", req.V, ControlVersion)})
		return
	}
	resp := h(c.ctx, req)
	c.reply(conn, resp)
	if req.Cmd == CmdStop && resp.OK {
		c.stopOnce.Do(func() {
			close(c.stopped)
			c.ln.Close()
		})
	}
}

func (c *ControlServer) reply(conn *net.UnixConn, resp Response) {
	resp.V = ControlVersion
	_ = conn.SetWriteDeadline(time.Now().Add(responseTimeout))
	_ = json.NewEncoder(conn).Encode(resp)
}

// checkPeer admits root and the daemon's own user only. The socket's mode
// already says so; this also covers the moment between listen and chmod.
func checkPeer(conn *net.UnixConn) error {
	raw, err := conn.SyscallConn()
	if err != nil {
		return fmt.Errorf("check peer: %w", err)
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return fmt.Errorf("check peer: %w", err)
	}
	if credErr != nil {
		return fmt.Errorf("check peer: %w", credErr)
	}
	if cred.Uid != 0 && int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("permission denied: uid %d may not control this gateway", cred.Uid)
	}
	return nil
}

// Close stops accepting, cancels the handlers' context, waits for the
// connections in progress (each bounded by its timeouts and its handler),
// and removes the socket. It may be called more than once.
func (c *ControlServer) Close() {
	c.mu.Lock()
	first := !c.closed
	c.closed = true
	c.mu.Unlock()
	if !first {
		return
	}
	c.cancel()
	c.ln.Close()
	c.conns.Wait()
	os.Remove(c.path)
}

// Control sends one request to the daemon whose run dir is runDir and
// returns its response. It fails with an error wrapping ErrNoDaemon when
// nothing listens on the socket, and with the daemon's message when it
// answers ok false. ctx bounds the whole exchange.
func Control(ctx context.Context, runDir string, req Request) (Response, error) {
	path := filepath.Join(runDir, ControlSocketName)
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return Response{}, fmt.Errorf("%w (no control socket at %s)", ErrNoDaemon, path)
		}
		return Response{}, fmt.Errorf("connect to control socket: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if req.V == 0 {
		req.V = ControlVersion
	}
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return Response{}, fmt.Errorf("send control request: %w", ctxErr(ctx, err))
	}
	var resp Response
	if err := json.NewDecoder(io.LimitReader(conn, maxResponse)).Decode(&resp); err != nil {
		return Response{}, fmt.Errorf("read control response: %w", ctxErr(ctx, err))
	}
	if !resp.OK {
		msg := resp.Error
		if msg == "" {
			msg = "the daemon refused the request"
		}
		return resp, errors.New(msg)
	}
	if resp.V != ControlVersion {
		return resp, fmt.Errorf("the daemon answered with control protocol version %d; this client speaks %d", resp.V, ControlVersion)
	}
	return resp, nil
}

// ctxErr prefers ctx's error to the i/o error it caused.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
