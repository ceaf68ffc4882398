package relay

import (
	"encoding/json"

	"github.com/mcp-gateway/mcp-gateway/jsonrpc"
)

// This file is what a call's client may be asked and told, in either
// era: the client capability a server-to-client request needs (SPEC
// §4.6), and the logging levels its log messages pass (MCP Logging). Each
// front's supervisor.Peer applies them to its own client.

// LogLevels orders the MCP logging levels (RFC 5424 severities).
var LogLevels = map[string]int{"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7}

// ClientCan reports whether the client's capabilities (raw: initialize's,
// or a modern request's _meta clientCapabilities) declare what a
// server-to-client request needs (MCP 2025-06-18, Client features):
// sampling, elicitation or roots.
func ClientCan(caps json.RawMessage, method string) bool {
	need := CapabilityOf(method)
	if need == method || len(caps) == 0 || caps[0] != '{' {
		return false
	}
	v, ok := jsonrpc.Member(caps, need)
	return ok && string(v) != "null"
}

// CapabilityOf names the client capability a server-to-client request
// needs.
func CapabilityOf(method string) string {
	switch method {
	case "sampling/createMessage":
		return "sampling"
	case "elicitation/create":
		return "elicitation"
	case "roots/list":
		return "roots"
	}
	return method
}

// LogPasses reports whether a modern caller that asked for log level
// level ("" for none) gets the notification: any but a log message, and
// a log message at or above level (MCP 2026-07-28 logging: a request
// without _meta's logLevel gets no log messages).
func LogPasses(method string, params json.RawMessage, level string) bool {
	if method != "notifications/message" {
		return true
	}
	raw, _ := jsonrpc.Member(params, "level")
	l, _ := jsonrpc.Text(raw)
	return level != "" && LogLevels[l] >= LogLevels[level]
}
