package body

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// chunked is a body of unknown length, as a chunked POST's.
type chunked struct{ io.Reader }

func post(body io.Reader, length int64) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/mcp", body)
	r.ContentLength = length
	return r
}

// TestRead checks each answer of Read: the body whole (of Content-Length,
// and chunked), 413 past the limit unread, 400 for a body cut short.
func TestRead(t *testing.T) {
	b := Reader{MaxBytes: 1 << 20, Timeout: time.Second}
	msg := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for name, r := range map[string]*http.Request{
		"content-length": post(strings.NewReader(msg), int64(len(msg))),
		"chunked":        post(chunked{strings.NewReader(msg)}, -1),
	} {
		got, herr := b.Read(httptest.NewRecorder(), r, nil)
		if herr != nil || string(got) != msg {
			t.Errorf("%s: %q, %v; want the body", name, got, herr)
		}
	}
	big := strings.Repeat("x", 2<<20)
	for name, r := range map[string]*http.Request{
		"content-length": post(strings.NewReader(big), int64(len(big))),
		"chunked":        post(chunked{strings.NewReader(big)}, -1),
	} {
		if _, herr := b.Read(httptest.NewRecorder(), r, nil); herr == nil || herr.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s over the limit: %v, want 413", name, herr)
		}
	}
	_, herr := b.Read(httptest.NewRecorder(), post(strings.NewReader(msg[:10]), int64(len(msg))), nil)
	if herr == nil || herr.Status != http.StatusBadRequest || !strings.Contains(herr.Msg, "Content-Length") {
		t.Errorf("a body cut short: %v, want 400 naming Content-Length", herr)
	}
}

// A body of jsonrpc.ScanFrom bytes or more has its long strings found
// valid as it arrives, in whatever pieces it comes, with Content-Length or
// chunked; a smaller one is not scanned.
func TestReadScansLargeBodies(t *testing.T) {
	b := Reader{MaxBytes: 1 << 20, Timeout: time.Second}
	long := strings.Repeat("abcdefg ", jsonrpc.ScanFrom/8)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":"` + long + `","b":"` + long + `"}}}`
	small := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"e","arguments":{"a":"` + long[:jsonrpc.ScanFrom/2] + `"}}}`
	for name, tc := range map[string]struct {
		r    *http.Request
		body string
		long int
	}{
		"content-length": {post(iotest.HalfReader(strings.NewReader(msg)), int64(len(msg))), msg, 2},
		"chunked":        {post(chunked{iotest.HalfReader(strings.NewReader(msg))}, -1), msg, 2},
		"small":          {post(strings.NewReader(small), int64(len(small))), small, 0},
	} {
		var strs jsonrpc.LongStrings
		got, herr := b.Read(httptest.NewRecorder(), tc.r, &strs)
		if herr != nil || string(got) != tc.body {
			t.Fatalf("%s: %d bytes, %v; want the body", name, len(got), herr)
		}
		if strs.Found() != tc.long {
			t.Errorf("%s: %d long strings found, want %d", name, strs.Found(), tc.long)
		}
	}
}

// TestReadBudgetBound checks that the budget's own bound on a body,
// when smaller than MaxBytes, is the limit: 413 naming it.
func TestReadBudgetBound(t *testing.T) {
	bud := budget.New(2 << 20)
	b := Reader{Budget: bud, MaxBytes: 64 << 20, Timeout: 10 * time.Second}
	limit := bud.MaxBody(b.MaxBytes)
	if limit >= b.MaxBytes {
		t.Fatalf("the budget's bound %d is not under MaxBytes", limit)
	}
	body := strings.Repeat("x", int(limit)+1)
	_, herr := b.Read(httptest.NewRecorder(), post(strings.NewReader(body), int64(len(body))), nil)
	if herr == nil || herr.Status != http.StatusRequestEntityTooLarge || !strings.Contains(herr.Msg, strconv.FormatInt(limit, 10)) {
		t.Errorf("%v, want 413 naming %d", herr, limit)
	}
	ok := strings.Repeat("x", int(limit))
	if got, herr := b.Read(httptest.NewRecorder(), post(strings.NewReader(ok), int64(len(ok))), nil); herr != nil || len(got) != len(ok) {
		t.Errorf("a body at the bound: %d bytes, %v; want it whole", len(got), herr)
	}
}
