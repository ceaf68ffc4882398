package pulled

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"strings"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// ProbeTimeout bounds how long Reach waits for a connection: within SPEC
// §2.8's 10 s, and far longer than a TCP handshake takes on any network
// that works, however slow.
const ProbeTimeout = 8 * time.Second

// configTimeout bounds `npm config get`, which reads npm's configuration
// (no network).
const configTimeout = 5 * time.Second

// Default registries, used where nothing in the environment names one.
const (
	DefaultNPMRegistry = "https://registry.npmjs.org/"
	DefaultUVIndex     = "https://pypi.org/simple"
)

// UnreachableError says that a registry could not be reached.
type UnreachableError struct {
	Registry string // "the npm registry https://registry.npmjs.org/"
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("%s could not be reached: %v", e.Registry, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Reach reports whether the registry manager m fetches from can be
// reached, as it is configured in env: a TCP connection to it, or to the
// HTTPS proxy that reaches it, within ProbeTimeout. A refused connection,
// an unreachable network or host, a name that does not resolve, or no
// connection before the timeout is an *UnreachableError. A connection
// that opens, however slowly, means the registry is reachable, so a slow
// network never fails a start that npm or uv would complete. The
// registry is npm's own setting (`npm config get registry`, which reads
// npm_config_registry and the .npmrc files; and https-proxy, proxy), or
// uv's (UV_DEFAULT_INDEX, UV_INDEX_URL, PIP_INDEX_URL); the proxy
// variables are the usual HTTPS_PROXY and NO_PROXY.
func Reach(ctx context.Context, m Manager, env []string) error {
	name, reg, proxy := registry(ctx, m, env)
	target := reg
	if proxy != nil {
		name += " (through the proxy " + proxy.Redacted() + ")"
		target = proxy
	}
	dialCtx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(dialCtx, "tcp", hostPort(target))
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("reach %s: %w", name, ctx.Err()) // the start was ended: no verdict
		}
		if dialCtx.Err() != nil {
			err = fmt.Errorf("no connection within %s: %w", ProbeTimeout, err)
		}
		return &UnreachableError{Registry: name, Err: err}
	}
	conn.Close()
	return nil
}

// registry returns how m's registry is named in messages, its URL, and
// the proxy that reaches it (nil: none).
func registry(ctx context.Context, m Manager, env []string) (string, *url.URL, *url.URL) {
	get := lookup(env)
	def, name := DefaultUVIndex, "the Python package index"
	raw := cmp.Or(get("UV_DEFAULT_INDEX"), get("UV_INDEX_URL"), get("PIP_INDEX_URL"))
	var npmProxy string
	if m == NPM {
		cfg := npmConfig(ctx, env)
		def, name = DefaultNPMRegistry, "the npm registry"
		raw, npmProxy = cfg["registry"], cmp.Or(cfg["https-proxy"], cfg["proxy"])
	}
	reg, err := url.Parse(raw)
	if err != nil || reg.Host == "" {
		reg, _ = url.Parse(def)
	}
	name += " " + reg.Redacted()
	if npmProxy != "" {
		if p, err := url.Parse(npmProxy); err == nil && p.Host != "" {
			return name, reg, p
		}
	}
	cfg := httpproxy.Config{
		HTTPProxy:  cmp.Or(get("HTTP_PROXY"), get("http_proxy")),
		HTTPSProxy: cmp.Or(get("HTTPS_PROXY"), get("https_proxy")),
		NoProxy:    cmp.Or(get("NO_PROXY"), get("no_proxy")),
	}
	proxy, err := cfg.ProxyFunc()(reg)
	if err != nil {
		proxy = nil
	}
	return name, reg, proxy
}

// npmConfig asks npm for the settings that decide where it fetches from.
// A value of "null" or "undefined" is left out; if npm cannot say, the
// map is empty and the defaults apply.
func npmConfig(ctx context.Context, env []string) map[string]string {
	ctx, cancel := context.WithTimeout(ctx, configTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "config", "get", "registry", "https-proxy", "proxy")
	cmd.Env = env
	cmd.Dir = "/"
	out, _ := cmd.Output()
	cfg := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if ok && v != "" && v != "null" && v != "undefined" {
			cfg[k] = v
		}
	}
	return cfg
}

// lookup returns a getter of env's variables (the last one wins).
func lookup(env []string) func(string) string {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	return func(k string) string { return vars[k] }
}

// hostPort is u's host and port, the port from the scheme if not given.
func hostPort(u *url.URL) string {
	if port := u.Port(); port != "" {
		return u.Host
	}
	port := "443"
	if u.Scheme == "http" {
		port = "80"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
