package auth

import (
	"log/slog"
	"net"
	"sync"
	"time"
)

// logEvery is the interval of the unauthorized-request log: the first
// 401 after a quiet interval is logged at once, the rest as one count per
// interval, so that a flood of wrong tokens cannot flood the log.
const logEvery = 10 * time.Second

// Log logs 401s (SPEC §3.2) at a bounded rate: never the token that
// was tried, only why it failed (missing or wrong) and the client's IP.
type Log struct {
	log   *slog.Logger
	every time.Duration

	mu             sync.Mutex
	open           bool // an interval is running: 401s are counted
	missing, wrong int
	last           string      // the IP of the last one counted
	timer          *time.Timer // ends the interval
}

// NewLog is the 401 log that writes to log.
func NewLog(log *slog.Logger) *Log { return &Log{log: log, every: logEvery} }

// rejected notes one 401; missing says the request carried no bearer
// token at all.
func (a *Log) rejected(missing bool, remote string) {
	if a == nil || a.log == nil {
		return
	}
	if host, _, err := net.SplitHostPort(remote); err == nil {
		remote = host
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.open {
		a.open = true
		a.timer = time.AfterFunc(a.every, a.flush)
		a.log.Warn("unauthorized request: answered 401", "token", reason(missing), "client", remote)
		return
	}
	if missing {
		a.missing++
	} else {
		a.wrong++
	}
	a.last = remote
}

// flush logs the interval's count, if any, and starts the next interval;
// a quiet interval closes it.
func (a *Log) flush() {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := a.missing + a.wrong
	if n == 0 {
		a.open = false
		return
	}
	a.log.Warn("unauthorized requests: answered 401", "count", n, "interval", a.every.String(),
		"missingToken", a.missing, "wrongToken", a.wrong, "lastClient", a.last)
	a.missing, a.wrong = 0, 0
	a.timer.Reset(a.every)
}

// Stop ends the interval's timer (the daemon, at shutdown).
func (a *Log) Stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.timer != nil {
		a.timer.Stop()
	}
}

func reason(missing bool) string {
	if missing {
		return "missing"
	}
	return "wrong"
}
