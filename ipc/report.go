package ipc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// Report events, sent by the daemon as JSON lines on the report pipe, or
// on the hand-over socket of a warm daemon (warm.go).
const (
	EventProgress = "progress" // a step happened; Message says which
	EventReady    = "ready"    // the endpoint is ready (SPEC §2.2)
	EventFailed   = "failed"   // the daemon gives up; Error says why
	EventWarm     = "warm"     // a warm daemon's servers run; it waits for a config (SPEC §2.9)
	EventAccepted = "accepted" // a warm daemon took the config; ready or failed follows
	EventRefused  = "refused"  // a warm daemon refused the config, and stays as it was; Error says why
)

// Report is one line on the report pipe:
//
//	{"event": "ready", "addr": "0.0.0.0:50005", "pid": 42, "servers": 3, "tools": 25}
//	{"event": "failed", "error": "server \"memory\": …", "starting": ["memory"]}
type Report struct {
	Event    string   `json:"event"`
	Message  string   `json:"message,omitempty"`
	Addr     string   `json:"addr,omitempty"`
	PID      int      `json:"pid,omitempty"`
	Servers  int      `json:"servers,omitempty"`
	Tools    int      `json:"tools,omitempty"`
	Error    string   `json:"error,omitempty"`
	Starting []string `json:"starting,omitempty"`
}

// Reporter writes reports; a nil Reporter (the `serve` command) drops them.
type Reporter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

// NewReporter reports to w.
func NewReporter(w io.WriteCloser) *Reporter { return &Reporter{w: w} }

// Send writes one report. After a final one (ready, failed, warm,
// refused) the pipe is closed, so the launcher sees the end. It returns the write's error: EPIPE means the
// launcher is gone (nil for a nil Reporter).
func (r *Reporter) Send(rep Report) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return nil
	}
	err := json.NewEncoder(r.w).Encode(rep)
	if rep.Event != EventProgress && rep.Event != EventAccepted {
		r.w.Close()
		r.w = nil
	}
	return err
}

// ReadReports calls fn for each report read from r until fn returns false,
// the stream ends (the daemon died: io.EOF) or a line is malformed.
func ReadReports(r io.Reader, fn func(Report) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var rep Report
		if err := json.Unmarshal(sc.Bytes(), &rep); err != nil {
			return fmt.Errorf("read report: %w", err)
		}
		if !fn(rep) {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read report: %w", err)
	}
	return io.EOF
}
