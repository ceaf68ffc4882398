package supervisor

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
)

// sessionPeer is a client session that records what reaches it.
type sessionPeer struct {
	id       string
	mu       sync.Mutex
	requests []string
	block    chan struct{} // if set, Notify blocks until it is closed
	// blocked, if set, is closed when Notify first blocks on block.
	blocked     chan struct{}
	blockedOnce sync.Once
}

func (p *sessionPeer) Session() string { return p.id }

func (p *sessionPeer) Client() ClientInfo { return ClientInfo{} }

func (p *sessionPeer) Notify(ctx context.Context, method string, params json.RawMessage) {
	if p.block != nil {
		if p.blocked != nil {
			p.blockedOnce.Do(func() { close(p.blocked) })
		}
		select {
		case <-p.block:
		case <-ctx.Done():
		}
	}
}

func (p *sessionPeer) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests = append(p.requests, method)
	return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"from ` + p.id + `"},"model":"m"}`), nil
}

// With calls from two sessions in flight, a server's sampling request
// cannot be attributed, so it reaches neither client.
func TestServerRequestsNeverReachAnotherSession(t *testing.T) {
	_, u, _ := fake(t, nil)
	alice, bob := &sessionPeer{id: "alice"}, &sessionPeer{id: "bob"}
	ctx, cancel := context.WithCancel(context.Background())
	started := t.TempDir() + "/started"
	bobDone := make(chan struct{})
	go func() {
		defer close(bobDone)
		_, _ = u.Call(ctx, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"ms":5000,"started":"`+started+`"}}`), bob)
	}()
	defer func() { cancel(); <-bobDone }()
	fakeserver.WaitFile(t, started)
	res, err := u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"sample"}`), alice)
	if err != nil {
		t.Fatal(err)
	}
	contains(t, "result", string(res), "several client sessions")
	if len(alice.requests)+len(bob.requests) != 0 {
		t.Errorf("the request reached a client: alice %v, bob %v", alice.requests, bob.requests)
	}
	// With one session's calls only, it is relayed (once bob's cancelled
	// call has left the in-flight set).
	cancel()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		res, err = u.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"sample"}`), alice)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(res), "from alice") || time.Now().After(deadline) {
			break
		}
	}
	contains(t, "result", string(res), "from alice")
}

// A client that stops reading its notifications stalls only its own call.
func TestSlowClientDoesNotStallOthers(t *testing.T) {
	_, u, _ := fake(t, nil)
	stuck := &sessionPeer{id: "stuck", block: make(chan struct{}), blocked: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	stuckDone := make(chan struct{})
	go func() {
		defer close(stuckDone)
		_, _ = u.Call(ctx, "tools/call", json.RawMessage(`{"name":"progress","arguments":{"n":2000},"_meta":{"progressToken":1}}`), stuck)
	}()
	defer func() { cancel(); close(stuck.block); <-stuckDone }()
	// The stuck client's delivery is blocked before the other call starts.
	select {
	case <-stuck.blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("the stuck client got no notification within 10 s")
	}
	done := make(chan string, 1)
	go func() { s, _ := callText(t, u, "echo", `{"text":"other"}`); done <- s }()
	select {
	case got := <-done:
		if got != "other" {
			t.Errorf("echo = %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a stuck client stalled another call for 10 s")
	}
}

func TestServerThatClosesStdoutFailsFast(t *testing.T) {
	_, u, _ := fakeWithShim(t, nil)
	mustText(t, u, "closeout", `{}`)
	start := time.Now()
	_, err := callText(t, u, "echo", `{"text":"x"}`)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("call to a server with closed stdout took %v (err %v)", d, err)
	}
	// The next call starts a fresh server.
	if got := mustText(t, u, "echo", `{"text":"again"}`); got != "again" {
		t.Errorf("echo after restart = %q", got)
	}
}

func TestSetsidGrandchildDiesWithTheServer(t *testing.T) {
	_, u, _ := fakeWithShim(t, nil)
	pid := mustText(t, u, "forksetsid", `{}`)
	u.Stop(context.Background())
	waitFor(t, func() bool {
		b, err := os.ReadFile("/proc/" + pid + "/stat")
		return err != nil || strings.Contains(string(b), ") Z ")
	})
}

func TestUndecodableResponseFailsTheCall(t *testing.T) {
	_, u, _ := fake(t, nil)
	_, err := callText(t, u, "deep", `{}`)
	if err == nil || !strings.Contains(err.Error(), "could not be decoded") {
		t.Fatalf("deep result: %v", err)
	}
	if got := mustText(t, u, "echo", `{"text":"fine"}`); got != "fine" {
		t.Errorf("next call = %q", got)
	}
}

func TestSecretsMaskedInEscapedForms(t *testing.T) {
	buf := &syncBuffer{}
	log := NewLog(buf)
	secret := "pässwörd\"quote\nline2-secret"
	log.AddSecrets(secret)
	log.Logger().Info("tool dropped", "tool", "t-"+secret)
	log.Line("srv", `{"notif":"p\u00e4ssw\u00f6rd\"quote"}`)
	log.Line("srv", "second line: line2-secret")
	for _, form := range []string{"pässwörd", `p\u00e4ssw`, "line2-secret"} {
		if strings.Contains(buf.String(), form) {
			t.Errorf("log holds %q:\n%s", form, buf.String())
		}
	}
	_ = slog.Default
}

// A secret that a long line's split would cut in two is never logged in
// halves, whichever byte the split falls on, for server stderr (copyLines)
// and for install output (Writer). Before, a 16 KiB split put both halves
// in the log, and one into the stderr tail that /health shows.
func TestSecretsSurviveLongLineSplits(t *testing.T) {
	const secret = "envsecretvalue_ABCDEFGHIJ"
	for off := maxLogLine - len(secret) - 2; off <= maxLogLine+2; off++ {
		line := strings.Repeat("a", off) + secret + strings.Repeat("b", 100) + "\n"
		for name, write := range map[string]func(l *Log){
			"stderr": func(l *Log) {
				var tails []string
				copyLines(l, "srv", strings.NewReader(line+line), func(s string) { tails = append(tails, l.Mask(s)) })
				if joined := strings.Join(tails, "|"); strings.Contains(joined, "envsec") || strings.Contains(joined, "ABCDEF") {
					t.Errorf("offset %d: the stderr tail holds part of the secret", off)
				}
			},
			"writer": func(l *Log) {
				w := l.Writer("srv")
				_, _ = w.Write([]byte(line[:off+3])) // split inside the secret, too
				_, _ = w.Write([]byte(line[off+3:]))
				w.Close()
			},
		} {
			buf := &syncBuffer{}
			l := NewLog(buf)
			l.AddSecrets(secret)
			write(l)
			out := buf.String()
			if strings.Contains(out, "envsec") || strings.Contains(out, "ABCDEF") || !strings.Contains(out, secretMask) {
				t.Fatalf("%s, offset %d: the log holds part of the secret or no mask", name, off)
			}
			if got := strings.Count(out, "a") + strings.Count(out, "b"); got < (off+100)*strings.Count(line+line, "\n")/2 {
				t.Fatalf("%s, offset %d: %d of the line's bytes logged, some were lost", name, off, got)
			}
		}
	}
}
