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

// gatewayOwn reports whether the variable name is the gateway's own: the
// token, or one of its settings.
func gatewayOwn(name string) bool {
	return name == TokenEnv || strings.HasPrefix(name, settingsPrefix)
}

// Environ returns the environment for a child: base minus TokenEnv and
// every MCP_GATEWAY_* variable (SPEC §7.1), plus extra (which wins, and
// may itself set an MCP_GATEWAY_* name, as code mode's directory does).
func Environ(base []string, extra map[string]string) []string {
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if gatewayOwn(name) {
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
