package rpc

import (
	"context"
	"encoding/json"
)

// Peer is the client side of one call: where what the upstream server sends
// during the call goes (SPEC §3.8, §4.3). The aggregator implements it on
// top of the calling client's session (supervisor.Peer).
type Peer interface {
	// Notify relays a notification (notifications/progress with the
	// client's own progressToken restored, notifications/message).
	Notify(ctx context.Context, method string, params json.RawMessage)
	// Request relays a server-to-client request (sampling/createMessage,
	// elicitation/create, roots/list) and returns the client's result. A
	// *jsonrpc.Error is passed back to the server as it is.
	Request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// ClientID identifies the calling client as far as the gateway can
	// tell clients apart (a legacy session; a modern client, which has no
	// session, is its call), so that what a server sends outside any
	// request (stdio ties it to none) is relayed only when one client can
	// have caused it.
	ClientID() string
	// Client describes the calling client for a modern upstream's request
	// _meta (MCP 2026-07-28 basic/index "_meta"; SPEC §7.8), and tells
	// whether the client takes an InputRequiredResult itself (Modern) or
	// the supervisor must ask it through Request (SPEC §4.6).
	Client() ClientInfo
}

// TokenFree is a Peer that may know its call's params hold no
// _meta.progressToken (MCP, Progress), having read them with their keys
// decoded: when NoProgressToken says so, RoundTrip does not look for one
// to swap, a scan of every top-level member of params (11 ms for 8 MiB of
// small objects, issue 33). A Peer that is not a TokenFree, or says
// false, has its call's params looked at as before. The params RoundTrip
// is given for such a peer must then be the call's as the client sent
// them, or made from them without adding a token (a renamed tool's, a
// modern server's stamped _meta, tasks/get of its task).
type TokenFree interface {
	NoProgressToken() bool
}

// tokenFree reports whether p says its call's params hold no
// progressToken.
func tokenFree(p Peer) bool {
	t, ok := p.(TokenFree)
	return ok && t.NoProgressToken()
}
