// Package plugin runs external adapters (SPEC §9.2): programs a template
// ships in the adapters dir (/etc/mcp-gateway/adapters, --adapters-dir) that
// handle config keys with a prefix of their own, such as "npm/". It owns the
// versioned contract between the gateway and an adapter, the host side
// (Load) and the adapter side (Serve). Processes are started and spoken to
// with hashicorp/go-plugin over gRPC, so an adapter may be written in any
// language.
//
// # Contract (protocol 1)
//
// An adapter is the built-in adapters.Adapter, minus Claims: it declares the
// key prefixes it handles once, at load time, and turns one config entry
// into an adapters.LaunchSpec or a validation error:
//
//	type Adapter interface {
//		Prefixes() []string // e.g. "npm/"; each ends with "/"
//		Resolve(key string, e adapters.Entry) (adapters.LaunchSpec, []string, error)
//	}
//
// plus an optional Help() string describing the key's form for the
// unknown-server message. Resolve must not start anything: it validates and
// describes. Built-in kinds take precedence: a prefix that overlaps
// "github/" or another adapter's prefix is a load error naming both files.
//
// # Handshake
//
// go-plugin's: the gateway starts the adapter with
// MCP_GATEWAY_ADAPTER=7d3c5b1e-mcp-gateway-adapter,
// PLUGIN_PROTOCOL_VERSIONS=1 and PLUGIN_UNIX_SOCKET_DIR (a private directory
// the gateway removes afterwards) in its environment; an adapter started
// without that cookie must exit. The adapter listens on a Unix socket in
// that directory (or on TCP on localhost), without TLS, and prints one line
// to stdout:
//
//	1|1|unix|/tmp/plugin123/adapter.sock|grpc
//
// that is core protocol 1 | adapter protocol 1 | network | address | grpc.
// Everything an adapter writes to stderr goes to the gateway log as
// "[adapter:<file>] …".
//
// # Wire format
//
// One gRPC service, mcpgateway.adapter.v1.Adapter (adapter.proto in this
// directory), whose two unary methods each take and return a
// google.protobuf.BytesValue holding a UTF-8 JSON object:
//
//	Describe  {"protocol":1}
//	       -> {"protocol":1,"prefixes":["npm/"],"help":"\"npm/<package>\" with optional {\"args\": [...]}"}
//	Resolve   {"protocol":1,"key":"npm/x","entry":{"args":["-v"],"envs":{"A":"b"}}}
//	       -> {"argv":["npx","-y","x","-v"],"env":{},"dir":"","install":[["npm","exec","--yes","--package=x","--","true"]],
//	           "warnings":[],"errors":[]}
//
// "entry" is the config value as written, {} for null, after the gateway has
// checked the fields every kind shares (runCmd and installCmd strings, envs an
// object of strings). A non-empty "errors" means the entry is invalid; each
// string is one problem, worded for the user, without the key. The gateway
// adds the entry's envs to "env" itself, masks their values in errors and
// warnings, and checks the spec (argv not empty, dir absolute, env names
// valid, no NUL bytes). A gRPC error status means the adapter failed, not
// the entry.
//
// go-plugin's own services (grpc.health.v1.Health for "plugin",
// plugin.GRPCController/Shutdown, plugin.GRPCStdio) are served by Serve;
// an adapter in another language should serve at least Health and
// GRPCController, or its shutdown waits 2 s before it is killed.
//
// # Lifecycle
//
// Load starts every regular executable file in the dir (dotfiles excluded),
// in parallel, and asks each for its prefixes. The adapters run only while
// the caller resolves entries; the returned closeAll stops them all
// (go-plugin's Client.Kill, then SIGKILL to the adapter's process group).
// Every wait is bounded by the caller's context.
package plugin
