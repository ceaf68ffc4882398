package aggregator

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mcp-gateway/mcp-gateway/internal/fakeserver"
	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
)

// Tests of what an operator sees of calls (SPEC §11.1, §11.2): a known mix
// of calls, one of each outcome, then the log's call lines and /metrics,
// parsed by the Prometheus text parser.

const callSecret = "hunter2-in-the-arguments"

func TestCallLogAndMetricsOfEachOutcome(t *testing.T) {
	tools := `[{"name":"echo","inputSchema":{"type":"object"}},{"name":"fail","inputSchema":{"type":"object"}},` +
		`{"name":"raw","inputSchema":{"type":"object"}},{"name":"sleep","inputSchema":{"type":"object"}},{"name":"elicit","inputSchema":{"type":"object"}}]`
	srv, _, logText := startGatewayLog(t, map[string]map[string]string{"s": {"MCP_FAKE_TOOLS": tools,
		"MCP_FAKE_RESULT": `{"content":[{"type":"text","text":"no"}],"isError":true}`}},
		HTTPOptions{MaxSessions: 3, Telemetry: Telemetry{Metrics: telemetry.NewMetrics(), CallLog: testCallLog}})
	c := newClient(t, srv)
	secretArgs := `{"text":"` + callSecret + `","password":"` + callSecret + `"}`
	result(t, c.rpc(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":`+secretArgs+`}}`))
	rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"fail","arguments":`+secretArgs+`}}`))
	result(t, c.rpc(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"raw","arguments":{}}}`))
	rpcError(t, c.rpc(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}`))
	cancelCall(t, c)
	task := string(result(t, c.rpc(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"t"},"task":{"ttl":60000}}}`)))
	// The cancelled call ends upstream, and the task's call runs on, apart
	// from their requests, for session s: the elicit's server request
	// below must find no other session's call in flight on s, or the
	// gateway cannot tell whom to ask (-32603). A call's line is written
	// as it ends.
	getTask := `{"jsonrpc":"2.0","id":70,"method":"tasks/get","params":{"taskId":"` + taskIDOf(t, task) + `"}}`
	testwait.For(t, 0, "the cancelled call and the task's call to end", func() bool {
		return len(callLines(logText())) == 6 && strings.Contains(string(result(t, c.rpc(getTask))), `"status":"completed"`)
	})
	modern := modernCaller{t: t, url: srv.URL + "/mcp", caps: `{"elicitation":{}}`}
	inputRequired(t, modern.call(8, "elicit", `"arguments":`+secretArgs+`,`))

	want := []string{
		`method=tools/call server=s name=echo era=legacy client=s:\w{8} duration=\d+\.\d{3}ms request_bytes=\d+ result_bytes=\d+ outcome=ok$`,
		`name=fail era=legacy .* outcome=error code=-32042$`,
		`name=raw era=legacy .* outcome=ok error_type=tool_error$`,
		`server="" name=nope era=legacy .* result_bytes=0 outcome=error code=-32602$`,
		`name=sleep era=legacy .* outcome=cancelled$`,
		`name=echo era=legacy .* outcome=task task=\S{22}$`,
		`name=elicit era=modern client=t:\S{8} .* outcome=input_required$`,
	}
	var lines []string
	testwait.For(t, 0, "a call line for each of 7 calls", func() bool {
		lines = callLines(logText())
		return len(lines) >= len(want)
	})
	if len(lines) != len(want) {
		t.Fatalf("%d call lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	// One line each; a line may be written as its answer has gone, so
	// that two calls' lines can come in either order.
	for _, w := range want {
		n := 0
		for _, l := range lines {
			if regexp.MustCompile(w).MatchString(l) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d call lines match %s, want 1:\n%s", n, w, strings.Join(lines, "\n"))
		}
	}
	if !strings.Contains(strings.Join(lines, "\n"), "outcome=task task="+taskIDOf(t, task)) {
		t.Errorf("no task line names the task of %s:\n%s", task, strings.Join(lines, "\n"))
	}
	if strings.Contains(logText(), callSecret) {
		t.Errorf("an argument's value reached the log:\n%s", logText())
	}

	fams := scrape(t, srv.URL)
	requests := fams["mcp_gateway_requests_total"]
	for _, w := range []struct {
		labels map[string]string
		n      float64
	}{
		{map[string]string{"server": "s", "mcp_method_name": "tools/call", "outcome": "ok", "error_type": ""}, 1},
		{map[string]string{"server": "s", "outcome": "error", "error_type": "-32042"}, 1},
		{map[string]string{"server": "s", "outcome": "ok", "error_type": "tool_error"}, 1},
		{map[string]string{"server": "", "outcome": "error", "error_type": "-32602"}, 1},
		{map[string]string{"server": "s", "outcome": "cancelled"}, 1},
		{map[string]string{"server": "s", "outcome": "task"}, 1},
		{map[string]string{"server": "s", "outcome": "input_required"}, 1},
	} {
		if got := counterSum(requests, w.labels); got != w.n {
			t.Errorf("mcp_gateway_requests_total%v = %v, want %v", w.labels, got, w.n)
		}
	}
	if got := counterSum(requests, nil); got != 7 {
		t.Errorf("mcp_gateway_requests_total counts %v calls, want 7", got)
	}
	if got := counterSum(fams["mcp_gateway_tool_calls_total"], map[string]string{"gen_ai_tool_name": "echo", "outcome": "ok"}); got != 1 {
		t.Errorf("echo's ok calls = %v, want 1 (the task's call counts as a task)", got)
	}
	if h := fams["mcp_server_operation_duration_seconds"]; h == nil || histogramCount(h, map[string]string{"server": "s", "mcp_method_name": "tools/call"}) != 6 {
		t.Errorf("mcp_server_operation_duration_seconds for s's tools/call: want 6 observations, got %v", h)
	}
	for name, want := range map[string]float64{"mcp_gateway_sessions": 1, "mcp_gateway_parked_calls": 1, "mcp_gateway_tasks": 1} {
		if got := gaugeValue(fams[name], nil); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := gaugeValue(fams["mcp_gateway_server_state"], map[string]string{"server": "s", "state": "running"}); got != 1 {
		t.Errorf("server s's state running = %v, want 1", got)
	}

	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("GET /metrics without the token: %d %v, want 401 with WWW-Authenticate", resp.StatusCode, resp.Header)
	}
}

// cancelCall makes a call (id 6) that the client cancels with
// notifications/cancelled while the server runs it.
func cancelCall(t *testing.T, c *rawClient) {
	t.Helper()
	started := t.TempDir() + "/started"
	done := make(chan struct{})
	go func() {
		defer close(done)
		resp, _ := send(t, "POST", c.url, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600000,"started":"`+started+`"}}}`, sessionHeaders(c))
		_ = resp
	}()
	fakeserver.WaitFile(t, started)
	send(t, "POST", c.url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":6}}`, sessionHeaders(c))
	<-done
}

