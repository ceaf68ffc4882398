package modern

// This file is what the gateway's own tests reach inside the front: those
// of package aggregator run the whole endpoint over fake servers, and act
// at a moment of a bridged call's life (bridge.go, park.go) that no
// request can aim at. Nothing else uses it. TestHookGathered, which they
// set, is read where a round is gathered (bridge.go).

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
