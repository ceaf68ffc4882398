package httpup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// wireClient carries the requests to an HTTP server reached over plain
// http and no proxy (the common case of SPEC §5.6: a server the gateway
// starts with runCmd on loopback) on the caller's goroutine: the request
// is written and its answer parsed by net/http's own Request.Write and
// ReadResponse, over a pool of kept-alive HTTP/1.1 connections. net/http's
// Transport hands every request to two goroutines of its own, a writer
// and a reader, which cost a sequential call about 35 µs on the 2-core
// machine (make bench: the HTTP upstream figure); https, a proxy and a
// redirect go through the Transport (Transport.roundTrip).
//
// A connection goes back to the pool once its answer's body has been read
// to its end and the server keeps it alive; an answer closed before its
// end closes it. An idle connection the server has closed is noticed
// before it is used (alive, unless it was used within freshIdle), and a
// request that fails on a reused
// connection before any byte of its answer is sent once more on a new
// one, as browsers do for that race. ctx ending closes the connection,
// which ends a blocked write or read with ctx's error.
type wireClient struct {
	addr   string // host:port
	dialer net.Dialer

	mu     sync.Mutex
	idle   []*wireConn
	closed bool
	reaper *time.Timer // armed while idle holds a connection (reap)
}

// dialTimeout bounds a TCP connection to the server (NewClient's dialer,
// and the wire client's).
const dialTimeout = 10 * time.Second

// maxIdleWire bounds the idle connections a wireClient keeps.
const maxIdleWire = 64

// The idle connections are looked at every reapEvery while there are
// any: one the server has closed, or idle longer than maxIdleTime, is
// closed (reap). get only looks at the newest, so without it one the
// server closed stayed open on this side (CLOSE_WAIT), an fd each, for
// as long as newer ones served the calls: Node's servers close an idle
// connection after 5 s, and a burst of calls left up to maxIdleWire of
// them. The chaos run found it (test/chaos, TestIdleUpstreamConnsClosed).
const (
	reapEvery   = time.Second
	maxIdleTime = 90 * time.Second // net/http's DefaultTransport's IdleConnTimeout
)

type wireConn struct {
	c    net.Conn
	lim  *io.LimitedReader // c, under br: bounds an answer's head (exchange)
	br   *bufio.Reader
	bw   *bufio.Writer
	idle time.Time // when it was given back
}

// freshIdle is how long a connection may have been idle and still be
// used without asking the kernel whether the server closed it (alive):
// servers keep idle connections for seconds, and the retry of do covers
// the rare one closed sooner.
const freshIdle = time.Second

// newWireClient returns a wireClient for u, or nil when u needs the
// Transport: https, or a proxy from the environment.
func newWireClient(u *url.URL) *wireClient {
	if u.Scheme != "http" {
		return nil
	}
	if p, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || p != nil {
		return nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	return &wireClient{addr: net.JoinHostPort(u.Hostname(), port), dialer: net.Dialer{Timeout: dialTimeout, KeepAlive: -1}}
}

// do sends req and returns its answer, whose body the caller reads to
// its end and closes.
func (w *wireClient) do(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	for attempt := 0; ; attempt++ {
		wc, reused, err := w.get(ctx)
		if err != nil {
			return nil, &url.Error{Op: req.Method, URL: req.URL.String(), Err: err}
		}
		stop := context.AfterFunc(ctx, func() { wc.c.Close() })
		resp, began, err := w.exchange(wc, req)
		if err == nil {
			b := &wireBody{ReadCloser: resp.Body, w: w, wc: wc, stop: stop, keep: !resp.Close, left: resp.ContentLength}
			if b.left == 0 {
				b.release() // no body: 202, 204, 304, or an empty one
			}
			resp.Body = b
			return resp, nil
		}
		stop()
		wc.c.Close()
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		} else if reused && attempt == 0 && !began && (req.Body == nil || req.GetBody != nil) {
			if req.GetBody == nil {
				continue
			}
			if req.Body, err = req.GetBody(); err == nil {
				continue // the server closed the connection as it was reused
			}
		}
		return nil, &url.Error{Op: req.Method, URL: req.URL.String(), Err: err}
	}
}

// exchange writes req on wc and reads its answer's head; began says
// whether any byte of an answer came (if none did, the server never took
// the request).
func (w *wireClient) exchange(wc *wireConn, req *http.Request) (resp *http.Response, began bool, err error) {
	if err := req.Write(wc.bw); err != nil {
		return nil, false, err
	}
	if err := wc.bw.Flush(); err != nil {
		return nil, false, err
	}
	// The head of an answer is read whole into memory, so it is bounded,
	// as net/http's Transport bounds it (MaxResponseHeaderBytes); what br
	// reads ahead of the body counts too, hence the buffer's size on top.
	wc.lim.N = maxAnswerHead + int64(wc.br.Size())
	defer func() {
		if err != nil && wc.lim.N <= 0 {
			err = fmt.Errorf("the answer's head (status line and headers) runs past %d bytes", maxAnswerHead)
		}
		wc.lim.N = math.MaxInt64
	}()
	if _, err := wc.br.Peek(1); err != nil {
		return nil, false, err
	}
	// An interim answer (1xx but 101: 100 Continue, 103 Early Hints) comes
	// before the real one, which a client reads past (RFC 9110 §15.2), as
	// net/http's Transport does; taken for the answer, it failed the call
	// and left the real one on the connection for the next request.
	for interim := 0; ; interim++ {
		resp, err = http.ReadResponse(wc.br, req)
		if err != nil || resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, true, err
		}
		if interim == maxInterim {
			return nil, true, fmt.Errorf("more than %d interim (1xx) answers before the answer", maxInterim)
		}
	}
}

