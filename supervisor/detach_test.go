package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// detachingPeer detaches its call on the server's first request, and
// answers the request only once the test says so.
type detachingPeer struct {
	recordingPeer
	detach chan struct{}
	once   sync.Once
	answer chan json.RawMessage
}

func (p *detachingPeer) Detach() <-chan struct{} { return p.detach }

func (p *detachingPeer) Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	p.once.Do(func() { close(p.detach) })
	select {
	case v := <-p.answer:
		return v, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// A Detacher's call returns a *DetachedCall as soon as it detaches, while
// the server still waits for its answer; Wait then gives the call's
// result once the server has it (the MRTR bridge's parked call, SPEC §4.6).
// A call that never detaches returns as usual, and a detached call whose
// context ends fails Wait with ctx's error.
func TestDetachedCallGoesOn(t *testing.T) {
	_, u, _ := fake(t, nil)
	p := &detachingPeer{detach: make(chan struct{}), answer: make(chan json.RawMessage, 1)}
	_, _, err := u.CallRun(context.Background(), 0, "tools/call", json.RawMessage(`{"name":"elicit"}`), p)
	var d *DetachedCall
	if !errors.As(err, &d) {
		t.Fatalf("CallRun = %v, want a *DetachedCall once the server asked", err)
	}
	waited := make(chan string, 1)
	go func() {
		res, run, err := d.Wait()
		waited <- string(res) + " " + errString(err) + " run>0:" + map[bool]string{true: "yes", false: "no"}[run > 0]
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
	if res, _, err := u.CallRun(context.Background(), 0, "tools/call", json.RawMessage(`{"name":"echo","arguments":{"text":"hi"}}`), q); err != nil || !strings.Contains(string(res), "hi") {
		t.Errorf("echo with a Detacher peer: %s %v", res, err)
	}

	// Detached, then cancelled: Wait ends with ctx's error.
	ctx, cancel := context.WithCancel(context.Background())
	r := &detachingPeer{detach: make(chan struct{}), answer: make(chan json.RawMessage)}
	_, _, err = u.CallRun(ctx, 0, "tools/call", json.RawMessage(`{"name":"elicit"}`), r)
	if !errors.As(err, &d) {
		t.Fatalf("CallRun = %v, want a *DetachedCall", err)
	}
	cancel()
	if _, _, err := d.Wait(); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait after cancel = %v, want context.Canceled", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return "error: " + err.Error()
}
