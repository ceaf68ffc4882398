package aggregator

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Subscriptions, list changes and log levels across clients (SPEC §4.5,
// §4.8).

const touchTools = `[{"name":"touch","inputSchema":{"type":"object"}},{"name":"changeprompts","inputSchema":{"type":"object"}},{"name":"changeresources","inputSchema":{"type":"object"}}]`

// listenBody is a subscriptions/listen request with filter.
func listenBody(id, filter string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"subscriptions/listen","params":{"notifications":` + filter + `,` + modernMetaJSON + `}}`
}

// countLines counts the lines of a record file that start with prefix
// and contain sub.
func countLines(path, prefix, sub string) int {
	b, _ := os.ReadFile(path)
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, sub) {
			n++
		}
	}
	return n
}

// Three clients (two legacy sessions, one modern listen) on one URI: one
// upstream subscription, three updates, and the upstream subscription
// ended after the last client leaves; with a server of either era.
func TestSubscriptionFanOut(t *testing.T) {
	for _, modern := range []bool{false, true} {
		dir := t.TempDir()
		rec, cancels := filepath.Join(dir, "requests"), filepath.Join(dir, "cancels")
		env := map[string]string{"MCP_FAKE_TOOLS": touchTools, "MCP_FAKE_RESOURCES": `[{"uri":"test://w","name":"w"},{"uri":"test://other","name":"o"}]`,
			"MCP_FAKE_RECORD_FILE": rec, "MCP_FAKE_CANCEL_FILE": cancels}
		if modern {
			env["MCP_FAKE_MODERN"] = "1"
		}
		srv, _ := startGatewayOpts(t, map[string]map[string]string{"s": env}, HTTPOptions{})
		u := srv.URL + "/mcp"
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		a, b, o := newClient(t, srv), newClient(t, srv), newClient(t, srv)
		getA := openStream(t, ctx, "GET", u, "", map[string]string{"Mcp-Session-Id": a.session, "Mcp-Protocol-Version": "2025-06-18"})
		getB := openStream(t, ctx, "GET", u, "", map[string]string{"Mcp-Session-Id": b.session, "Mcp-Protocol-Version": "2025-06-18"})
		getO := openStream(t, ctx, "GET", u, "", map[string]string{"Mcp-Session-Id": o.session, "Mcp-Protocol-Version": "2025-06-18"})
		for _, c := range []*rawClient{a, b} {
			result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://w"}}`))
		}
		result(t, o.rpc(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://other"}}`))
		lctx, closeListen := context.WithCancel(ctx)
		listen := openStream(t, lctx, "POST", u, listenBody("L", `{"resourceSubscriptions":["test://w","test://nowhere"]}`), modernHeaders("subscriptions/listen", ""))
		if ack := next(t, listen, "the acknowledgment"); !strings.Contains(ack, `"notifications":{"resourceSubscriptions":["test://w"]}`) {
			t.Errorf("modern=%v: acknowledgment %s, want test://w alone", modern, ack)
		}
		result(t, a.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"test://w"}}}`))
		for _, s := range []struct {
			name string
			ch   <-chan string
			want string
		}{{"a", getA, `"params":{"uri":"test://w"}`}, {"b", getB, `"params":{"uri":"test://w"}`},
			{"listen", listen, `"params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"L"},"uri":"test://w"}`}} {
			if ev := next(t, s.ch, s.name+"'s update"); !strings.Contains(ev, `"method":"notifications/resources/updated"`) || !strings.Contains(ev, s.want) {
				t.Errorf("modern=%v: %s got %s, want %s", modern, s.name, ev, s.want)
			}
		}
		// o, subscribed to another URI only, gets that one's update first.
		result(t, o.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"touch","arguments":{"uri":"test://other"}}}`))
		if ev := next(t, getO, "o's update"); !strings.Contains(ev, `"uri":"test://other"`) {
			t.Errorf("modern=%v: a session subscribed to test://other got %s", modern, ev)
		}
		upstream := func() int {
			if modern {
				return countLines(rec, "subscriptions/listen ", `"resourceSubscriptions":["test://w"]`)
			}
			return countLines(rec, "resources/subscribe ", `"test://w"`)
		}
		if n := upstream(); n != 1 {
			t.Errorf("modern=%v: %d upstream subscriptions to test://w, want 1", modern, n)
		}
		// They leave one by one: unsubscribe, DELETE, closing the listen.
		result(t, a.rpc(`{"jsonrpc":"2.0","id":4,"method":"resources/unsubscribe","params":{"uri":"test://w"}}`))
		resp, _ := send(t, "DELETE", u, "", map[string]string{"Mcp-Session-Id": b.session, "Mcp-Protocol-Version": "2025-06-18"})
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("DELETE: %d", resp.StatusCode)
		}
		unsubscribed := func() bool {
			if modern {
				return countLines(cancels, "", `"requestId"`) == 1
			}
			return countLines(rec, "resources/unsubscribe ", `"test://w"`) == 1
		}
		if unsubscribed() {
			t.Errorf("modern=%v: unsubscribed upstream while the listen still holds test://w", modern)
		}
		closeListen()
		testwait.For(t, 0, "the upstream subscription to end", unsubscribed)
		cancel()
	}
}

func TestUnroutableSubscribeIsInvalidParams(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_RESOURCES": `[{"uri":"test://w","name":"w"}]`}})
	c := newClient(t, srv)
	e := rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://nowhere"}}`))
	if string(e["code"]) != "-32602" || string(e["data"]) != `{"uri":"test://nowhere"}` {
		t.Errorf("subscribe to an unroutable URI: %v", e)
	}
}

