package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/aggregator/registry"
	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is the spine of every request the gateway relays to the
// server that owns what it names, in either era, read in the order a call
// takes: route, check, call, result. tools/call is the hot path;
// prompts/get, resources/read and completion/complete take the same one
// (route.go routes them).
//
// The contract (SPEC §4.3, §4.4, §4.8): the exported name (a tool's, a
// prompt's) is routed to its server and replaced by the original name
// (completion: in params.ref); a URI is never rewritten; every other byte
// of params reaches the server as the client sent it (arguments, _meta,
// task, fields the gateway does not know). A progressToken must be a
// string or a number (MCP, Progress); the supervisor swaps it for its own
// and restores it on the way back. The result comes back as the server
// sent it; a URI it carries is remembered for the client (registry.Memory).
// Errors are *jsonrpc.Error: the server's own (code, message and data
// unchanged), or the gateway's: -32602 for an unknown name or URI, bad
// params or a requestState whose server process has ended,
// CodeServerUnavailable when the server could not serve, or the cause a
// shutdown cancelled the call with.
//
// What differs between callers hangs off this spine, mostly as the Peer
// the call carries (what the server sends during the call goes there):
//
//   - a legacy session's call (methods.go, surface.go) carries a peer
//     (peer.go): its progress, log messages and server-to-client requests
//     travel on the call's own response;
//   - a modern client's call (package modern: modern.go) carries a
//     bridgeCall (bridge.go): a legacy server's request parks the call for
//     the client's retry (park.go, MRTR, SPEC §4.6), which first detaches
//     it from the HTTP request that started it (bridge.go): call then
//     returns an outcome that is detached, and awaitDetached has the rest;
//   - a gateway-made task's call (tasks.go) carries a taskPeer and runs on
//     a context of its own;
//   - a server's task of the other era is followed to its end around call
//     (taskfollow.go, SPEC §4.7), and a server's own task is registered
//     from its result (taskrelay.go).

// Call is one request on its way to the server that owns what it
// names: route says which server, and its own name for it.
type Call struct {
	Method string          // "tools/call", "prompts/get", "resources/read", "completion/complete"
	Name   string          // what the client named: an exported tool or prompt name, or a URI
	Route  registry.Route  // its server, and the original name
	Params json.RawMessage // as the client sent them
	// Run is the server process the call must reach (the one a modern
	// server's requestState belongs to); 0: any, started if none runs
	// (supervisor.Upstream.CallRun).
	Run  uint64
	Peer supervisor.Peer
	// Via is the gateway's tool the call came through (call_tool, SPEC
	// §4.10; toolsearch.go), "" for a direct call: name, route and params
	// are then the direct call's.
	Via string
	// Mem learns the URIs the result carries, for the calling client
	// (registry.Memory); nil learns none.
	Mem *registry.Memory
	// Task says params hold a "task" member that is an object
	// (TaskMetadata, MCP 2025-11-25: the client asks for a task); set by
	// Router.Tool, whose one scan of params found it.
	Task bool
	// metaRead says Router.Tool's scan of params found meta, the last of
	// metas _meta members, for check; else check scans for them.
	metaRead bool
	meta     json.RawMessage
	metas    int
	// tokenFree says Check found params valid and without a
	// _meta.progressToken (NoProgressToken).
	tokenFree bool
	// nameAt is where Router.Tool found the value of params.name in
	// nameIn, the params it routed: while Params are still those, renamed
	// puts the original name there without scanning them again.
	nameIn json.RawMessage
	nameAt [2]int
}

// Outcome is how a call ended: the server's result, raw, and the
// process (run) that served it, or the error for the client. A call
// whose peer detached has not ended: detached holds it, and it goes on
// upstream (awaitDetached).
type Outcome struct {
	Res      json.RawMessage
	Served   uint64
	Route    registry.Route
	Err      error
	Detached *supervisor.DetachedCall

	method string           // the call's, for the result's checks
	mem    *registry.Memory // the call's
}

// Check is step 2: the params' progressToken (checkProgressToken). A
// modern request's was judged in validateModern's scan, and its front
// skips this.
func (c *Call) Check() error {
	meta, metas, folds := c.meta, c.metas, false // Router.Tool refused a _meta that folds
	if !c.metaRead {
		meta, metas, folds = onlyMember(c.Params, "_meta")
	}
	if folds {
		return KeyFoldsError("_meta")
	}
	toks, err := metaProgressToken(meta, metas)
	c.tokenFree = err == nil && toks == 0
	return err
}

// NoProgressToken reports that Check has read params and found no
// _meta.progressToken in them, its keys compared decoded as the
// supervisor's swap of a token reads them (supervisor.TokenFree): the
// supervisor then does not look for one, a scan of every top-level
// member of params (11 ms for 8 MiB of small objects, issue 33).
func (c *Call) NoProgressToken() bool { return c.tokenFree }

// call is step 3: the request goes to the server under the original
// name, on c.run, and its outcome comes back (step 4, end), or, if c.peer
// detached, a detached outcome.
func Do(ctx context.Context, c Call) Outcome {
	params := c.Params
	if c.Route.Name != c.Name {
		params = c.renamed()
	}
	rep, err := c.Route.Upstream.CallRun(ctx, c.Run, c.Method, params, c.Peer)
	o := Outcome{Route: c.Route, method: c.Method, mem: c.Mem}
	if rep.Detached != nil {
		o.Served, o.Detached = rep.Run, rep.Detached
		return o
	}
	return o.end(ctx, rep.Result, rep.Run, err)
}

