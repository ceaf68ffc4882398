package supervisor

import "strings"

// TokenEnv is the variable that carries the gateway token. It is removed
// from every child's environment (SPEC §7.1).
const TokenEnv = "GATEWAY_ACCESS_TOKEN"

// Environ returns the environment for a child: base minus TokenEnv, plus
// extra (which wins).
func Environ(base []string, extra map[string]string) []string {
	env := make([]string, 0, len(base)+len(extra))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if name == TokenEnv {
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
