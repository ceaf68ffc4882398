// Command mcp-gateway serves the tools of stdio MCP servers on one MCP
// Streamable HTTP endpoint. See README.md and SPEC.md.
package main

import "os"

func main() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) }
