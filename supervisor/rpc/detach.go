package rpc

// This file lets a caller stop waiting for a call that goes on: a modern
// client's call that a legacy server's request parks (MRTR, SPEC §4.6)
// outlives the HTTP request that started it. The call runs on its
// request's goroutine until the server asks; only then does a goroutine of
// the caller's take over the wait, so that a call nobody asks anything
// costs no goroutine of its own.

// A Detacher is a Peer whose caller may stop waiting for its call: once
// the channel Detach returns is closed (nil: never), CallRun returns at
// once a Reply whose Detached is the call, which goes on upstream. A channel closed
// already when a call starts does not detach it: a peer used again for
// another call (a relayed task's tasks/cancel) waits for that one. Until then, Gone
// closing (nil: never) cancels the call as ctx's end would (the server
// gets notifications/cancelled; CallRun returns context.Canceled): a
// second reason to stop, such as the gateway's shutdown, beside ctx. It
// costs the caller nothing per call, unlike a context it would derive
// from both.
type Detacher interface {
	Detach() <-chan struct{}
	Gone() <-chan struct{}
}

// startedAttached is detach, or nil when it is closed already (see
// Detacher).
func startedAttached(detach <-chan struct{}) <-chan struct{} {
	select {
	case <-detach:
		return nil
	default:
		return detach
	}
}

// detachOf is peer's Detach and Gone channels, or nils.
func detachOf(peer Peer) (detach, gone <-chan struct{}) {
	if d, ok := peer.(Detacher); ok {
		return d.Detach(), d.Gone()
	}
	return nil, nil
}
