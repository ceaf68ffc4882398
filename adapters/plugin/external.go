package plugin

// The gateway's side of one loaded adapter: an adapters.Adapter (SPEC
// §9.1) that asks the adapter process to resolve its keys and checks what
// it answers before the supervisor runs it.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/internal/envname"
)

// external is one adapter as the gateway's adapters.Adapter.
type external struct{ p *proc }

var _ adapters.Adapter = (*external)(nil)

// Kind is "adapter:<file>", as in the log.
func (a *external) Kind() string { return "adapter:" + a.p.name }

// Claims reports whether key starts with one of the adapter's prefixes.
func (a *external) Claims(key string, _ adapters.Entry) bool {
	return slices.ContainsFunc(a.p.prefixes, func(pre string) bool { return strings.HasPrefix(key, pre) })
}

// Help describes the keys for the unknown-server message: the adapter's
// help if it names each prefix, else the prefixes; then the file.
func (a *external) Help() string {
	form := a.p.help
	if form == "" || slices.ContainsFunc(a.p.prefixes, func(pre string) bool { return !strings.Contains(form, pre) }) {
		quoted := make([]string, len(a.p.prefixes))
		for i, pre := range a.p.prefixes {
			quoted[i] = fmt.Sprintf("%q", pre+"…")
		}
		s := strings.Join(quoted, " or ")
		if form != "" {
			s += ": " + form
		}
		form = s
	}
	return form + " (adapter " + a.p.name + ")"
}

// Resolve asks the adapter. A validation error is the adapter's own words;
// any other failure names the adapter file.
func (a *external) Resolve(key string, e adapters.Entry) (adapters.LaunchSpec, []string, error) {
	p := a.p
	if p.stopped.Load() {
		return adapters.LaunchSpec{}, nil, fmt.Errorf("adapter %s: resolve: the adapter was stopped before the entry was resolved", p.path)
	}
	ctx, cancel := context.WithTimeout(p.ctx, CallTimeout)
	defer cancel()
	resp, err := p.rpc.resolve(ctx, key, encodeEntry(e))
	if err != nil {
		return adapters.LaunchSpec{}, nil, fmt.Errorf("adapter %s: resolve: %w", p.path, p.callError(ctx, err))
	}
	mask := masker(e.Envs)
	var warns []string
	for _, w := range resp.Warnings {
		warns = append(warns, mask(w))
	}
	if len(resp.Errors) > 0 {
		errs := make([]error, len(resp.Errors))
		for i, msg := range resp.Errors {
			errs[i] = errors.New(mask(msg))
		}
		return adapters.LaunchSpec{}, warns, errors.Join(errs...)
	}
	spec, err := checkSpec(resp)
	if err != nil {
		return adapters.LaunchSpec{}, warns, fmt.Errorf("adapter %s: resolve: invalid launch spec: %w", p.path, err)
	}
	for k, v := range e.Envs {
		if spec.Env == nil {
			spec.Env = map[string]string{}
		}
		spec.Env[k] = v
	}
	return spec, warns, nil
}

// checkSpec refuses a launch spec the supervisor could not run.
func checkSpec(r resolveResponse) (adapters.LaunchSpec, error) {
	noNUL := func(what, s string) error {
		if strings.ContainsRune(s, 0) {
			return fmt.Errorf("%s has a NUL byte", what)
		}
		return nil
	}
	if len(r.Argv) == 0 || r.Argv[0] == "" {
		return adapters.LaunchSpec{}, errors.New("argv is empty and no error was given")
	}
	var errs []error
	for _, s := range r.Argv {
		errs = append(errs, noNUL("argv", s))
	}
	for k, v := range r.Env {
		if err := envname.Check(k); err != nil {
			errs = append(errs, fmt.Errorf("env: %w", err))
		}
		errs = append(errs, noNUL("env "+k, v))
	}
	if r.Dir != "" && !filepath.IsAbs(r.Dir) {
		errs = append(errs, fmt.Errorf("dir %q is not absolute", r.Dir))
	}
	errs = append(errs, noNUL("dir", r.Dir))
	for i, step := range r.Install {
		if len(step) == 0 || step[0] == "" {
			errs = append(errs, fmt.Errorf("install step %d is empty", i+1))
		}
		for _, s := range step {
			errs = append(errs, noNUL(fmt.Sprintf("install step %d", i+1), s))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return adapters.LaunchSpec{}, err
	}
	return adapters.LaunchSpec{Argv: r.Argv, Env: r.Env, Dir: r.Dir, Install: r.Install}, nil
}

// masker hides the entry's envs values (SPEC §7.5) in what the adapter
// says; values under 4 bytes are left, as the log does.
func masker(envs map[string]string) func(string) string {
	var pairs []string
	for _, v := range envs {
		if len(v) >= 4 {
			pairs = append(pairs, v, "[REDACTED]")
		}
	}
	if len(pairs) == 0 {
		return func(s string) string { return s }
	}
	return strings.NewReplacer(pairs...).Replace
}
