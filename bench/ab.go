package bench

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
)

// An A/B run measures more than one gateway side, in the same run: the
// tree's build ("gateway", with Config.GatewayEnv), an older build
// (Config.Baseline: "baseline", with Config.BaselineEnv) and the tree's
// build with more environment (Config.Variants). A figure that measures
// the gateway binary runs every side (sides, startGateways) and
// interleaves them the way the sequential figure interleaves eras, so
// that the load of the shared machine hits each alike. Each side's values
// are recorded under its name (runner.add); results.go reports a twin row
// of each figure per side, and verdicts.go compares the sides.

// The names of the two gateway sides that are not variants.
const (
	sideGateway  = "gateway"  // the tree's build
	sideBaseline = "baseline" // Config.Baseline
)

// otlpPlaceholder, in a side's environment, is replaced by the URL of an
// OTLP/HTTP receiver in this process started for that side (otlp.go).
const otlpPlaceholder = "{otlp}"

// Variant is a side of the tree's build with more environment: Env is
// added after Config.GatewayEnv.
type Variant struct {
	Name string   `json:"name"`
	Env  []string `json:"env"`
}

var variantName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// ParseVariant parses "name:KEY=VALUE[,KEY=VALUE…]" (the -variant flag).
// The name is lowercase letters, digits, '-' and '_', and none of direct,
// floor, gateway, baseline.
func ParseVariant(s string) (Variant, error) {
	name, env, ok := strings.Cut(s, ":")
	if !ok || !validVariantName(name) {
		return Variant{}, fmt.Errorf("parse variant %q: want name:KEY=VALUE[,KEY=VALUE…], name in [a-z0-9_-] and none of direct, floor, gateway, baseline", s)
	}
	v := Variant{Name: name}
	for _, kv := range strings.Split(env, ",") {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return Variant{}, fmt.Errorf("parse variant %q: %q is not KEY=VALUE", s, kv)
		}
		v.Env = append(v.Env, kv)
	}
	return v, nil
}

func validVariantName(name string) bool {
	return variantName.MatchString(name) && !slices.Contains([]string{"direct", "floor", sideGateway, sideBaseline}, name)
}

// gatewaySide is one gateway a figure measures: the name its values are
// recorded under, its binary, and what is added to its environment.
type gatewaySide struct {
	name string
	bin  string
	env  []string
}

// gatewaySides are the run's gateway sides, the tree's build first, with
// their environment as configured (the placeholder not yet replaced).
func (cfg Config) gatewaySides() []gatewaySide {
	sides := []gatewaySide{{sideGateway, cfg.Bin.Gateway, cfg.GatewayEnv}}
	if cfg.Baseline != "" {
		sides = append(sides, gatewaySide{sideBaseline, cfg.Baseline, cfg.BaselineEnv})
	}
	for _, v := range cfg.Variants {
		sides = append(sides, gatewaySide{v.Name, cfg.Bin.Gateway, slices.Concat(cfg.GatewayEnv, v.Env)})
	}
	return sides
}

// sides are the gateway sides as a figure starts them: their environment
// with each receiver's URL in place of the placeholder, and their order
// rotated by repetition, so that a figure that measures them one after
// the other does not always measure the same one first.
func (r *runner) sides() []gatewaySide {
	sides := r.cfg.gatewaySides()
	for i, s := range sides {
		if rc := r.otlp[s.name]; rc != nil {
			env := make([]string, len(s.env))
			for j, kv := range s.env {
				env[j] = strings.ReplaceAll(kv, otlpPlaceholder, rc.url())
			}
			sides[i].env = env
		}
	}
	k := r.rep % len(sides)
	return slices.Concat(sides[k:], sides[:k])
}

// treeSide is the side of the tree's build.
func (r *runner) treeSide() gatewaySide {
	sides := r.sides()
	return sides[slices.IndexFunc(sides, func(s gatewaySide) bool { return s.name == sideGateway })]
}

// extraSides names the gateway sides other than the tree's build, in the
// order their twin rows follow a figure's row.
func (cfg Config) extraSides() []string {
	var names []string
	for _, s := range cfg.gatewaySides()[1:] {
		names = append(names, s.name)
	}
	return names
}

// startGateways launches every side (sides) with servers, name →
// runCmd. If one fails, it stops those it started.
func (r *runner) startGateways(ctx context.Context, servers map[string]string) ([]*endpoint[*Gateway], error) {
	var gws []*endpoint[*Gateway]
	for _, s := range r.sides() {
		gw, err := r.startGatewayAs(ctx, s, servers)
		if err != nil {
			closeAll(gws)
			return nil, fmt.Errorf("start the %s side (%s): %w", s.name, s.bin, err)
		}
		gws = append(gws, gw)
	}
	return gws, nil
}

// prepareSides checks Config.Baseline and the variants' names, and starts a receiver for each side
// whose environment names otlpPlaceholder; closeReceivers stops them.
func (r *runner) prepareSides(ctx context.Context) error {
	seen := map[string]bool{}
	for _, v := range r.cfg.Variants {
		if !validVariantName(v.Name) || seen[v.Name] {
			return fmt.Errorf("variant %q: a name in [a-z0-9_-], none of direct, floor, gateway, baseline, and each once", v.Name)
		}
		seen[v.Name] = true
	}
	if r.cfg.Baseline != "" {
		v, err := checkBaseline(ctx, r.cfg.Baseline)
		if err != nil {
			return err
		}
		r.baselineVersion = v
	}
	for _, s := range r.cfg.gatewaySides() {
		if slices.ContainsFunc(s.env, func(kv string) bool { return strings.Contains(kv, otlpPlaceholder) }) {
			r.otlp[s.name] = startOTLPReceiver()
		}
	}
	return nil
}

func (r *runner) closeReceivers() {
	for _, rc := range r.otlp {
		rc.close()
	}
}

// checkBaseline fails unless bin is a program that runs, and returns what
// `bin version` prints.
func checkBaseline(ctx context.Context, bin string) (string, error) {
	if _, err := exec.LookPath(bin); err != nil {
		return "", fmt.Errorf("baseline gateway: %w", err)
	}
	out, err := exec.CommandContext(ctx, bin, "version").Output()
	if err != nil {
		return "", fmt.Errorf("baseline gateway: %s version: %w", bin, err)
	}
	return strings.TrimSpace(string(out)), nil
}
