package supervisor

import (
	"context"
	"encoding/json"
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

func (p *sessionPeer) ClientID() string { return p.id }

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
	_, u, _ := fake(t, nil)
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

// A process the server started in a session of its own dies when the
// gateway stops the server (proc.Stop kills the tree it found below it).
func TestSetsidGrandchildDiesWithTheServer(t *testing.T) {
	_, u, _ := fake(t, nil)
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
