package ipc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// The hand-over socket of a warm daemon (SPEC §2.6, §2.9): a unix socket
// in the run dir, beside the pid file and the control socket, mode 0600,
// that exists only while a warm daemon waits for its config. A launcher
// connects, writes one Handover document (with the config, the token and
// its environment) and half-closes; the daemon answers with reports, one
// JSON line each, as on the report pipe:
//
//	← {"event": "refused", "error": "…"}     the warm daemon stays as it was
//	← {"event": "accepted"}                  then progress…, and ready or failed
//
// The daemon takes one config only: once it has accepted one, the socket
// is gone, and a later launcher finds a running daemon (SPEC §2.7).

// HandoverSocketName is the hand-over socket's name in the run dir.
const HandoverSocketName = "handover.sock"

// handoverReadTimeout bounds how long a connection may take to send its
// hand-over document.
const handoverReadTimeout = 10 * time.Second

// ErrNotWarm is DialHandover's error when no warm daemon listens in the
// run dir.
var ErrNotWarm = errors.New("no warm gateway waits for a config")

// HandoverListener is a warm daemon's hand-over socket.
type HandoverListener struct {
	path string
	ln   *net.UnixListener
}

// ListenHandover listens on the hand-over socket in runDir, mode 0600.
// The caller holds the run dir's pid lock, so a socket file already
// there is a stale one, and is removed.
func ListenHandover(runDir string) (*HandoverListener, error) {
	path := filepath.Join(runDir, HandoverSocketName)
	ln, err := listenPrivate(path, "hand-over socket")
	if err != nil {
		return nil, err
	}
	return &HandoverListener{path: path, ln: ln}, nil
}

// RemoveStaleHandover removes a hand-over socket left in runDir by a warm
// daemon that was killed: the caller holds the run dir's pid lock, and is
// not warm. Nothing listens on such a socket; a launcher would only be
// told so, but an operator reading the run dir should not be misled.
func RemoveStaleHandover(runDir string) {
	_ = os.Remove(filepath.Join(runDir, HandoverSocketName))
}

// Close stops listening and removes the socket. It may be called more
// than once.
func (l *HandoverListener) Close() {
	if l.ln.Close() == nil {
		os.Remove(l.path)
	}
}

// PendingHandover is one launcher's hand-over, read and not yet answered.
type PendingHandover struct {
	Handover
	conn *net.UnixConn
}

// Accept waits for the next launcher and reads its hand-over. A
// connection from another user, or one that sends no valid document
// within handoverReadTimeout, is refused and Accept waits for the next.
// It returns net.ErrClosed once Close was called.
func (l *HandoverListener) Accept() (*PendingHandover, error) {
	for {
		conn, err := l.ln.AcceptUnix()
		if err != nil {
			return nil, err
		}
		p := &PendingHandover{conn: conn}
		if err := checkPeer(conn); err != nil {
			p.Refuse(err)
			continue
		}
		_ = conn.SetReadDeadline(time.Now().Add(handoverReadTimeout))
		h, err := ReadHandover(conn)
		if err != nil {
			p.Refuse(err)
			continue
		}
		_ = conn.SetReadDeadline(time.Time{})
		p.Handover = h
		return p, nil
	}
}

// Refuse tells the launcher why its config was not taken, and closes the
// connection.
func (p *PendingHandover) Refuse(err error) {
	NewReporter(p.conn).Send(Report{Event: EventRefused, Error: err.Error()})
}

// Accept tells the launcher its config was taken, and returns the
// reporter on which its progress and its ready or failed report follow
// (that last one closes the connection).
func (p *PendingHandover) Accept() *Reporter {
	r := NewReporter(p.conn)
	r.Send(Report{Event: EventAccepted})
	return r
}

// DialHandover hands h to the warm daemon of runDir, and returns the
// connection its reports come on (ReadReports), which the caller closes.
// It fails with an error wrapping ErrNotWarm when no warm daemon listens.
func DialHandover(runDir string, h Handover) (io.ReadCloser, error) {
	path := filepath.Join(runDir, HandoverSocketName)
	conn, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w (no hand-over socket at %s)", ErrNotWarm, path)
		}
		return nil, fmt.Errorf("connect to hand-over socket: %w", err)
	}
	if err := json.NewEncoder(conn).Encode(h); err != nil {
		conn.Close()
		return nil, fmt.Errorf("write hand-over: %w", err)
	}
	if err := conn.CloseWrite(); err != nil {
		conn.Close()
		return nil, fmt.Errorf("write hand-over: %w", err)
	}
	return conn, nil
}
