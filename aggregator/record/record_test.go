package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/telemetry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// How an error becomes an outcome: the client's cancellation or its
// session's end is cancelled, a deadline is timeout, anything else an
// error with its JSON-RPC code (the gateway's -32603 for one that has
// none).
func TestRecordOutcomeOfErrors(t *testing.T) {
	for _, c := range []struct {
		err     error
		outcome string
		code    int64
	}{
		{ErrClientCancelled, telemetry.OutcomeCancelled, 0},
		{fmt.Errorf("wait: %w", context.Canceled), telemetry.OutcomeCancelled, 0},
		{fmt.Errorf("wait: %w", context.DeadlineExceeded), telemetry.OutcomeTimeout, 0},
		{&jsonrpc.Error{Code: -32042, Message: "no"}, telemetry.OutcomeError, -32042},
		{errors.New("something else"), telemetry.OutcomeError, jsonrpc.CodeInternalError},
	} {
		r := &Record{}
		r.Failed(c.err)
		if r.outcome != c.outcome || r.code != c.code {
			t.Errorf("%v: outcome %s code %d, want %s %d", c.err, r.outcome, r.code, c.outcome, c.code)
		}
	}
}

// A request that is not a call, with tracing off, has no record; a call
// has one that a nil Telemetry field leaves silent.
func TestBeginOnlyWhatIsTold(t *testing.T) {
	if r := Begin(&Telemetry{}, "tools/call", json.RawMessage("1"), nil, "", http.Header{}); r != nil {
		t.Error("a record with nothing to tell")
	}
	tel := &Telemetry{Metrics: telemetry.NewMetrics()}
	if r := Begin(tel, "tools/list", json.RawMessage("1"), nil, "", http.Header{}); r != nil {
		t.Error("a record of tools/list without tracing")
	}
	r := Begin(tel, "tools/call", json.RawMessage("1"), json.RawMessage(`{"name":"echo"}`), "0123456789abcdef", http.Header{})
	if r == nil || r.era != eraLegacy || r.session != "0123456789abcdef" || r.Logged() {
		t.Fatalf("legacy call record = %+v", r)
	}
	r.End()
}

// The call line: keys in order, values quoted as slog's text handler
// quotes them, the name read from the params when routing failed.
func TestCallLine(t *testing.T) {
	r := &Record{tel: &Telemetry{}, method: "tools/call", era: eraModern, client: "t:abcdef01", call: true,
		params: json.RawMessage(`{"name":"no such tool"}`), reqBytes: 22}
	r.Failed(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool"})
	got := r.logLine(1500 * time.Microsecond)
	want := `level=INFO msg=call method=tools/call server="" name="no such tool" era=modern client=t:abcdef01 duration=1.500ms request_bytes=22 result_bytes=0 outcome=error code=-32602`
	if got != want {
		t.Errorf("call line\n got %s\nwant %s", got, want)
	}
	r = &Record{method: "tools/call", name: strings.Repeat("n", 200)}
	if n := r.nameForLog(); n != strings.Repeat("n", 128)+"…" {
		t.Errorf("a long name is logged as %q", n)
	}
}

// ReadFacts reads a result's resultType as jsonrpc.Member does, and
// ResultFacts records the outcome it tells: a task with its id, input
// required, a tool's error (isError: true, in a result of up to
// maxResultLook), else ok.
func TestResultFacts(t *testing.T) {
	const ok, task, input, toolErr = telemetry.OutcomeOK, telemetry.OutcomeTask, telemetry.OutcomeInputRequired, telemetry.ErrorToolError
	for _, tc := range []struct{ res, outcome, errType, taskID string }{
		{`{"content":[],"isError":true}`, ok, toolErr, ""},
		{`{"content":[],"isError":false}`, ok, "", ""},
		{`{"content":[]}`, ok, "", ""},
		{`{"resultType":"task","taskId":"t-1"}`, task, "", "t-1"},
		{`{"resultType":"input_required","inputRequests":{}}`, input, "", ""},
		{`{"resultType":"complete","isError":true}`, ok, toolErr, ""},
		{`{"isError":true,"isError":false}`, ok, "", ""}, // the last of a repeated key
		{`{"resultType":7}`, ok, "", ""},
		{`{"pad":"` + strings.Repeat("x", maxResultLook) + `","isError":true}`, ok, "", ""},
		// Escaped keys are the keys they spell, as jsonrpc.Member reads
		// them (found by a hostile review: ReadFacts matched raw bytes).
		{`{"result\u0054ype":"task","task\u0049d":"t-1"}`, task, "", "t-1"},
		{`{"content":[],"is\u0045rror":true}`, ok, toolErr, ""},
		{`{"resultType":"complete","result\u0054ype":"input_required"}`, input, "", ""},
		{`{"resultType":"t\u0061sk","taskId":"t-2"}`, task, "", "t-2"},
	} {
		res := json.RawMessage(tc.res)
		facts := ReadFacts(res)
		kind, typed := facts.Kind()
		raw, wantTyped := jsonrpc.Member(res, "resultType")
		if wantKind, _ := jsonrpc.Text(raw); typed != wantTyped || kind != wantKind {
			t.Errorf("%.40s: resultType %q (typed %v), jsonrpc.Member reads %q (%v)", tc.res, kind, typed, wantKind, wantTyped)
		}
		r := &Record{}
		r.ResultFacts(res, facts)
		if r.outcome != tc.outcome || r.errType != tc.errType || r.taskID != tc.taskID || r.resBytes != len(res) {
			t.Errorf("%.40s: %s %q %q %d bytes, want %s %q %q %d", tc.res, r.outcome, r.errType, r.taskID, r.resBytes, tc.outcome, tc.errType, tc.taskID, len(res))
		}
	}
}

// A call line's duration reads as strconv.AppendFloat's 'f' with 3
// decimals writes the whole microseconds in milliseconds.
func TestAppendMillisIsAppendFloat(t *testing.T) {
	for _, d := range []time.Duration{0, 999 * time.Nanosecond, time.Microsecond, 431 * time.Microsecond, 1500 * time.Microsecond,
		time.Second + 7*time.Microsecond, 3*time.Hour + 17*time.Microsecond, -5 * time.Microsecond} {
		want := string(strconv.AppendFloat(nil, float64(d.Microseconds())/1000, 'f', 3, 64))
		if got := string(appendMillis(nil, d)); got != want {
			t.Errorf("appendMillis(%v) = %s, want %s", d, got, want)
		}
	}
}
