package rpc

import (
	"encoding/json"
)

// modernConn is what a connection to a modern server stamps on every
// request: the server's protocol version and the gateway's own
// clientInfo (for requests without a client).
type modernConn struct {
	version string
	self    json.RawMessage
}

// stamp adds the request _meta for peer's client (nil: the gateway's own
// request, with capabilities {}); see stampMeta.
func (m *modernConn) stamp(params json.RawMessage, peer Peer) (json.RawMessage, bool, error) {
	var client ClientInfo
	if peer != nil {
		client = peer.Client()
	}
	return stampMeta(params, m.version, client, m.self)
}

// protocol is m's version; "" for a legacy server (m nil).
func (m *modernConn) protocol() string {
	if m == nil {
		return ""
	}
	return m.version
}
