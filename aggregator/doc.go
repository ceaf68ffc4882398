// Package aggregator owns what clients see (SPEC §3, §4): the merged tool
// registry and its collision naming, the MCP Streamable HTTP endpoint on
// /mcp (go-sdk's server side, with tools/list and tools/call answered from
// raw upstream JSON), bearer auth, the Origin check, the session cap, and
// the unauthenticated /health.
package aggregator