// callLines returns the log's call lines.
func callLines(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "[gateway] level=INFO msg=call ") {
			out = append(out, l)
		}
	}
	return out
}

func taskIDOf(t *testing.T, res string) string {
	t.Helper()
	m := regexp.MustCompile(`"taskId":"([^"]+)"`).FindStringSubmatch(res)
	if m == nil {
		t.Fatalf("no taskId in %s", res)
	}
	return m[1]
}

// scrape GETs /metrics with the token and parses it.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", base+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// matching yields the family's metrics whose labels include want.
func matching(f *dto.MetricFamily, want map[string]string) []*dto.Metric {
	if f == nil {
		return nil
	}
	var out []*dto.Metric
	for _, m := range f.Metric {
		labels := map[string]string{}
		for _, l := range m.Label {
			labels[l.GetName()] = l.GetValue()
		}
		ok := true
		for k, v := range want {
			if labels[k] != v {
				ok = false
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out
}

func counterSum(f *dto.MetricFamily, want map[string]string) float64 {
	var n float64
	for _, m := range matching(f, want) {
		n += m.GetCounter().GetValue()
	}
	return n
}

func gaugeValue(f *dto.MetricFamily, want map[string]string) float64 {
	var n float64
	for _, m := range matching(f, want) {
		n += m.GetGauge().GetValue()
	}
	return n
}

func histogramCount(f *dto.MetricFamily, want map[string]string) uint64 {
	var n uint64
	for _, m := range matching(f, want) {
		n += m.GetHistogram().GetSampleCount()
	}
	return n
}
