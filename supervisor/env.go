package supervisor

import "strings"

// TokenEnv is the variable that carries the gateway token. It is removed
// from every child's environment (SPEC §7.1).
const TokenEnv = "GATEWAY_ACCESS_TOKEN"

// settingsPrefix begins the names of the gateway's own settings
// (MCP_GATEWAY_PORT, MCP_GATEWAY_RUN_DIR, ... SPEC §10). They configure
// the gateway, not its servers, and are removed from every child's
// environment (SPEC §7.1), so a launch that sets them still adopts a warm
// server started without them (SPEC §2.9).
const settingsPrefix = "MCP_GATEWAY_"

// CodeDirEnv is the one gateway variable a server gets: with code mode on,
// where the code API is (SPEC §7.1, §12), so that a server's own children
// can find it. The daemon sets it in the base environment it gives the
// supervisor exactly when code mode is on, and Environ keeps it.
const CodeDirEnv = "MCP_GATEWAY_CODE_DIR"

// gatewayOwn reports whether the variable name is the gateway's own: the
// token, or one of its settings (CodeDirEnv among them).
func gatewayOwn(name string) bool {
	return name == TokenEnv || strings.HasPrefix(name, settingsPrefix)
}

// Environ returns the environment for a child: base minus TokenEnv and
// every MCP_GATEWAY_* variable but CodeDirEnv (SPEC §7.1), plus extra
// (which wins, and may itself set an MCP_GATEWAY_* name).
func Environ(base []string, extra map[string]string) []string {
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if gatewayOwn(name) && name != CodeDirEnv {
			continue
		}
		if _, overridden := extra[name]; overridden {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return env
}
