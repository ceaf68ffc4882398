package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	binsOnce sync.Once
	bins     Binaries
	binsDir  string
	binsErr  error
)

// testBinaries builds the gateway and the echo server once per test binary.
func testBinaries(t testing.TB) Binaries {
	t.Helper()
	binsOnce.Do(func() {
		binsDir, binsErr = os.MkdirTemp("", "mcp-gateway-bench-test-")
		if binsErr == nil {
			bins, binsErr = Build(context.Background(), binsDir)
		}
	})
	if binsErr != nil {
		t.Fatal(binsErr)
	}
	return bins
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binsDir != "" {
		os.RemoveAll(binsDir)
	}
	os.Exit(code)
}

// TestBenchShort runs the whole benchmark at ShortConfig size, so that
// `make test` keeps it working. It checks that every figure was measured
// and is sane; it makes no timing assertion (`make bench` reports those).
func TestBenchShort(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := ShortConfig()
	tmp := t.TempDir()
	note, err := Prepare(ctx, &cfg, tmp)
	if err != nil {
		t.Fatal(err)
	}
	if note != "" {
		t.Log(note)
	}
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}

	byID := map[string]Figure{}
	for _, f := range res.Figures {
		byID[f.ID] = f
	}
	want := []string{"seq.echo.p50", "seq.echo.p99", "seq.echo.tcpclient.p50", "cpu.seq.client", "client.sdk.cpu",
		"seq.echo.modern.p50", "seq.echo.modern.p99", "cpu.seq.modern.daemon", "cpu.handler", "cpu.handler.modern", "cpu.handler.modern.diff", "cpu.handler.askable", "cpu.handler.askable.diff", "client.sdk.p50", "client.sdk.modern.p50", "client.sdk.modern.cpu",
		"tput.1session", "tput.sessions", "tput.modern", "mem.idle.rss", "mem.idle.hwm", "mem.sessions.rss",
		"mem.sessions.hwm", "mem.keeper.rss", "mem.upstream.rss", "big.result", "big.argument",
		"search.p50", "search.p99", "search.build", "search.list.all", "search.list.search", "search.list.tools"}
	for _, n := range cfg.ReadyServers {
		want = append(want, "ready."+itoa(n))
	}
	if cfg.Everything != nil {
		want = append(want, "seq.everything.p50", "seq.everything.p99")
	}
	if cfg.Pulled {
		want = append(want, "ready.pulled", "ready.warm")
	}
	paired := map[string]bool{"seq.echo.p50": true, "seq.echo.modern.p50": true, "client.sdk.p50": true, "client.sdk.modern.p50": true,
		"tput.1session": true, "tput.sessions": true, "tput.modern": true, "big.result": true, "big.argument": true}
	for _, id := range want {
		f, ok := byID[id]
		if !ok {
			t.Errorf("figure %s missing", id)
			continue
		}
		if f.Gateway == nil || (paired[id] && (f.Direct == nil || f.Ratio == nil || f.Diff == nil)) {
			t.Errorf("figure %s: a side is missing: %+v", id, f)
		}
	}
	for _, id := range []string{"seq.echo.p50", "seq.echo.modern.p50", "client.sdk.p50", "tput.sessions", "tput.modern", "big.result", "big.argument"} {
		if f := byID[id]; f.Floor == nil || f.FloorRatio == nil {
			t.Errorf("figure %s: no floor-proxy measurement", id)
		}
	}
	for _, f := range res.Figures {
		for side, s := range map[string]*Stat{"direct": f.Direct, "gateway": f.Gateway, "floor": f.Floor} {
			if s == nil {
				continue
			}
			for _, v := range s.Reps {
				// CPU figures may round to 0 in small runs (or count 10 ms ticks);
				// a count of retries is 0 when all is well.
				mayBeZero := strings.HasPrefix(f.ID, "cpu.") || f.Unit == "count"
				// A difference, either sign: a pair's, or telemetry's (handlertelemetry.go),
				// which the noise of 200 calls can take below 0.
				signed := strings.HasSuffix(f.ID, ".diff") || strings.HasPrefix(f.ID, "cpu.telemetry.")
				bad := math.IsNaN(v) || math.IsInf(v, 0) || (!signed && (v < 0 || (v == 0 && !mayBeZero)))
				if bad {
					t.Errorf("%s %s = %v, want a positive number", f.ID, side, v)
				}
			}
		}
	}
	// Sanity bounds, far from any target: a call under 10 s, a server
	// start under the startup timeout, memory within reason.
	for id, limit := range map[string]float64{"seq.echo.p50": 10e6, "ready." + itoa(cfg.ReadyServers[0]): 30e3, "mem.idle.rss": 1024, "big.result": 10e3} {
		if f, ok := byID[id]; ok && f.Gateway != nil && f.Gateway.Median > limit {
			t.Errorf("%s = %v %s, over the sanity bound %v", id, f.Gateway.Median, f.Unit, limit)
		}
	}
	if f := byID["ready."+itoa(cfg.ReadyServers[0])]; f.Direct != nil && f.Direct.Median < float64(cfg.StartDelay.Milliseconds()) {
		t.Errorf("direct ready time %v ms is shorter than the start delay %v", f.Direct.Median, cfg.StartDelay)
	}

	judged := map[string]bool{}
	for _, t := range res.Targets {
		judged[t.Figure] = true
	}
	for _, id := range []string{"seq.echo.p50", "seq.echo.modern.p50", "tput.sessions", "tput.modern", "mem.idle.anon", "mem.sessions.anon", "big.result", "search.p50", "search.list.search"} {
		if !judged[id] {
			t.Errorf("no target judged on %s", id)
		}
	}

	var table, js, md bytes.Buffer
	res.WriteTable(&table)
	res.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "| --- |") {
		t.Errorf("Markdown without a table:\n%s", md.String())
	}
	if !strings.Contains(table.String(), "gateway / direct") || len(res.Targets) == 0 {
		t.Errorf("table without figures or targets:\n%s", table.String())
	}
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || len(back.Figures) != len(res.Figures) {
		t.Errorf("JSON does not round-trip: %v", err)
	}
	t.Logf("\n%s", table.String())
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestModernRequest checks the shape of HTTPClient's modern requests: no
// initialize, _meta first in params, and the headers that mirror the body.
func TestModernRequest(t *testing.T) {
	var body []byte
	var hdr http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		hdr = r.Header.Clone()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	}))
	defer srv.Close()
	hc := NewHTTPClient(srv.URL, "tok")
	defer hc.CloseIdle()
	m := hc.Modern()
	if _, err := m.Call(context.Background(), "tools/call", []byte(` {"name":"échø","arguments":{"message":"hello"}}`)); err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
			Meta struct {
				Version string          `json:"io.modelcontextprotocol/protocolVersion"`
				Caps    json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if msg.Method != "tools/call" || msg.Params.Name != "échø" || msg.Params.Meta.Version != ModernVersion || string(msg.Params.Meta.Caps) != "{}" {
		t.Errorf("body %s", body)
	}
	for k, want := range map[string]string{"Mcp-Protocol-Version": ModernVersion, "Mcp-Method": "tools/call",
		"Mcp-Name": "=?base64?w6ljaMO4?=", "Mcp-Session-Id": "", "Authorization": "Bearer tok"} {
		if got := hdr.Get(k); got != want {
			t.Errorf("header %s = %q, want %q", k, got, want)
		}
	}
	if _, err := m.Call(context.Background(), "tools/list", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + modernMeta + `}}`; string(body) != want || hdr.Get("Mcp-Name") != "" {
		t.Errorf("tools/list body %s, Mcp-Name %q", body, hdr.Get("Mcp-Name"))
	}
}
