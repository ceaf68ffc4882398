package supervisor

import (
	"context"

	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// This file lets a caller stop waiting for a call that goes on: a modern
// client's call that a legacy server's request parks (MRTR, SPEC §4.6)
// outlives the HTTP request that started it. The call runs on its
// request's goroutine until the server asks; only then does a goroutine of
// the caller's take over the wait, so that a call nobody asks anything
// costs no goroutine of its own.

// A Detacher is a Peer whose caller may stop waiting for its call; see
// rpc.Detacher.
type Detacher = rpc.Detacher

// DetachedCall is a call whose peer detached (see Detacher), as CallRun's
// Reply holds it: the call goes on, still pending, and still counted in
// its run's active calls (a graceful restart waits for it). Wait blocks
// until it ends and returns what CallRun would have; call it exactly
// once, from the goroutine that now owns the call.
type DetachedCall struct {
	wait func(ctx context.Context) (Reply, error)
}

// Wait returns the call's Reply (never detached) and its error, as
// CallRun would have. ctx takes the place of CallRun's from here: the
// caller's own may end with the request that detached.
func (d *DetachedCall) Wait(ctx context.Context) (Reply, error) {
	return d.wait(ctx)
}
