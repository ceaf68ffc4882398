// Package pulled owns what `mcp-gateway pull` installs so that a catalog
// server starts from the template's disk, without the network (SPEC §2.8,
// §6.5):
//
//   - which commands run a package through a package runner (run.go):
//     `npx [-y] <pkg>[@<version>]`, `npm exec [--package=<pkg>] -- …`,
//     `uvx [--from <spec>] <command>[@<version>]` and `uv tool run …`;
//   - the install of such a package into the servers dir, pinned to the
//     version it resolved, and the record of what was installed: package,
//     version, and each executable with the path that runs it (store.go,
//     install.go);
//   - for a package that was not pulled, whether its registry can be
//     reached at all, decided in seconds rather than after npm's or uv's
//     own retries (registry.go).
//
// # Layout
//
// Each package lives in a directory of its own under the servers dir
// (SPEC §10: /opt/mcp-gateway/servers, --servers-dir,
// MCP_GATEWAY_SERVERS_DIR), beside the GitHub clones:
//
//	<servers-dir>/npm/<spec>/   npm install --prefix: node_modules/, package.json, package-lock.json
//	<servers-dir>/uv/<spec>/    uv tool install with UV_TOOL_DIR=tools/, UV_TOOL_BIN_DIR=bin/
//	…/<spec>/pulled.json        the record, written last
//
// <spec> is the package as the command names it ("@scope/name",
// "name@1.2.3"), path-escaped. The record's paths are relative to its
// directory, so an image may be built with one servers dir and run with
// another. A directory without its record is an interrupted install: it
// does not count as pulled, and the next pull starts it over.
//
// uv is written from its documentation (`uv tool install`, UV_TOOL_DIR,
// UV_TOOL_BIN_DIR, `uv tool list`) and tested against a stand-in; no real
// uv runs in this repository's tests.
package pulled
