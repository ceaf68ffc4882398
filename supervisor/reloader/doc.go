// Package reloader applies a change of the catalog file to the running
// servers (SPEC §6.3): a Reloader loads the file again, names the entries
// added, removed and changed against the last good catalog, resolves
// every configured server again through the adapters' own
// Config.Resolve, and hands the new launch specs to the supervisor, whose
// Supervisor.Reload restarts gracefully the servers whose spec changed
// (reloader.go). One reload runs at a time, whoever asks: the catalog
// watcher, a SIGHUP or `mcp-gateway reload`; the Result it returns is
// the control socket's answer to the last (result.go, SPEC §8.1).
//
// It stands above package supervisor and uses only its exported surface;
// the daemon wires it (cmd/mcp-gateway/daemon).
package reloader
