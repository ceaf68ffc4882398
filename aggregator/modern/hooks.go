package modern

// This file is what the gateway's own tests reach inside the front: those
// of package aggregator run the whole endpoint over fake servers, and act
// at a moment of a bridged call's life (bridge.go, park.go) that no
// request can aim at. Nothing else uses it.

// TestHookGathered, set only by tests, runs when a round's asks have been
// gathered and before the round is parked or answered: a test acts at
// that moment (the client leaves, the gateway shuts down) instead of
// aiming at it with a sleep.
var TestHookGathered func()

// ExpireParked cancels every parked call now, as its expiry would
// (errParkExpired; its server gets notifications/cancelled). Unlike
// CancelAll, calls park again afterwards. Tests use it between calls.
func (f *Front) ExpireParked() {
	b := f.bridges
	b.mu.Lock()
	for k, bc := range b.parked {
		delete(b.parked, k)
		bc.cancel(errParkExpired)
	}
	b.mu.Unlock()
}
