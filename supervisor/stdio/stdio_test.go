package stdio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// answer is a child that reads one request and answers it with the line
// that printf makes of format and the request's id, after what it prints
// first, then reads on until it is killed.
func answer(first, format string) string {
	return `read l; id=$(printf %s "$l" | sed 's/.*"id":\([0-9]*\).*/\1/'); ` + first +
		`; printf '` + format + `\n' "$id"; cat >/dev/null`
}

// start runs sh -c script as server "s" over a Transport (returned with
// its Conn), its stdout read by Read on a goroutine that the cleanup
// waits for; the function it returns reads the log file.
func start(t *testing.T, script string) (*rpc.Conn, *Transport, func() string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gateway.log")
	log, err := logfile.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = log.Close() })
	p, err := proc.Start(proc.Command{Argv: []string{"/bin/sh", "-c", script}, Log: log, Source: "s"})
	if err != nil {
		t.Fatal(err)
	}
	c := rpc.NewConn("s", log, rpc.Hooks{})
	tr := New(c, "s", log, p, nil)
	read := make(chan struct{})
	go func() {
		defer close(read)
		p.ReadStdout(tr.Read)
	}()
	t.Cleanup(func() {
		p.Kill()
		<-p.Exited()
		<-read
	})
	return c, tr, func() string { b, _ := os.ReadFile(path); return string(b) }
}

// call makes one tools/call on c, bounded so that a lost answer fails the
// test rather than hang it.
func call(t *testing.T, c *rpc.Conn) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, _, err := c.RoundTrip(ctx, "tools/call", []byte(`{"name":"echo"}`), nil)
	if ctx.Err() != nil {
		t.Fatalf("no answer within 10 s: %v", err)
	}
	return res, err
}

// TestReadSkipsWhatIsNotJSONRPC: a banner on stdout before the answer is
// logged as the server's output and skipped; the call gets its result.
func TestReadSkipsWhatIsNotJSONRPC(t *testing.T) {
	c, _, log := start(t, answer("echo 'listening on stdio'", `{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`))
	res, err := call(t, c)
	if err != nil || string(res) != `{"ok":true}` {
		t.Fatalf("result %s, error %v; want {\"ok\":true}", res, err)
	}
	testwait.For(t, 0, "the banner in the log", func() bool {
		return strings.Contains(log(), "[stdout, not JSON-RPC; skipped] listening on stdio")
	})
}

// TestUndecodableAnswerFailsItsCall: an answer that looks like JSON-RPC
// but does not decode fails the call it names at once, with an internal
// error, instead of leaving it to wait for an answer that already came.
func TestUndecodableAnswerFailsItsCall(t *testing.T) {
	c, _, _ := start(t, answer("true", `{"jsonrpc":"2.0","id":%s,"result":{"a":[}}`))
	_, err := call(t, c)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInternalError || !strings.Contains(rpcErr.Message, "could not be decoded") {
		t.Fatalf("error %v, want an internal error saying the response could not be decoded", err)
	}
}

// TestFindID reads the id of a fragment of a message, and only a
// numeric one.
func TestFindID(t *testing.T) {
	for _, c := range []struct {
		fragment string
		id       int64
		ok       bool
	}{
		{`{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"xxxx`, 42, true},
		{`xxxx"}]},"id" : -7}`, -7, true},
		{`{"jsonrpc":"2.0","id":"a","result":`, 0, false},
		{`{"jsonrpc":"2.0","result":{"x":1`, 0, false},
		{`{"id":99999999999999999999}`, 0, false},
	} {
		id, ok := findID([]byte(c.fragment))
		if ok != c.ok || ok && id != c.id {
			t.Errorf("findID(%q) = %d, %v; want %d, %v", c.fragment, id, ok, c.id, c.ok)
		}
	}
}

// The stdin deadline is set again only once deadlineSlack of it is
// spent, and a write never meets one that has passed: it sets a new one
// and goes through.
func TestStdinDeadlineIsSetAgainOnlyWhenOld(t *testing.T) {
	_, tr, _ := start(t, "cat >/dev/null")
	write := func() {
		t.Helper()
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if err := tr.write([]byte("{}\n")); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	write()
	first := tr.due
	if left := time.Until(first); left <= writeTimeout-deadlineSlack || left > writeTimeout {
		t.Fatalf("the first write's deadline is %v away, want about %v", left, writeTimeout)
	}
	write()
	if !tr.due.Equal(first) {
		t.Errorf("a write right after set the deadline again")
	}
	tr.due = time.Now().Add(writeTimeout - deadlineSlack - time.Millisecond) // as if set over deadlineSlack ago
	write()
	if time.Until(tr.due) <= writeTimeout-deadlineSlack {
		t.Errorf("a deadline deadlineSlack old was not set again")
	}
	past := time.Now().Add(-time.Second)
	if err := tr.proc.Stdin().SetWriteDeadline(past); err != nil {
		t.Fatal(err)
	}
	tr.due = past
	write() // fails at once if the passed deadline stays
}

// The reader's Reserve gives a buffer only from a budget with room for it
// beside the longest line in pieces and their join, what a line that
// outgrows it holds: the smallest budget sizes its lines for those alone,
// and a line read whole there could be dropped for want of the reader's
// own bytes (a hostile review).
func TestReserveOnlyWhereTheBudgetHasRoomForAnOverflow(t *testing.T) {
	if got := reserve(budget.New(budget.Minimum), 2<<20); got != nil {
		t.Errorf("the smallest budget gave %d bytes", len(got))
	}
	large := budget.New(256 << 20)
	if got := reserve(large, 9<<20); len(got) != 9<<20 || large.InUse(budget.Servers) != 9<<20 {
		t.Errorf("the default budget: %d bytes, %d counted", len(got), large.InUse(budget.Servers))
	}
	if got := reserve(nil, 9<<20); len(got) != 9<<20 {
		t.Errorf("no budget: %d bytes", len(got))
	}
}
