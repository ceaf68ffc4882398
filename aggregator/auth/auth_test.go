package auth

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const testToken = "test-token-123"

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// 401s are logged at once, then as one count per interval, never with the
// token tried.
func TestUnauthorizedLoggedAtABoundedRate(t *testing.T) {
	var mu sync.Mutex
	var buf bytes.Buffer
	a := NewLog(slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return buf.Write(p)
	}), nil)))
	// The interval's end is called by the test, not the clock: on a
	// loaded machine (go test -race) 500 requests outlasted a short
	// interval, and its count came in two lines.
	a.every = time.Hour
	h := RequireBearer(testToken, a, http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	for i := range 500 {
		req := httptest.NewRequest("POST", "/mcp", nil)
		if i%2 == 0 {
			req.Header.Set("Authorization", "Bearer wrong-token-"+fmt.Sprint(i))
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	logged := func() string { mu.Lock(); defer mu.Unlock(); return buf.String() }
	a.flush() // the interval ends
	out := logged()
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("%d log lines for 500 401s in one interval, want 2:\n%s", n, out)
	}
	if strings.Contains(out, "wrong-token") {
		t.Errorf("the log holds a token that was tried:\n%s", out)
	}
	if !strings.Contains(out, "missingToken=250") || !strings.Contains(out, "wrongToken=249") {
		t.Errorf("the count does not say why:\n%s", out)
	}
	if !strings.Contains(out, "count=499") {
		t.Errorf("the interval's count is not 499:\n%s", out)
	}
	a.flush() // a quiet interval ends
	a.mu.Lock()
	open := a.open
	a.mu.Unlock()
	if open {
		t.Error("a quiet interval did not close the 401 log's interval")
	}
	a.Stop()
}

func TestEmptyTokenFailsClosed(t *testing.T) {
	h := RequireBearer("", nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("reached the handler") }))
	for _, header := range []string{"", "Bearer ", "Bearer"} {
		rec := &recorder{header: http.Header{}}
		req, _ := http.NewRequest("POST", "/mcp", nil)
		req.Header.Set("Authorization", header)
		h.ServeHTTP(rec, req)
		if rec.status != 401 {
			t.Errorf("Authorization %q with an empty token: %d, want 401", header, rec.status)
		}
	}
}

type recorder struct {
	header http.Header
	status int
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return len(b), nil }
func (r *recorder) WriteHeader(s int)           { r.status = s }

// Origins: a localhost or loopback one, or one allowed; nothing else.
func TestOriginAllowed(t *testing.T) {
	for _, c := range []struct {
		origin  string
		allowed []string
		want    bool
	}{
		{"http://localhost:3000", nil, true}, {"http://app.localhost", nil, true}, {"http://127.0.0.1:8", nil, true},
		{"http://[::1]:8", nil, true}, {"https://evil.example", nil, false}, {"https://ok.example", []string{"https://OK.example/"}, true},
		{"https://any.example", []string{"*"}, true}, {"null", nil, false},
	} {
		if got := originAllowed(c.origin, c.allowed); got != c.want {
			t.Errorf("originAllowed(%q, %q) = %v", c.origin, c.allowed, got)
		}
	}
}

// A token's digest names it without holding it, the same each time.
func TestTokenDigest(t *testing.T) {
	d := TokenDigest(testToken)
	if len(d) != 16 || d != TokenDigest(testToken) || d == TokenDigest("other") || strings.Contains(d, testToken) {
		t.Errorf("TokenDigest = %q", d)
	}
	if tok, ok := Bearer("bearer  " + testToken); !ok || tok != testToken {
		t.Errorf("Bearer = %q, %v", tok, ok)
	}
}
