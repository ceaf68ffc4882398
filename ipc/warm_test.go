package ipc

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
)

// accepting serves the hand-over socket of a fresh run dir: each
// hand-over read is sent on the returned channel.
func accepting(t *testing.T) (string, *HandoverListener, <-chan *PendingHandover) {
	t.Helper()
	dir := shortDir(t)
	l, err := ListenHandover(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *PendingHandover, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			p, err := l.Accept()
			if err != nil {
				return
			}
			got <- p
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return dir, l, got
}

func reports(t *testing.T, r io.ReadCloser) []Report {
	t.Helper()
	defer r.Close()
	var out []Report
	_ = ReadReports(r, func(rep Report) bool { out = append(out, rep); return true })
	return out
}

// A launcher hands its config over; the warm daemon refuses it (and
// stays listening) or accepts it, and the reports follow, as on the pipe.
func TestHandoverRefusedThenAccepted(t *testing.T) {
	dir, l, got := accepting(t)
	st, err := os.Stat(filepath.Join(dir, HandoverSocketName))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket: %v, mode %v; want 0600", err, st.Mode())
	}
	h := Handover{Config: []byte(`{"a":{}}`), Token: "tok", Settings: []byte(`{}`), Env: []string{"A=1"}}
	conn, err := DialHandover(dir, h)
	if err != nil {
		t.Fatal(err)
	}
	p := <-got
	if string(p.Config) != `{"a":{}}` || p.Token != "tok" || len(p.Env) != 1 {
		t.Errorf("read %+v", p.Handover)
	}
	p.Refuse(errors.New("invalid config: no"))
	if r := reports(t, conn); len(r) != 1 || r[0].Event != EventRefused || r[0].Error != "invalid config: no" {
		t.Errorf("refused: %+v", r)
	}
	conn, err = DialHandover(dir, h)
	if err != nil {
		t.Fatalf("after a refusal the socket still takes a config: %v", err)
	}
	rep := (<-got).Accept()
	rep.Send(Report{Event: EventProgress, Message: "starting"})
	rep.Send(Report{Event: EventReady, Addr: "127.0.0.1:1"})
	r := reports(t, conn)
	if len(r) != 3 || r[0].Event != EventAccepted || r[2].Event != EventReady {
		t.Errorf("accepted: %+v", r)
	}
	// Once closed, the socket is gone, and a launcher is told nobody is warm.
	l.Close()
	if _, err := os.Stat(filepath.Join(dir, HandoverSocketName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
	if _, err := DialHandover(dir, h); !errors.Is(err, ErrNotWarm) {
		t.Errorf("dial after Close: %v, want ErrNotWarm", err)
	}
}

// A connection that sends no hand-over document is refused, and the next
// launcher is served.
func TestHandoverBadDocumentIsRefused(t *testing.T) {
	dir, _, got := accepting(t)
	c, err := net.Dial("unix", filepath.Join(dir, HandoverSocketName))
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "not json\n")
	c.(*net.UnixConn).CloseWrite()
	if r := reports(t, c); len(r) != 1 || r[0].Event != EventRefused {
		t.Errorf("bad document: %+v", r)
	}
	conn, err := DialHandover(dir, Handover{Config: []byte(`{}`), Settings: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	(<-got).Refuse(errors.New("fine"))
	conn.Close()
}

func TestDialHandoverWithoutWarmDaemon(t *testing.T) {
	if _, err := DialHandover(shortDir(t), Handover{}); !errors.Is(err, ErrNotWarm) {
		t.Errorf("err = %v, want ErrNotWarm", err)
	}
}
