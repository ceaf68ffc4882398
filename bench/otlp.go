package bench

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// otlpReceiver is an OTLP/HTTP endpoint in this process that one gateway
// side exports to (otlpPlaceholder in its environment, e.g.
// OTEL_EXPORTER_OTLP_ENDPOINT={otlp}): the collector a traced gateway
// talks to on a sandbox, at the cost of reading the body. It counts the
// requests and bytes it gets by path and answers each with 200 and an
// empty Export…ServiceResponse (no body for protobuf, {} for JSON); it
// parses nothing.
type otlpReceiver struct {
	srv *httptest.Server

	mu       sync.Mutex
	requests map[string]int64
	bytes    int64
}

// OTLPReceived is what one side's receiver got in a run.
type OTLPReceived struct {
	URL      string           `json:"url"`
	Requests map[string]int64 `json:"requests"` // by path: /v1/traces, /v1/metrics, /v1/logs
	Bytes    int64            `json:"bytes"`    // request bodies as sent (compressed or not)
}

func startOTLPReceiver() *otlpReceiver {
	rc := &otlpReceiver{requests: map[string]int64{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	return rc
}

func (rc *otlpReceiver) serve(w http.ResponseWriter, req *http.Request) {
	n, _ := io.Copy(io.Discard, req.Body)
	rc.mu.Lock()
	rc.requests[req.URL.Path]++
	rc.bytes += n
	rc.mu.Unlock()
	if strings.HasPrefix(req.Header.Get("Content-Type"), "application/json") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

// url is the receiver's base URL, http://127.0.0.1:port, to which an
// OTLP/HTTP exporter adds /v1/traces.
func (rc *otlpReceiver) url() string { return rc.srv.URL }

// received returns the counts so far.
func (rc *otlpReceiver) received() OTLPReceived {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	req := make(map[string]int64, len(rc.requests))
	for p, n := range rc.requests {
		req[p] = n
	}
	return OTLPReceived{URL: rc.srv.URL, Requests: req, Bytes: rc.bytes}
}

func (rc *otlpReceiver) close() { rc.srv.Close() }

// received is what each side's receiver got so far; nil without
// receivers.
func (r *runner) received() map[string]OTLPReceived {
	if len(r.otlp) == 0 {
		return nil
	}
	out := map[string]OTLPReceived{}
	for side, rc := range r.otlp {
		out[side] = rc.received()
	}
	return out
}
