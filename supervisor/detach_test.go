package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
)

// detachingPeer detaches its call on the server's first request, and
// answers the request only once the test says so.
type detachingPeer struct {
	recordingPeer
	detach chan struct{}
	gone   chan struct{} // nil unless a test closes it
	once   sync.Once
	answer chan json.RawMessage
}

func (p *detachingPeer) Detach() <-chan struct{} { return p.detach }
func (p *detachingPeer) Gone() <-chan struct{}   { return p.gone }

// Request answers from p.answer whatever becomes of the ctx it is given
// (the call's first one, which a detached call outlives), within 10 s.
func (p *detachingPeer) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p.once.Do(func() { close(p.detach) })
	select {
	case v := <-p.answer:
		return v, nil
	case <-time.After(10 * time.Second):
		return nil, errors.New("no answer")
	}
}

// A Detacher's call returns a Reply holding the call (Detached) as soon as
// it detaches, while
// the server still waits for its answer; Wait then gives the call's
// result once the server has it (the MRTR bridge's parked call, SPEC §4.6).
// A call that never detaches returns as usual; a detached one goes on
// under Wait's context, not CallRun's.
func TestDetachedCallGoesOn(t *testing.T) {
	_, u, _ := fake(t, nil)
	p := &detachingPeer{detach: make(chan struct{}), answer: make(chan json.RawMessage, 1)}
	rep, err := u.CallRun(context.Background(), 0, "tools/call", json.RawMessage(`{"name":"elicit"}`), p)
	d := rep.Detached
	if err != nil || d == nil {
		t.Fatalf("CallRun = %+v, %v; want a detached call once the server asked", rep, err)
	}
	waited := make(chan string, 1)
	go func() {
		rep, err := d.Wait(context.Background())
		waited <- string(rep.Result) + " " + errString(err) + " run>0:" + map[bool]string{true: "yes", false: "no"}[rep.Run > 0]
	}()
	select {
	case got := <-waited:
		t.Fatalf("Wait returned %q before the server had its answer", got)
	case <-time.After(100 * time.Millisecond):
	}
	p.answer <- json.RawMessage(`{"action":"accept","content":{"n":7}}`)
	select {
	case got := <-waited:
		if !strings.Contains(got, `\"n\":7`) || !strings.Contains(got, "run>0:yes") || strings.Contains(got, "error") {
			t.Errorf("Wait = %s, want the result with the answer", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return after the answer")
	}

	// Not asked anything: no detach.
	q := &detachingPeer{detach: make(chan struct{})}
	if rep, err := u.CallRun(context.Background(), 0, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`), q); err != nil || rep.Detached != nil || !strings.Contains(string(rep.Result), "hi") {
		t.Errorf("echo with a Detacher peer: %+v %v", rep, err)
	}

	// Detached: CallRun's ctx no longer governs the call (it may be the
	// request's, which ends when the request does); Wait's does.
	ctx, cancel := context.WithCancel(context.Background())
	r := &detachingPeer{detach: make(chan struct{}), answer: make(chan json.RawMessage, 1)}
	if rep, err = u.CallRun(ctx, 0, "tools/call", json.RawMessage(`{"name":"elicit"}`), r); err != nil || rep.Detached == nil {
		t.Fatalf("CallRun = %+v, %v; want a detached call", rep, err)
	}
	d = rep.Detached
	cancel()
	r.answer <- json.RawMessage(`{"action":"accept","content":{"n":8}}`)
	if rep, err := d.Wait(context.Background()); err != nil || !strings.Contains(string(rep.Result), `\"n\":8`) {
		t.Errorf("Wait after CallRun's ctx ended = %s %v, want the result", rep.Result, err)
	}
	// Wait's ctx ending cancels the call.
	r = &detachingPeer{detach: make(chan struct{}), answer: make(chan json.RawMessage)}
	if rep, err = u.CallRun(context.Background(), 0, "tools/call", json.RawMessage(`{"name":"elicit"}`), r); err != nil || rep.Detached == nil {
		t.Fatalf("CallRun = %+v, %v; want a detached call", rep, err)
	}
	waitCtx, waitCancel := context.WithCancel(context.Background())
	waitCancel()
	if _, err := rep.Detached.Wait(waitCtx); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait on an ended ctx = %v, want context.Canceled", err)
	}
	select { // let the server's request end with the test
	case r.answer <- json.RawMessage(`{}`):
	case <-time.After(time.Second):
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return "error: " + err.Error()
}

// A Detacher's Gone closing while the call is attached cancels it: the
// server gets notifications/cancelled, and CallRun returns
// context.Canceled (a modern client that closed its stream).
func TestGoneCancelsAnAttachedCall(t *testing.T) {
	cancelFile := t.TempDir() + "/cancelled"
	_, u, _ := fake(t, map[string]string{"MCP_FAKE_CANCEL_FILE": cancelFile})
	started := t.TempDir() + "/started"
	p := &detachingPeer{detach: make(chan struct{}), gone: make(chan struct{})}
	errc := make(chan error, 1)
	go func() {
		_, err := u.CallRun(context.Background(), 0, "tools/call", json.RawMessage(`{"name":"sleep","arguments":{"ms":30000,"started":"`+started+`"}}`), p)
		errc <- err
	}()
	fakeserver.WaitFile(t, started)
	close(p.gone)
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("CallRun = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("CallRun did not return when its caller went away")
	}
	fakeserver.WaitFile(t, cancelFile) // the server got notifications/cancelled
}

// slowPeer is a detachingPeer whose Detach waits (up to 300 ms) for the
// server's request: it stands for a caller descheduled between sending
// the call and reading its Detach, while the server asks at once.
type slowPeer struct {
	detachingPeer
	asked chan struct{}
	seen  sync.Once
}

func (p *slowPeer) Detach() <-chan struct{} {
	select {
	case <-p.asked:
	case <-time.After(300 * time.Millisecond):
	}
	return p.detach
}

func (p *slowPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p.seen.Do(func() { close(p.asked) })
	return p.detachingPeer.Request(ctx, method, params)
}

// A server that asks before the caller reads its Detach still detaches
// the call: the channel is read before the request goes out. Read after,
// it was already closed, taken for a peer used again (TestDetachedPeerUsedAgain
// in the aggregator), and the call waited forever for an answer nobody
// would give (found under load in the bridge tests).
func TestServerAsksBeforeTheCallerWaits(t *testing.T) {
	_, u, _ := fake(t, nil)
	p := &slowPeer{detachingPeer: detachingPeer{detach: make(chan struct{}), answer: make(chan json.RawMessage, 1)}, asked: make(chan struct{})}
	type called struct {
		rep Reply
		err error
	}
	returned := make(chan called, 1)
	go func() {
		rep, err := u.CallRun(context.Background(), 0, "tools/call", json.RawMessage(`{"name":"elicit"}`), p)
		returned <- called{rep, err}
	}()
	select {
	case c := <-returned:
		if c.err != nil || c.rep.Detached == nil {
			t.Fatalf("CallRun = %+v, %v; want a detached call", c.rep, c.err)
		}
		p.answer <- json.RawMessage(`{"action":"decline"}`)
		if _, err := c.rep.Detached.Wait(context.Background()); err != nil {
			t.Errorf("Wait = %v", err)
		}
	case <-time.After(10 * time.Second):
		p.answer <- json.RawMessage(`{"action":"decline"}`) // let the call end
		t.Fatal("CallRun still waits 10 s after the server asked: the detach was missed")
	}
}
