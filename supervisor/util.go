package supervisor

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"time"
)

// within waits up to d for done to close, or until ctx ends, and reports
// whether done closed. d is always a named wait (see the package doc);
// the waits that also watch other channels (listen.go, reload.go) select
// on a timer of their own.
func within(ctx context.Context, done <-chan struct{}, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-done:
		return true
	case <-timer.C:
		return false
	case <-ctx.Done():
		return false
	}
}

func bytesContains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }

var idPattern = regexp.MustCompile(`"id"\s*:\s*(-?\d+)`)

// findID looks for a numeric "id" member in a fragment of a JSON-RPC message.
func findID(fragment []byte) (int64, bool) {
	m := idPattern.FindSubmatch(fragment)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(m[1]), 10, 64)
	return n, err == nil
}
