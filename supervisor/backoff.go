package supervisor

import "time"

// Restart policy (SPEC §7.3). A server is never restarted in the
// background; the next call restarts it. A run counts as a failure if it
// failed to start (spawn, initialize, tools/list), or if it ended without
// ever answering a call within BackoffReset of its start: that is a server
// crashing on its own, not one killed from outside while it served. The
// first restart after a failure is immediate; each further consecutive
// failure doubles the wait before the next start, from BackoffBase up to
// BackoffMax. A run that answers a call, or lasts BackoffReset, clears the
// count. Calls made while a server waits fail at once with an error that
// says when the next try is.
const (
	BackoffBase  = 1 * time.Second
	BackoffMax   = 60 * time.Second
	BackoffReset = 5 * time.Minute
)

// backoffDelay returns the wait after n consecutive failures.
func backoffDelay(n int) time.Duration {
	if n <= 1 {
		return 0
	}
	d := BackoffBase
	for i := 2; i < n && d < BackoffMax; i++ {
		d *= 2
	}
	return min(d, BackoffMax)
}
