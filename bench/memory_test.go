package bench

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// capServer is a /mcp endpoint that refuses an initialize with 503 while
// another one is in flight, as gateways before c8ba90a could below their
// cap; with hold, the first initialize waits until one was refused, so
// that a refusal is sure to happen. An initialize is no longer in flight
// once its response starts. always refuses every initialize.
type capServer struct {
	hold, always bool

	mu       sync.Mutex
	inFlight int
	opened   int
	held     bool // the first initialize was held
	refused  chan struct{}
	once     sync.Once
}

func (c *capServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.Contains(string(body), `"initialize"`) {
		w.WriteHeader(http.StatusAccepted) // notifications/initialized; DELETE
		return
	}
	c.mu.Lock()
	if c.always || c.inFlight > 0 {
		c.mu.Unlock()
		c.once.Do(func() { close(c.refused) })
		http.Error(w, "too many sessions", http.StatusServiceUnavailable)
		return
	}
	c.inFlight++
	wait := c.hold && !c.held
	c.held = true
	c.mu.Unlock()
	if wait {
		select {
		case <-c.refused:
		case <-time.After(10 * time.Second):
		}
	}
	c.mu.Lock()
	c.inFlight--
	c.opened++
	id := strconv.Itoa(c.opened)
	c.mu.Unlock()
	w.Header().Set("Mcp-Session-Id", id)
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":0,"result":{}}`)
}

func startCapServer(t *testing.T, c *capServer) *endpoint[*httptest.Server] {
	c.refused = make(chan struct{})
	srv := httptest.NewServer(c)
	e := &endpoint[*httptest.Server]{proc: srv, hc: NewHTTPClient(srv.URL, ""), stop: func() error { srv.Close(); return nil }}
	t.Cleanup(func() { e.close() })
	return e
}

// openSessions retries a 503 that an initialize in flight caused, once
// none is in flight, and counts it.
func TestOpenSessionsRetriesA503BelowTheCap(t *testing.T) {
	e := startCapServer(t, &capServer{hold: true})
	sessions, retries, err := openSessions(context.Background(), e, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != 20 || retries == 0 {
		t.Errorf("%d sessions, %d retries; want 20 sessions and a retry", len(sessions), retries)
	}
}

// A gateway that refuses every initialize gets maxOpenTries of them per
// session, with no wait between them, and the 503 is returned.
func TestOpenSessionsGivesUpOnACapReached(t *testing.T) {
	c := &capServer{always: true}
	e := startCapServer(t, c)
	_, _, err := openSessions(context.Background(), e, 3)
	if err == nil || !strings.Contains(err.Error(), "HTTP 503") {
		t.Fatalf("err %v, want the 503", err)
	}
}
