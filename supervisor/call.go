package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/rpc"
)

// This file is the ordinary call, read top to bottom in the order a call
// takes (STYLE §13): Call or CallRun → the lifecycle's acquireRun (→
// acquire → liveRun, run.go) → exchange (→ Conn.RoundTrip; rpc.InputRounds) →
// endCall. Starting a run (run.go, start.go), detaching (detach.go) and
// graceful restarts (reload.go) hang off this spine.
//
// The contract of every request the aggregator relays to a server:
//
//   - Start on demand (SPEC §7.2): a server that is not running is
//     started, initialised and listed first, once for all the callers that
//     come meanwhile. One that keeps failing backs off (§7.3): its calls
//     fail at once, saying when the next start is.
//   - Errors: the server's JSON-RPC error comes back as *jsonrpc.Error,
//     unchanged, and ctx's as it is. Every other error names the server
//     once: the exit of the process, with its status and stderr tail
//     (*ExitError), for calls pending when it died (§7.2); a failed start
//     (*StartError); the back-off; a shutdown.
//   - Run pinning (SPEC §4.6): a modern server's requestState means
//     something only to the process that issued it. CallRun returns the
//     number of the run that served; a retry passes it back and goes to
//     that run, or fails with ErrRunEnded if it has ended; nothing is
//     started for it.
//   - Detach: a peer that is a Detacher may stop waiting while the call
//     goes on upstream: CallRun's Reply then holds the call that goes on
//     (Reply.Detached), and its Wait, called by a goroutine of the
//     caller's, returns what CallRun would have (detach.go).
//   - While it runs, a call is counted in its run's active calls, so that
//     a graceful restart lets it finish first (reload.go); a detached
//     call stays counted until its Wait returns.

// Peer is the client side of one call: where what the upstream server
// sends during the call goes (SPEC §3.8, §4.3); see rpc.Peer. The
// aggregator implements it on top of the calling client's session.
type Peer = rpc.Peer

// TokenFree is a Peer that may know its call's params hold no
// progressToken; see rpc.TokenFree.
type TokenFree = rpc.TokenFree

// ClientInfo describes the calling client of one request, for a modern
// upstream's request _meta (SPEC §7.8); see rpc.ClientInfo.
type ClientInfo = rpc.ClientInfo

// Call sends a request (tools/call) to the server, starting it first if it
// is not running (SPEC §7.2), and returns the raw result. It is CallRun on
// any run with a peer that does not detach; see there for modern servers
// and errors.
func (u *Upstream) Call(ctx context.Context, method string, params json.RawMessage, peer Peer) (json.RawMessage, error) {
	rep, err := u.CallRun(ctx, 0, method, params, peer)
	return rep.Result, err
}

// Reply is how a call CallRun made came back: the server's result, raw
// (nil with an error), and the number of the run that served it; or, when
// the call's peer detached (a Detacher), Detached, the call that goes on
// upstream, whose Wait returns the rest.
type Reply struct {
	Result   json.RawMessage
	Run      uint64
	Detached *DetachedCall
}

// ErrRunEnded is CallRun's error when the run it names is no longer the
// server's live process: the state a modern server's requestState refers
// to is gone with it (SPEC §4.6). The client must start the call over.
// MaxInputRounds bounds the InputRequiredResult rounds the supervisor runs
// for one call of a legacy client (SPEC §4.6); see rpc.MaxInputRounds.
const MaxInputRounds = rpc.MaxInputRounds

var ErrRunEnded = errors.New("the server process that held this request's state has ended; start the call over")

// CallRun sends a request to one run (process) of the server and returns
// its Reply: the raw result and the number of the run that served it. num 0 means
// any: the live run, started first if none is (SPEC §7.2). A non-zero num
// that is not the live process's fails at once with an error naming the
// server and matching ErrRunEnded; nothing is started for it.
//
// For a modern server (SPEC §7.8) the request carries request _meta from
// peer.Client() (see ClientInfo), and a tools/call, prompts/get or
// resources/read answered with an InputRequiredResult ({"resultType":
// "input_required", "inputRequests": {key: {"method", "params"}},
// "requestState": string}) is returned as sent if the client is modern;
// for a legacy client the supervisor asks it through peer.Request and
// retries on the same run, round after round (rpc.InputRounds; SPEC §4.6).
// Retries of a modern client's rounds go to the run that answered, so
// the caller passes Reply.Run back as num.
//
// Upstream JSON-RPC errors come back as *jsonrpc.Error unchanged, and
// ctx's errors as they are; other errors name the server and say why
// (exited with status and stderr tail, backing off, …). A peer that is a
// Detacher and detaches while the call waits gets a Reply whose Detached
// is the call, going on (detach.go); its Run is the run it goes on on.
func (u *Upstream) CallRun(ctx context.Context, num uint64, method string, params json.RawMessage, peer Peer) (Reply, error) {
	u.calls.Add(1)
	r, err := u.life.acquireRun(ctx, num)
	if err != nil {
		return Reply{}, err
	}
	res, w, err := u.exchange(ctx, r, method, params, peer)
	if w != nil {
		return Reply{Run: r.num, Detached: &DetachedCall{wait: func(ctx context.Context) (Reply, error) {
			res, err := w.Wait(ctx)
			return u.endCall(r, res, err)
		}}}, nil
	}
	return u.endCall(r, res, err)
}

// exchange makes one call on run r. For a legacy client of a modern
// server it also runs the InputRequiredResult rounds (rpc.InputRounds); any
// other result, a nil peer's included, is returned as the server sent it.
// A call whose peer detached comes back as its wait (w).
func (u *Upstream) exchange(ctx context.Context, r *run, method string, params json.RawMessage, peer Peer) (res json.RawMessage, w *rpc.DetachedWait, err error) {
	res, w, err = r.conn.RoundTrip(ctx, method, params, peer)
	if err != nil || w != nil || r.era != EraModern || peer == nil || !rpc.InputMethods[method] || peer.Client().Modern {
		return res, w, err
	}
	res, err = rpc.InputRounds(ctx, r.conn, method, params, peer, res)
	return res, nil, err
}

// endCall ends a call on run r: it leaves r's active calls, marks r as
// having served when the server answered, and names the server in an
// error that is not the server's own or ctx's.
func (u *Upstream) endCall(r *run, res json.RawMessage, err error) (Reply, error) {
	defer r.active.Done()
	if err == nil { // first, so that rpcErr is not made for every answer
		r.served.Store(true) // the server answered: it is not crash-looping
		return Reply{Result: res, Run: r.num}, nil
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		r.served.Store(true) // the server answered, with an error
		return Reply{Run: r.num}, err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return Reply{Run: r.num}, err
	}
	return Reply{Run: r.num}, fmt.Errorf("server %q: %w", u.name, err)
}