// A server's own list_changed reaches legacy GET streams, and the modern
// listen streams that asked for that list only.
func TestPromptAndResourceListChanges(t *testing.T) {
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": touchTools, "MCP_FAKE_PROMPTS": `[{"name":"p"}]`,
		"MCP_FAKE_PROMPTS2": `[{"name":"p2"}]`, "MCP_FAKE_RESOURCES": `[]`, "MCP_FAKE_RESOURCES2": `[{"uri":"test://new","name":"n"}]`}})
	u := srv.URL + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := newClient(t, srv)
	get := openStream(t, ctx, "GET", u, "", map[string]string{"Mcp-Session-Id": c.session, "Mcp-Protocol-Version": "2025-06-18"})
	prompts := openStream(t, ctx, "POST", u, listenBody("P", `{"promptsListChanged":true}`), modernHeaders("subscriptions/listen", ""))
	tools := openStream(t, ctx, "POST", u, listenBody("T", `{"toolsListChanged":true,"resourcesListChanged":true}`), modernHeaders("subscriptions/listen", ""))
	if ack := next(t, prompts, "ack"); !strings.Contains(ack, `"notifications":{"promptsListChanged":true}`) {
		t.Errorf("prompts listen ack: %s", ack)
	}
	if ack := next(t, tools, "ack"); !strings.Contains(ack, `"notifications":{"toolsListChanged":true,"resourcesListChanged":true}`) {
		t.Errorf("tools listen ack: %s", ack)
	}
	c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"changeprompts","arguments":{}}}`)
	if ev := next(t, get, "prompts/list_changed on GET"); !strings.Contains(ev, "notifications/prompts/list_changed") {
		t.Errorf("GET stream: %s", ev)
	}
	if ev := next(t, prompts, "prompts/list_changed on listen"); ev != `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"P"}}}` {
		t.Errorf("prompts listen: %s", ev)
	}
	c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"changeresources","arguments":{}}}`)
	if ev := next(t, get, "resources/list_changed on GET"); !strings.Contains(ev, "notifications/resources/list_changed") {
		t.Errorf("GET stream: %s", ev)
	}
	// The tools listen gets the resources change, and nothing of prompts.
	if ev := next(t, tools, "resources/list_changed on listen"); !strings.Contains(ev, `"notifications/resources/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"T"}}`) {
		t.Errorf("tools listen: %s", ev)
	}
	got := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"prompts/list"}`)))
	if got != `{"prompts":[{"name":"p2"}]}` {
		t.Errorf("prompts/list after the change: %s", got)
	}
}

// Each session gets log messages at its own level; the server is asked
// for the most verbose any session holds, and for debug once none does.
func TestLogLevelsPerSession(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "requests")
	srv, _ := startGateway(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": `[{"name":"log","inputSchema":{"type":"object"}}]`, "MCP_FAKE_RECORD_FILE": rec}})
	a, b := newClient(t, srv), newClient(t, srv)
	levels := func() []string {
		var out []string
		data, _ := os.ReadFile(rec)
		for _, line := range strings.Split(string(data), "\n") {
			if l, ok := strings.CutPrefix(line, "logging/setLevel "); ok {
				var p struct{ Level string }
				_ = json.Unmarshal([]byte(l), &p)
				out = append(out, p.Level)
			}
		}
		return out
	}
	result(t, a.rpc(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`))
	result(t, b.rpc(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`))
	// The fake logs at warning: a (error) filters it, b (info) gets it.
	var notesA, notesB []string
	a.rpcNotes(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"log","arguments":{}}}`, &notesA)
	b.rpcNotes(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"log","arguments":{}}}`, &notesB)
	if len(notesA) != 0 || len(notesB) != 1 {
		t.Errorf("log messages: a (error) got %q, b (info) got %q", notesA, notesB)
	}
	send(t, "DELETE", b.url, "", sessionHeaders(b))
	send(t, "DELETE", a.url, "", sessionHeaders(a))
	testwait.For(t, 0, "the server set back to debug", func() bool { return len(levels()) == 4 })
	if got := strings.Join(levels(), ","); got != "error,info,error,debug" {
		t.Errorf("levels asked of the server: %s, want error,info,error,debug", got)
	}
}
