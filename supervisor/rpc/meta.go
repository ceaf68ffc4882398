package rpc

import (
	"encoding/json"
	"fmt"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// ClientInfo describes the calling client of one request, for the request
// _meta a modern (2026-07-28) upstream requires on every request (MCP
// 2026-07-28 basic/index "_meta", per-request protocol fields; SPEC §7.8).
//
//   - Capabilities is the client's capabilities object, raw (what a legacy
//     client declared at initialize, or a modern client's
//     io.modelcontextprotocol/clientCapabilities). nil means: keep the one
//     the request's _meta already holds, else send {}.
//   - Info is the client's Implementation object ({"name":…,"version":…}),
//     raw. nil means: keep the request's own, else send the gateway's.
//   - LogLevel is the minimum log level the client asked for ("debug" …
//     "emergency"; legacy: logging/setLevel). "" means: keep the request's
//     own, else send none, and the server then sends no log messages.
//   - Modern says the client speaks 2026-07-28 itself: a modern server's
//     InputRequiredResult goes back to it as sent, instead of the
//     supervisor asking it through Peer.Request (SPEC §4.6).
type ClientInfo struct {
	Capabilities json.RawMessage
	Info         json.RawMessage
	LogLevel     string
	Modern       bool
}

// The reserved request _meta keys (MCP 2026-07-28 basic/index "_meta").
const (
	metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"
	metaClientCaps      = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo      = "io.modelcontextprotocol/clientInfo"
	metaLogLevel        = "io.modelcontextprotocol/logLevel"
	metaSubscriptionID  = "io.modelcontextprotocol/subscriptionId"
	metaServerInfo      = "io.modelcontextprotocol/serverInfo"
)

// stampMeta returns params with the request _meta a modern server needs:
// protocolVersion set to version (the server's, overwriting a client's),
// clientCapabilities, clientInfo and logLevel from client (see ClientInfo
// for what an unset field means), self being the gateway's own clientInfo.
// Every other byte of params is kept: members in their order, values raw
// (big integers, unknown fields). Missing params become an object. It
// reports whether the stamped _meta asks for log messages.
func stampMeta(params json.RawMessage, version string, client ClientInfo, self json.RawMessage) (json.RawMessage, bool, error) {
	var fields []jsonrpc.Field
	if len(params) > 0 && string(params) != "null" {
		var err error
		if fields, err = jsonrpc.Fields(params); err != nil {
			return nil, false, fmt.Errorf("stamp request _meta: %w", err)
		}
	}
	var meta []jsonrpc.Field
	if raw, ok := jsonrpc.Get(fields, "_meta"); ok && string(raw) != "null" {
		var err error
		if meta, err = jsonrpc.Fields(raw); err != nil {
			return nil, false, fmt.Errorf("stamp request _meta: %w", err)
		}
	}
	meta = jsonrpc.Set(meta, metaProtocolVersion, jsonrpc.Quote(version))
	meta = setOrKeep(meta, metaClientCaps, client.Capabilities, json.RawMessage(`{}`))
	meta = setOrKeep(meta, metaClientInfo, client.Info, self)
	if client.LogLevel != "" {
		meta = jsonrpc.Set(meta, metaLogLevel, jsonrpc.Quote(client.LogLevel))
	}
	_, logs := jsonrpc.Get(meta, metaLogLevel)
	return jsonrpc.Encode(jsonrpc.Set(fields, "_meta", jsonrpc.Encode(meta))), logs, nil
}

// setOrKeep sets key to value; with no value it keeps the member already
// there, or adds fallback.
func setOrKeep(meta []jsonrpc.Field, key string, value, fallback json.RawMessage) []jsonrpc.Field {
	if len(value) > 0 {
		return jsonrpc.Set(meta, key, value)
	}
	if _, ok := jsonrpc.Get(meta, key); ok {
		return meta
	}
	return jsonrpc.Set(meta, key, fallback)
}
