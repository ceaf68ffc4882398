package supervisor

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/adapters"
)

// Configured says what Configure did with each server.
type Configured struct {
	Adopted []string // warm servers kept as they run
	Started []string // config servers that start now (new, or replacing a warm one)
	Stopped []string // warm servers stopped: not in the config, or not adoptable
	// Why says, for each warm server not adopted, why: "not in the
	// config", "its launch spec differs", "its environment differs: PATH,
	// HOME" (names only, never values), "it is not running".
	Why map[string]string
}

// Configure gives a warm supervisor (one started before any config, SPEC
// §2.9) the servers of a config, base being the environment the config's
// launcher would give them (its own, without the token):
//
//   - a warm server whose config entry of the same name resolves to an
//     equal launch spec (adapters.LaunchSpec.Equal), whose environment
//     equals Environ(base, spec.Env), and whose run is live, is adopted as
//     it runs: same process, same tools;
//   - every other warm server is stopped, in the background (Shutdown
//     waits for it); one that died before the hand-over is thus started
//     afresh, with no back-off;
//   - the config's other servers are new, and start with StartAll, which
//     finds the adopted ones already running.
//
// The comparison of environments leaves out _, PWD, OLDPWD and SHLVL,
// which describe the shell that ran each command, not the server: a
// template's `warm` and the SDK's launch are run by different shells.
// Nor does it see GATEWAY_ACCESS_TOKEN or any MCP_GATEWAY_*, which
// Environ keeps from every server (but the code dir, CodeDirEnv, which an
// adopted server keeps as warm gave it): a launch that sets its port,
// paths or limits in its environment still adopts (SPEC §2.9).
// Call it once, before the set is used by anything else (the aggregator
// is built on Upstreams after it).
func (s *Supervisor) Configure(servers []adapters.Server, base []string) Configured {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := Configured{Why: map[string]string{}}
	warm := maps.Clone(s.byName)
	s.upstreams, s.byName = nil, map[string]*Upstream{}
	for _, srv := range servers {
		u, ok := warm[srv.Name]
		delete(warm, srv.Name)
		if ok {
			why := u.adoptable(srv.Spec, base)
			if why == "" {
				u.life.adopted(base, srv.Spec) // the config's base and choice (SPEC §2.9, §4.9)
				s.add(u)
				res.Adopted = append(res.Adopted, srv.Name)
				continue
			}
			s.retire(u, why)
			res.Why[srv.Name] = why
			res.Stopped = append(res.Stopped, srv.Name)
		}
		nu := newUpstream(srv.Name, srv.Spec, s.opts)
		nu.life.baseEnv = base
		s.opts.Log.AddSecrets(srv.Spec.Secrets...)
		s.add(nu)
		res.Started = append(res.Started, srv.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(warm)) {
		s.retire(warm[name], "not in the config")
		res.Why[name] = "not in the config"
		res.Stopped = append(res.Stopped, name)
	}
	return res
}

func (s *Supervisor) add(u *Upstream) {
	s.upstreams = append(s.upstreams, u)
	s.byName[u.name] = u
}

// retire stops a warm server the config does not keep, in the
// background; Shutdown waits for it.
func (s *Supervisor) retire(u *Upstream, why string) {
	s.retired.Add(1)
	go func() {
		defer s.retired.Done()
		u.life.retire(context.Background(), "stopped by the gateway when a config was handed to the warm daemon: "+why)
	}()
}

// adoptable says why the server cannot be adopted for spec, started from
// base; "" if it can.
func (u *Upstream) adoptable(spec adapters.LaunchSpec, base []string) string {
	r, cur := u.life.adoption()
	if r == nil {
		return "it is not running"
	}
	select {
	case <-r.conn.Dead():
		return "it is not running"
	default:
	}
	if !cur.Equal(spec) {
		return "its launch spec differs"
	}
	if diff := envDiff(r.env, Environ(base, spec.Env)); len(diff) > 0 {
		return "its environment differs: " + strings.Join(diff, ", ")
	}
	return ""
}

// shellVars describe the shell that ran a command; they, and the
// gateway's own variables (the code dir, which a warm server keeps: SPEC
// §2.9), are left out of the comparison of environments.
var shellVars = map[string]bool{"_": true, "PWD": true, "OLDPWD": true, "SHLVL": true}

// envDiff names the variables that differ between two environments
// ("NAME=value" each): set in one only, or set to other values; sorted.
func envDiff(a, b []string) []string {
	ma, mb := envMap(a), envMap(b)
	var diff []string
	for k, v := range ma {
		if w, ok := mb[k]; !ok || w != v {
			diff = append(diff, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			diff = append(diff, k)
		}
	}
	slices.Sort(diff)
	return diff
}

func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if !shellVars[k] && !gatewayOwn(k) {
			m[k] = v
		}
	}
	return m
}
