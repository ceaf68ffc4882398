// Package supervisor owns the upstream MCP servers: one child process per
// configured server, its stdio JSON-RPC session, its restarts, and its
// stderr in the log (SPEC §7).
//
//   - Each server runs in its own process group with the daemon's
//     environment minus GATEWAY_ACCESS_TOKEN, plus its own envs (§7.1).
//   - A server that exits is restarted by the next call, not in the
//     background; calls pending at the exit fail at once (§7.2). Quick
//     repeated failures back off (§7.3, see backoff.go).
//   - stdout is read as newline-delimited JSON-RPC by our own reader, lines
//     up to 64 MiB; non-JSON lines are logged and skipped (§7.4).
//   - stderr goes to the log line by line with secrets masked (§7.4, §7.5).
//   - Servers of either era (§7.8): each is first sent initialize at the
//     newest legacy version; one that refuses with -32022 listing only
//     modern versions (2026-07-28 on) is driven as modern: server/discover,
//     request _meta on every request (meta.go), its own
//     subscriptions/listen for tool list changes (listen.go). Status.Era
//     says which (modern.go). A modern server's InputRequiredResult goes
//     back as sent to a modern client, whose retry CallRun sends to the
//     same process; for a legacy client the supervisor asks the client and
//     retries itself (mrtr.go, SPEC §4.6).
//   - A catalog change is applied by a Reloader: each server is resolved
//     again and restarted gracefully if its launch spec changed (§6.3,
//     reloader.go, reload.go).
//
// Results, params and errors are relayed as raw JSON; see package jsonrpc.
package supervisor
