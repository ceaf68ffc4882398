package telemetry

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// How a call ended, as the client was answered (SPEC §11.1): the
// outcome label of mcp_gateway_requests_total and the call log's outcome.
const (
	OutcomeOK            = "ok"             // a result (isError true too: error_type tool_error)
	OutcomeError         = "error"          // a JSON-RPC error; error_type is its code
	OutcomeCancelled     = "cancelled"      // the client cancelled or left, or its session ended: no answer
	OutcomeTimeout       = "timeout"        // a deadline ran out: a parked call's, a task's TTL
	OutcomeInputRequired = "input_required" // an InputRequiredResult (MCP 2026-07-28 mrtr)
	OutcomeTask          = "task"           // a CreateTaskResult: the call goes on as a task
)

// ErrorToolError is error.type for a result with isError true (the MCP
// semantic conventions' "tool_error").
const ErrorToolError = "tool_error"

// durationBuckets are the MCP semantic conventions' advised bucket
// boundaries for both operation durations, in seconds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// knownCodes are the JSON-RPC error codes an error_type label names
// (JSON-RPC 2.0's, and MCP's through 2026-07-28); any other code is
// "_OTHER", so that a server inventing codes cannot grow the series.
var knownCodes = map[int64]string{}

func init() {
	for _, c := range []int64{-32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32020, -32021, -32022, -32042, -32800} {
		knownCodes[c] = strconv.FormatInt(c, 10)
	}
}

// ErrorType is error.type for a JSON-RPC error code: the code, if it is
// one of JSON-RPC's or MCP's, else "_OTHER" (semantic conventions).
func ErrorType(code int64) string {
	if s, ok := knownCodes[code]; ok {
		return s
	}
	return "_OTHER"
}

// Metrics is the gateway's Prometheus registry and the series the call
// path updates. The series are bounded whatever the traffic: a label is
// a server (at most 64, SPEC §5.1), a method the gateway relays, an
// outcome or error type from a fixed set, or an exported tool name (one
// the registry lists) on mcp_gateway_tool_calls_total alone, which has
// two outcomes. Its methods are safe for concurrent use; a nil *Metrics
// records nothing.
type Metrics struct {
	reg            *prometheus.Registry
	serverDuration *prometheus.HistogramVec
	clientDuration *prometheus.HistogramVec
	requests       *prometheus.CounterVec
	toolCalls      *prometheus.CounterVec
	bytes          *prometheus.CounterVec
	spansDropped   prometheus.Counter

	// The series a call updates, by its labels: looked up once, since a
	// vector's lookup hashes and compares every label value (five lookups
	// were ~2 µs of a call).
	mu      sync.RWMutex
	calls   map[callKey]*callSeries
	clients map[[2]string]prometheus.Observer
}

type callKey struct{ server, method, tool, outcome, errType string }

type callSeries struct {
	duration                   prometheus.Observer
	requests, tool, sent, back prometheus.Counter
}

// NewMetrics makes the registry with the call series, the Go runtime's
// and the process's.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		serverDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mcp_server_operation_duration_seconds", Buckets: durationBuckets,
			Help: "MCP request duration as the gateway, the clients' server, saw it: from routing to the answer written (mcp.server.operation.duration).",
		}, []string{"mcp_method_name", "server"}),
		clientDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mcp_client_operation_duration_seconds", Buckets: durationBuckets,
			Help: "MCP request duration as the gateway, the servers' client, saw it: from sending a request to a server to its answer (mcp.client.operation.duration).",
		}, []string{"mcp_method_name", "server"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_gateway_requests_total",
			Help: "tools/call, prompts/get and resources/read requests answered, by server, method, outcome and error type (a JSON-RPC code, or tool_error).",
		}, []string{"server", "mcp_method_name", "outcome", "error_type"}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_gateway_tool_calls_total",
			Help: "tools/call requests by exported tool name; outcome is ok (a result without isError) or error (anything else).",
		}, []string{"gen_ai_tool_name", "outcome"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_gateway_relayed_bytes_total",
			Help: "Bytes of params relayed to servers (direction request) and of results relayed to clients (direction result).",
		}, []string{"server", "direction"}),
		spansDropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mcp_gateway_trace_spans_dropped_total",
			Help: "Spans not exported: the export queue was full, or the collector refused them or did not answer in time.",
		}),
	}
	m.calls, m.clients = map[callKey]*callSeries{}, map[[2]string]prometheus.Observer{}
	m.reg.MustRegister(m.serverDuration, m.clientDuration, m.requests, m.toolCalls, m.bytes, m.spansDropped,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Register adds a collector of the caller's (the servers' state, the
// sessions), read at each scrape.
func (m *Metrics) Register(c prometheus.Collector) error { return m.reg.Register(c) }

// Handler serves the registry in the Prometheus text format (or
// OpenMetrics, if the scraper asks for it).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Call is one answered request, for Metrics.Call.
type Call struct {
	Server, Method string
	// Tool is the exported tool name of a routed tools/call ("" otherwise).
	Tool               string
	Outcome, ErrorType string
	Duration           time.Duration
	// RequestBytes and ResultBytes are the params relayed to the server
	// and the result relayed to the client.
	RequestBytes, ResultBytes int
}

// Call records one answered request.
func (m *Metrics) Call(c Call) {
	if m == nil {
		return
	}
	s := m.seriesOf(callKey{c.Server, c.Method, c.Tool, c.Outcome, c.ErrorType})
	s.duration.Observe(c.Duration.Seconds())
	s.requests.Inc()
	if s.tool != nil {
		s.tool.Inc()
	}
	if s.sent != nil {
		s.sent.Add(float64(c.RequestBytes))
		s.back.Add(float64(c.ResultBytes))
	}
}

// seriesOf returns the series of calls labelled k.
func (m *Metrics) seriesOf(k callKey) *callSeries {
	m.mu.RLock()
	s := m.calls[k]
	m.mu.RUnlock()
	if s != nil {
		return s
	}
	s = &callSeries{duration: m.serverDuration.WithLabelValues(k.method, k.server),
		requests: m.requests.WithLabelValues(k.server, k.method, k.outcome, k.errType)}
	if k.tool != "" {
		outcome := OutcomeOK
		if k.outcome != OutcomeOK || k.errType != "" {
			outcome = OutcomeError
		}
		s.tool = m.toolCalls.WithLabelValues(k.tool, outcome)
	}
	if k.server != "" {
		s.sent, s.back = m.bytes.WithLabelValues(k.server, "request"), m.bytes.WithLabelValues(k.server, "result")
	}
	m.mu.Lock()
	m.calls[k] = s
	m.mu.Unlock()
	return s
}

// ClientDuration records how long a request to server took (the
// gateway as the servers' client).
func (m *Metrics) ClientDuration(server, method string, d time.Duration) {
	if m == nil {
		return
	}
	k := [2]string{server, method}
	m.mu.RLock()
	o := m.clients[k]
	m.mu.RUnlock()
	if o == nil {
		o = m.clientDuration.WithLabelValues(method, server)
		m.mu.Lock()
		m.clients[k] = o
		m.mu.Unlock()
	}
	o.Observe(d.Seconds())
}

// SpansDropped counts n spans that were not exported.
func (m *Metrics) SpansDropped(n int) {
	if m != nil {
		m.spansDropped.Add(float64(n))
	}
}
