package supervisor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// An upstream server's era, as Status.Era shows it (SPEC §7.8; MCP
// 2026-07-28 basic/versioning "Terminology").
const (
	// EraLegacy: initialize handshake (2025-11-25 and earlier).
	EraLegacy = "legacy"
	// EraModern: no handshake; every request carries its version and the
	// client's capabilities in _meta (2026-07-28 and later).
	EraModern = "modern"
)

// firstModern is the first modern protocol revision; revision names are
// dates, so they order as strings.
const firstModern = "2026-07-28"

// ModernVersions are the modern revisions the gateway can drive an
// upstream server with, newest first.
var ModernVersions = []string{"2026-07-28"}

// codeUnsupportedVersion is UnsupportedProtocolVersionError's code (MCP
// 2026-07-28 basic/versioning); its data is {"supported": [versions],
// "requested": version}.
const codeUnsupportedVersion = -32022

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

// modernRefusal tells whether err is a server's refusal of the legacy
// initialize that identifies it as modern only (SPEC §7.8): -32022 whose
// data.supported lists only modern versions. It returns the version to
// drive it with (the newest of ModernVersions it supports), or an error
// if it supports none of them.
func modernRefusal(err error) (version string, modern bool, _ error) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != codeUnsupportedVersion {
		return "", false, nil
	}
	var data struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(rpcErr.Data, &data) != nil || len(data.Supported) == 0 {
		return "", false, nil
	}
	for _, v := range data.Supported {
		if v < firstModern {
			return "", false, nil // it speaks a legacy version: not ours to switch
		}
	}
	for _, v := range ModernVersions {
		if slices.Contains(data.Supported, v) {
			return v, true, nil
		}
	}
	return "", true, fmt.Errorf("choose protocol version: the server supports only %s; the gateway speaks %s",
		strings.Join(data.Supported, ", "), strings.Join(append(ModernVersions, ProtocolVersion), ", "))
}

// discovery is what server/discover told about a modern server (MCP
// 2026-07-28 server/discover), raw.
type discovery struct {
	Supported    []string        `json:"supportedVersions"`
	Capabilities json.RawMessage `json:"capabilities"`
	Meta         struct {
		ServerInfo json.RawMessage `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// handshakeModern drives a server that refused initialize as modern:
// server/discover (request _meta from now on, see stampMeta), its own
// subscriptions/listen for the list changes it declares (listen.go), then
// tools/list and the other lists it declares (lists.go).
func (u *Upstream) handshakeModern(ctx context.Context, r *run, version string) (Lists, error) {
	self, _ := json.Marshal(map[string]string{"name": "mcp-gateway", "version": u.opts.Version})
	r.conn.modern.Store(&modernConn{version: version, self: self})
	res, err := r.conn.call(ctx, "server/discover", nil, nil)
	if err != nil {
		return Lists{}, &stepError{"server/discover", err}
	}
	var d discovery
	if err := json.Unmarshal(res, &d); err != nil {
		return Lists{}, &stepError{"server/discover", fmt.Errorf("decode result: %w", err)}
	}
	if !slices.Contains(d.Supported, version) {
		return Lists{}, &stepError{"server/discover", fmt.Errorf("the server lists versions %s, not %s, which it asked for",
			strings.Join(d.Supported, ", "), version)}
	}
	r.protocol, r.era = version, EraModern
	r.capabilities, r.serverInfo = d.Capabilities, d.Meta.ServerInfo
	r.caps = parseCapabilities(d.Capabilities)
	u.opts.Logger.Info("server refused the legacy initialize; driving it as modern", "server", u.name,
		"protocolVersion", version, "serverInfo", string(d.Meta.ServerInfo), "capabilities", string(d.Capabilities))
	if filter := listenFilter(r.caps); filter != "" {
		if err := u.openListen(ctx, r, filter); err != nil {
			return Lists{}, &stepError{"subscriptions/listen", err}
		}
	}
	var lists Lists
	err = u.listKinds(ctx, r, ListTools|r.caps.declared(), &lists)
	return lists, err
}
