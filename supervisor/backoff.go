package supervisor

import "time"

// Restart policy (SPEC §7.3). A server is never restarted in the
// background; the next call restarts it. A run that fails to start, or that
// ends less than BackoffReset after it started, counts as a failure; the
// first restart after a failure is immediate, and each further consecutive
// failure doubles the wait before the next start may happen, from
// BackoffBase up to BackoffMax. A run that lasts BackoffReset clears the
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
