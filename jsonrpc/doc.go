// Package jsonrpc reads and writes newline-delimited JSON-RPC 2.0 messages
// on an upstream server's stdio (MCP stdio transport, 2025-06-18 §Transports)
// without decoding what it only relays: params, results and error data stay
// raw bytes, so key order and numbers reach the client unchanged (SPEC §4.4).
package jsonrpc
