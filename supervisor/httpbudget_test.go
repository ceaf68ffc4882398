package supervisor

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/budget"
	"github.com/mcp-gateway/mcp-gateway/internal/fakehttp"
	"github.com/mcp-gateway/mcp-gateway/internal/logfile"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/supervisor/proc"
)

// budgetFake is a fake HTTP server reached under a memory budget of size.
func budgetFake(t *testing.T, o fakehttp.Options, size int64) (*Upstream, *budget.Budget) {
	t.Helper()
	url := serveFake(t, fakehttp.New(o), "")
	b := budget.New(size)
	t.Cleanup(b.Close)
	s := New([]adapters.Server{{Name: "remote", Spec: adapters.LaunchSpec{Kind: "http", URL: url}}}, Options{
		Log: logfile.New(&syncBuffer{}), StartTimeout: 20 * time.Second, Budget: b,
		Stop: proc.StopTimeouts{CloseWait: time.Second, TermWait: time.Second},
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	u, _ := s.Upstream("remote")
	return u, b
}

// What an HTTP server answers is held under the budget until nothing
// holds it, in either form of answer.
func TestHTTPAnswersAreCountedInTheBudget(t *testing.T) {
	for _, json := range []bool{false, true} {
		u, b := budgetFake(t, fakehttp.Options{JSON: json}, budget.Default)
		big := strings.Repeat("m", 5<<20)
		res, err := u.Call(context.Background(), "tools/call", jsonRaw(`{"name":"echo","arguments":{"text":"`+big+`"}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		if held := b.InUse(budget.Servers); held < 5<<20 {
			t.Errorf("JSON %v: %d bytes counted while a 5 MiB result is held", json, held)
		}
		runtime.KeepAlive(res)
		res = nil
		testwait.For(t, 0, "the result's bytes given back", func() bool {
			runtime.GC()
			return b.InUse(budget.Servers) == 0
		})
	}
}

// A message larger than a small budget can hold fails its call, saying
// so, and the server goes on serving.
func TestHTTPMessageOverASmallBudget(t *testing.T) {
	u, _ := budgetFake(t, fakehttp.Options{}, budget.Minimum)
	_, err := callWithin(u, "huge", `{"bytes":20971520}`, 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), "larger than the gateway's 16 MiB message limit (its memory budget, --memory-budget)") {
		t.Errorf("error %v", err)
	}
	if got := mustText(t, u, "echo", `{"text":"after"}`); got != "after" {
		t.Errorf("echo = %q", got)
	}
}

func jsonRaw(s string) json.RawMessage { return json.RawMessage(s) }
