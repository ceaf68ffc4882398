package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is the spine of every tools/call through the gateway, in
// either era, read in the order a call takes: route, check, call, result.
//
// The contract (SPEC §4.3, §4.4): the exported name is routed to its
// server and replaced by the tool's original name; every other byte of
// params reaches the server as the client sent it (arguments, _meta,
// task, fields the gateway does not know). A progressToken must be a
// string or a number (MCP, Progress); the supervisor swaps it for its own
// and restores it on the way back. The result comes back as the server
// sent it. Errors are *jsonrpc.Error: the server's own (code, message and
// data unchanged), or the gateway's: -32602 for an unknown tool, bad
// params or a requestState whose server process has ended,
// CodeServerUnavailable when the server could not serve, or the cause a
// shutdown cancelled the call with.
//
// What differs between callers hangs off this spine, mostly as the Peer
// the call carries (what the server sends during the call goes there):
//
//   - a legacy session's call (methods.go) carries a peer (peer.go): its
//     progress, log messages and server-to-client requests travel on the
//     call's own response;
//   - a modern client's call (modern.go) carries a bridgeCall (bridge.go):
//     a legacy server's request parks the call for the client's retry
//     (park.go, MRTR, SPEC §4.6), which first detaches it from the HTTP
//     request that started it (detach.go): call then returns an outcome
//     that is detached, and awaitDetached has the rest;
//   - a gateway-made task's call (tasks.go) carries a taskPeer and runs on
//     a context of its own;
//   - a server's task of the other era is followed to its end around call
//     (taskfollow.go, SPEC §4.7), and a server's own task is registered
//     from its result (taskrelay.go).

// upstreamCall is one request on its way to the server that owns what it
// names: route says which server, and its own name for it.
type upstreamCall struct {
	method string          // "tools/call"
	name   string          // the exported name the client asked for
	route  route           // its server, and the tool's original name
	params json.RawMessage // as the client sent them
	// run is the server process the call must reach (the one a modern
	// server's requestState belongs to); 0: any, started if none runs
	// (supervisor.Upstream.CallRun).
	run  uint64
	peer supervisor.Peer
}

// callOutcome is how a call ended: the server's result, raw, and the
// process (run) that served it, or the error for the client. A call
// whose peer detached has not ended: detached holds it, and it goes on
// upstream (awaitDetached).
type callOutcome struct {
	res      json.RawMessage
	served   uint64
	rt       route
	err      error
	detached *supervisor.DetachedCall
}

// routeTool is step 1 for a tools/call's params: the route of
// params.name; -32602 if params are not an object with a string name
// that the registry exports.
func (g *Gateway) routeTool(params json.RawMessage) (upstreamCall, error) {
	if params == nil || params[0] != '{' {
		return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: tools/call needs {\"name\": ..., \"arguments\": {...}}"}
	}
	rawName, _ := jsonrpc.Member(params, "name")
	name, ok := jsonrpc.Text(rawName)
	if !ok {
		return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: tools/call needs a string \"name\""}
	}
	return g.routeName(name, params)
}

// routeName is routeTool for a name already read from params (a modern
// request's, in validateModern's one scan).
func (g *Gateway) routeName(name string, params json.RawMessage) (upstreamCall, error) {
	rt, ok := g.reg.Load().routes[name]
	if !ok {
		return upstreamCall{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool: %q", name)}
	}
	return upstreamCall{method: "tools/call", name: name, route: rt, params: params}, nil
}

// check is step 2: the params' progressToken (checkProgressToken). A
// modern request's was judged in validateModern's scan, and its front
// skips this.
func (c *upstreamCall) check() error { return checkProgressToken(c.params) }

// call is step 3: the request goes to the server under the tool's
// original name, on c.run, and its outcome comes back (step 4, resultOf),
// or, if c.peer detached, a detached outcome.
func (g *Gateway) call(ctx context.Context, c upstreamCall) callOutcome {
	params := c.params
	if c.route.tool != c.name {
		params, _ = jsonrpc.Replace(params, "name", jsonrpc.Quote(c.route.tool))
	}
	rep, err := c.route.upstream.CallRun(ctx, c.run, c.method, params, c.peer)
	if rep.Detached != nil {
		return callOutcome{served: rep.Run, rt: c.route, detached: rep.Detached}
	}
	return resultOf(ctx, c.route, rep.Result, rep.Run, err)
}

// awaitDetached waits, on ctx (the call's own, in place of its
// request's), for the end of a call whose peer detached (o.detached) and
// returns what call would have.
func awaitDetached(ctx context.Context, o callOutcome) callOutcome {
	rep, err := o.detached.Wait(ctx)
	return resultOf(ctx, o.rt, rep.Result, rep.Run, err)
}

// resultOf is step 4, a call's outcome as the client gets it: an error as a
// *jsonrpc.Error (the server's own, the gateway's reason for cancelling,
// -32602 for a run that ended, else CodeServerUnavailable), and a result
// that is a JSON object.
func resultOf(ctx context.Context, rt route, res json.RawMessage, served uint64, err error) callOutcome {
	o := callOutcome{rt: rt}
	if err != nil {
		var why *jsonrpc.Error
		var rpcErr *jsonrpc.Error
		switch {
		case ctx.Err() != nil && errors.As(context.Cause(ctx), &why):
			o.err = why // cancelled by the gateway, which says why (CancelCalls)
		case errors.As(err, &rpcErr):
			o.err = rpcErr
		case errors.Is(err, supervisor.ErrRunEnded):
			o.err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		default:
			o.err = &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: err.Error()}
		}
		return o
	}
	if t := trimSpace(res); len(t) == 0 || t[0] != '{' {
		o.err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("server %q answered tools/call with a result that is not a JSON object", rt.upstream.Name())}
		return o
	}
	o.res, o.served = res, served
	return o
}

// checkProgressToken refuses a params._meta.progressToken that is neither
// a string nor a number (MCP, Progress: ProgressToken = string | number):
// null made progress notifications carry "progressToken":null to a client
// that never asked for them.
func checkProgressToken(params json.RawMessage) error {
	meta, metas := onlyMember(params, "_meta")
	var tok json.RawMessage
	var toks int
	if metas == 1 && meta[0] == '{' {
		tok, toks = onlyMember(meta, "progressToken")
	}
	return progressTokenError(metas, tok, toks)
}

// progressTokenError is checkProgressToken's verdict on what a scan found:
// metas _meta members in params, and in the (last) one, toks
// progressToken members, the last being tok.
func progressTokenError(metas int, tok json.RawMessage, toks int) error {
	// Twice, the gateway would swap one while the server read the other,
	// and its progress would reach another client's call (found by an
	// adversarial review): refused.
	switch {
	case metas > 1:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: _meta appears more than once"}
	case toks > 1:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Invalid params: _meta.progressToken appears more than once"}
	case toks == 0:
		return nil
	}
	if c := tok[0]; c == '"' || c == '-' || (c >= '0' && c <= '9') {
		return nil
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("invalid _meta.progressToken %s: want a string or a number", tok)}
}

// onlyMember returns obj's member key (the last, if repeated) and how
// many there are, in one scan.
func onlyMember(obj []byte, key string) (json.RawMessage, int) {
	var (
		v json.RawMessage
		n int
	)
	_ = jsonrpc.Members(obj, func(k, val []byte) bool {
		if jsonrpc.KeyIs(k, key) {
			v, n = val, n+1
		}
		return true
	})
	return v, n
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	return b
}