// renamed is the params with the original name in place of the exported
// one: params.name, or a completion's params.ref.name.
func (c *Call) renamed() json.RawMessage {
	name := jsonrpc.Quote(c.Route.Name)
	if c.Method == "completion/complete" {
		ref, _ := jsonrpc.Member(c.Params, "ref")
		ref, _ = jsonrpc.Replace(ref, "name", name)
		params, _ := jsonrpc.Replace(c.Params, "ref", ref)
		return params
	}
	if len(c.nameIn) > 0 && len(c.Params) == len(c.nameIn) && &c.Params[0] == &c.nameIn[0] {
		return jsonrpc.Splice(c.Params, c.nameAt[0], c.nameAt[1], name)
	}
	params, _ := jsonrpc.Replace(c.Params, "name", name)
	return params
}

// AwaitDetached waits, on ctx (the call's own, in place of its
// request's), for the end of a call whose peer detached (o.detached) and
// returns what call would have.
func AwaitDetached(ctx context.Context, o Outcome) Outcome {
	rep, err := o.Detached.Wait(ctx)
	o.Detached, o.Served = nil, 0
	return o.end(ctx, rep.Result, rep.Run, err)
}

// end is step 4, a call's outcome as the client gets it: an error as a
// *jsonrpc.Error (the server's own, the gateway's reason for cancelling,
// -32602 for a run that ended, else CodeServerUnavailable), and a result
// that is a JSON object, whose URIs the client's memory learns.
func (o Outcome) end(ctx context.Context, res json.RawMessage, served uint64, err error) Outcome {
	if err != nil {
		var why *jsonrpc.Error
		var rpcErr *jsonrpc.Error
		switch {
		case ctx.Err() != nil && errors.As(context.Cause(ctx), &why):
			o.Err = why // cancelled by the gateway, which says why (CancelCalls)
		case errors.As(err, &rpcErr):
			o.Err = rpcErr
		case errors.Is(err, supervisor.ErrRunEnded):
			o.Err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
		default:
			o.Err = &jsonrpc.Error{Code: jsonrpc.CodeServerUnavailable, Message: err.Error()}
		}
		return o
	}
	if t := jsonrpc.TrimLeft(res); len(t) == 0 || t[0] != '{' {
		o.Err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("server %q answered %s with a result that is not a JSON object", o.Route.Upstream.Name(), o.method)}
		return o
	}
	if o.mem != nil && o.Route.Resources && registry.MayHoldURI(res) {
		o.mem.Learn(res, o.method, o.Route.Upstream.Name())
	}
	o.Res, o.Served = res, served
	return o
}

// checkProgressToken refuses a params._meta.progressToken that is neither
// a string nor a number (MCP, Progress: ProgressToken = string | number):
// null made progress notifications carry "progressToken":null to a client
// that never asked for them.
func checkProgressToken(params json.RawMessage) error {
	meta, metas, folds := onlyMember(params, "_meta")
	if folds {
		return KeyFoldsError("_meta")
	}
	_, err := metaProgressToken(meta, metas)
	return err
}

// metaProgressToken is checkProgressToken once params' _meta members
// are found: metas of them, meta the last; toks is how many
// progressTokens the (one) _meta holds.
func metaProgressToken(meta json.RawMessage, metas int) (toks int, err error) {
	var tok json.RawMessage
	if metas == 1 && meta[0] == '{' {
		var folds bool
		if tok, toks, folds = onlyMember(meta, "progressToken"); folds {
			return toks, KeyFoldsError("progressToken")
		}
	}
	return toks, ProgressTokenError(metas, tok, toks)
}

// ProgressTokenError is checkProgressToken's verdict on what a scan found:
// metas _meta members in params, and in the (last) one, toks
// progressToken members, the last being tok.
func ProgressTokenError(metas int, tok json.RawMessage, toks int) error {
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
// many there are, in one scan, and whether a member's key is key but for
// case (folds, jsonrpc.KeyFolds).
func onlyMember(obj []byte, key string) (v json.RawMessage, n int, folds bool) {
	_ = jsonrpc.Members(obj, func(k, val []byte) bool {
		switch {
		case jsonrpc.KeyIs(k, key):
			v, n = val, n+1
		case jsonrpc.KeyFolds(k, key):
			folds = true
		}
		return true
	})
	return v, n, folds
}

// KeyFoldsError refuses params with a key that is key but for case
// ("_META", "progre\u017f\u017fToken", "Name"): the gateway reads only key
// itself, but a server decoding with Go's encoding/json reads that one
// as key too, and the last it meets wins. A server would so take a
// progressToken the gateway never swapped, and report progress under a
// number the gateway takes for another client's call; or run a tool
// other than the one the gateway routed and allowed (found by a hostile
// review).
func KeyFoldsError(key string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("Invalid params: a key that is %q but for case; send %q itself, once", key, key)}
}

// FoldedKey is the first of keys that the raw key k is but for case
// (jsonrpc.KeyFolds), or "".
func FoldedKey(k []byte, keys ...string) string {
	for _, key := range keys {
		if jsonrpc.KeyFolds(k, key) {
			return key
		}
	}
	return ""
}

// CheckTaskParams refuses the params of a tasks/get, tasks/result or
// tasks/cancel the gateway relays to a server (taskrun.RelayTask) as
// Check refuses a call's: a key that is taskId (which the gateway sets
// to the server's own id) or _meta but for case, and a progressToken
// Check refuses.
func CheckTaskParams(params json.RawMessage) error {
	if _, _, folds := onlyMember(params, "taskId"); folds {
		return KeyFoldsError("taskId")
	}
	return checkProgressToken(params)
}