// maxAnswerHead bounds an answer's status line and headers, which an MCP
// server keeps to a few hundred bytes; the Transport's
// MaxResponseHeaderBytes is set to it too (NewClient).
const maxAnswerHead = 1 << 20

// maxInterim bounds the interim (1xx) answers read before an answer, as
// net/http's Transport bounds them.
const maxInterim = 5

// get returns an idle connection that is still open, or a new one.
func (w *wireClient) get(ctx context.Context) (wc *wireConn, reused bool, err error) {
	for {
		w.mu.Lock()
		if w.closed {
			w.mu.Unlock()
			return nil, false, errClosed
		}
		n := len(w.idle)
		if n == 0 {
			w.mu.Unlock()
			break
		}
		wc = w.idle[n-1]
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		if wc.br.Buffered() == 0 && (time.Since(wc.idle) < freshIdle || alive(wc.c)) {
			return wc, true, nil
		}
		wc.c.Close()
	}
	c, err := w.dialer.DialContext(ctx, "tcp", w.addr)
	if err != nil {
		return nil, false, err
	}
	lim := &io.LimitedReader{R: c, N: math.MaxInt64}
	return &wireConn{c: c, lim: lim, br: bufio.NewReaderSize(lim, 32<<10), bw: bufio.NewWriterSize(c, 16<<10)}, false, nil
}

// put keeps wc for another request, or closes it.
func (w *wireClient) put(wc *wireConn) {
	wc.idle = time.Now()
	w.mu.Lock()
	if !w.closed && len(w.idle) < maxIdleWire {
		w.idle = append(w.idle, wc)
		wc = nil
		if w.reaper == nil {
			w.reaper = time.AfterFunc(reapEvery, w.reap)
		}
	}
	w.mu.Unlock()
	if wc != nil {
		wc.c.Close()
	}
}

// reap closes the idle connections the server has closed or that have
// been idle past maxIdleTime, and runs again in reapEvery while any is
// kept. It runs on the timer's goroutine, which only holds w.mu and
// closes sockets: nothing waits for it, and close stops it.
func (w *wireClient) reap() {
	w.mu.Lock()
	var dead []*wireConn
	kept := w.idle[:0]
	for _, wc := range w.idle {
		if wc.br.Buffered() != 0 || time.Since(wc.idle) > maxIdleTime || !alive(wc.c) {
			dead = append(dead, wc)
			continue
		}
		kept = append(kept, wc)
	}
	clear(w.idle[len(kept):])
	w.idle = kept
	if len(w.idle) > 0 && !w.closed {
		w.reaper.Reset(reapEvery)
	} else {
		w.reaper = nil
	}
	w.mu.Unlock()
	for _, wc := range dead {
		wc.c.Close()
	}
}

// dropIdle closes the idle connections: an answer that was not the
// request's (Transport.jsonAnswer) says one of them holds another's bytes.
func (w *wireClient) dropIdle() {
	w.mu.Lock()
	idle := w.idle
	w.idle = nil
	w.mu.Unlock()
	for _, wc := range idle {
		wc.c.Close()
	}
}

// close closes the idle connections, and every later one as it is given
// back.
func (w *wireClient) close() {
	w.mu.Lock()
	w.closed = true // put closes what comes back from now on
	if w.reaper != nil {
		w.reaper.Stop()
		w.reaper = nil
	}
	w.mu.Unlock()
	w.dropIdle()
}

// alive tells whether an idle connection is still open: a peek that
// neither blocks nor consumes finds no end of stream (nor data: an idle
// connection has none to give).
func alive(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	var buf [1]byte
	_ = rc.Read(func(fd uintptr) bool {
		_, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = errors.Is(err, syscall.EAGAIN) // nothing to read, and no end of stream (n 0, no error)
		return true
	})
	return open
}

// wireBody is an answer's body on a wireClient connection: read to its
// end (its Content-Length, or the end the framing marks), the connection
// goes back to the pool (if the server keeps it); closed before that, it
// is closed.
type wireBody struct {
	io.ReadCloser
	w    *wireClient
	wc   *wireConn
	stop func() bool
	keep bool
	left int64 // bytes still to come of a known length; -1 unknown
	done bool
}

func (b *wireBody) Read(p []byte) (int, error) {
	if b.done && b.left == 0 {
		return 0, io.EOF
	}
	n, err := b.ReadCloser.Read(p)
	if b.left > 0 {
		b.left -= int64(n)
	}
	if b.left == 0 || errors.Is(err, io.EOF) {
		b.release()
	}
	return n, err
}

// release gives the connection back once the body has ended.
func (b *wireBody) release() {
	if b.done {
		return
	}
	b.done, b.left = true, 0
	if b.stop() && b.keep {
		b.w.put(b.wc)
	} else {
		b.wc.c.Close()
	}
}

func (b *wireBody) Close() error {
	if !b.done {
		b.done = true
		b.stop()
		b.wc.c.Close()
	}
	return nil
}
