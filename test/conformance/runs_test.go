package conformance

// The runs: each suite, at a spec version, against a fixture behind the
// gateway (a pairing), on one gateway the pairing's scenarios share. A
// runner (a node process) costs ~1.5 s of CPU to start, more than most
// scenarios take, so a pairing whose scenarios leave nothing behind runs
// them all in one runner (--suite all: one after another, a batch) while
// the pairings run side by side; a pairing with scenarios that leave
// state behind, or need the server to themselves, runs one runner per
// scenario, side by side, bounded by runnerSlots, those on a gateway of
// their own (isolation).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// runnerSlots bounds the runners that run at once, across every pairing:
// a scenario waits more than it computes, so more than the cores.
var runnerSlots = make(chan struct{}, 4)

// pairing is one suite at one spec version against one fixture.
type pairing struct {
	name    string
	cli     string // the runner's entry point
	version string // --spec-version ("": the runner's default)
	fixture fixture
	// scenarios picks the scenarios to run from the runner's list.
	scenarios func(listed []listedScenario) []string
	// batch: every scenario in one runner, one after another (--suite
	// all); the runner must run exactly the scenarios picked.
	batch bool
	// isolate says why a scenario needs a gateway of its own ("": it
	// shares); not with batch.
	isolate func(scenario string) string
	// skip names scenarios that cannot apply, with the reason.
	skip map[string]string
	// expected lists, per scenario, the checks that fail by design
	// (expected_test.go), each with its reason.
	expected map[string]map[string]string
	// strict: a warning of these scenarios counts as a failure (they have
	// only SHOULD checks, which the fixture meets).
	strict map[string]bool
	// direct is the endpoint of a server to test directly, with no
	// gateway (the fixture's own baseline); "" for the gateway.
	direct func(t *testing.T) string
	// before checks the shared gateway's lists before any scenario runs.
	before func(t *testing.T, endpoint string)
}

// outcome is what running one scenario produced.
type outcome struct {
	checks  []check
	raw     string // checks.json
	output  string // the runner's
	exit    int    // the runner's exit status; -1 in a batch (one for all)
	elapsed time.Duration
	err     error // the scenario could not be run (a test error)
	gwDump  string
}

type check struct {
	ID           string          `json:"id"`
	Status       string          `json:"status"`
	ErrorMessage string          `json:"errorMessage"`
	Details      json.RawMessage `json:"details"`
}

// run runs p's scenarios and judges each as a subtest.
func (p pairing) run(t *testing.T) {
	need(t)
	listed, err := listScenarios(p.cli)
	if err != nil {
		t.Fatal(err)
	}
	scenarios := p.scenarios(listed)
	shared := ""
	if p.direct != nil {
		shared = p.direct(t)
	} else {
		g, err := startGateway(t.TempDir(), p.fixture)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := g.stop(); err != nil {
				t.Errorf("the shared gateway: %v\n%s", err, g.dump())
			}
		})
		shared = g.url
		defer func() {
			if t.Failed() {
				t.Logf("the shared gateway:\n%s", g.dump())
			}
		}()
	}
	if p.before != nil {
		p.before(t, shared)
	}
	outRoot := t.TempDir()
	var results []outcome
	if p.batch {
		results = p.runBatch(t, scenarios, shared, outRoot)
	} else {
		results = make([]outcome, len(scenarios))
		var wg sync.WaitGroup
		for i, sc := range scenarios {
			if _, skip := p.skip[sc]; skip {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = p.runOne(sc, shared, filepath.Join(outRoot, sc))
			}()
		}
		wg.Wait()
	}
	for i, sc := range scenarios {
		t.Run(sc, func(t *testing.T) {
			if reason, skip := p.skip[sc]; skip {
				t.Skip("not applicable: " + reason)
			}
			p.judge(t, sc, results[i])
		})
	}
	for sc := range p.expected {
		if !slices.Contains(scenarios, sc) {
			t.Errorf("the expected failures name %q, which is not a scenario this run runs", sc)
		}
	}
}

// runOne runs one scenario, on the shared endpoint or, isolated, on a
// gateway of its own, once a runner slot is free.
func (p pairing) runOne(scenario, shared, outDir string) outcome {
	runnerSlots <- struct{}{}
	defer func() { <-runnerSlots }()
	endpoint := shared
	var g *gatewayProc
	if p.isolate != nil && p.isolate(scenario) != "" && p.direct == nil {
		dir, err := os.MkdirTemp("", "conformance-"+scenario+"-")
		if err != nil {
			return outcome{err: err}
		}
		defer os.RemoveAll(dir)
		if g, err = startGateway(dir, p.fixture); err != nil {
			return outcome{err: fmt.Errorf("a gateway of its own: %w", err)}
		}
		endpoint = g.url
	}
	o := p.runRunner(scenario, endpoint, outDir)
	if g != nil {
		if o.err == nil || len(o.checks) > 0 {
			o.gwDump = g.dump()
		}
		if err := g.stop(); err != nil {
			o.err = errors.Join(o.err, fmt.Errorf("its gateway: %w", err))
		}
	}
	return o
}

// runRunner runs the suite's runner on one scenario.
func (p pairing) runRunner(scenario, endpoint, outDir string) outcome {
	args := []string{"--scenario", scenario}
	if p.version != "" {
		// --force: the tasks extension's and the pending scenarios are not
		// "applicable" to a dated revision otherwise.
		args = append(args, "--spec-version", p.version, "--force")
	}
	o := runner(p.cli, endpoint, outDir, scenarioTimeout, args...)
	if o.err != nil {
		o.err = fmt.Errorf("scenario %s: %w", scenario, o.err)
		return o
	}
	o.checks, o.raw, o.err = readChecks(outDir)
	if o.err == nil && len(o.checks) == 0 {
		o.err = fmt.Errorf("scenario %s produced no checks (exit %d)\n--- runner output ---\n%s", scenario, o.exit, o.output)
	}
	return o
}

// runner runs cli's server command on endpoint, its results to outDir,
// within limit; exit status 1 (a check failed) is no error.
func runner(cli, endpoint, outDir string, limit time.Duration, args ...string) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	args = append([]string{"--import", env.shim, cli, "server", "--url", endpoint, "-o", outDir}, args...)
	cmd := exec.CommandContext(ctx, env.node, args...)
	cmd.Dir = env.root
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	o := outcome{output: ansiEscape.ReplaceAllString(out.String(), ""), elapsed: time.Since(start).Round(time.Millisecond)}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case ctx.Err() != nil:
		o.err = fmt.Errorf("the runner did not finish within %s\n--- runner output ---\n%s", limit, o.output)
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		o.exit = 1
	default:
		o.err = fmt.Errorf("conformance runner: %w\n--- runner output ---\n%s", err, o.output)
	}
	return o
}

// batchTimeout bounds a batch (a scenario has its own 30 s in
// 0.2.0-alpha.12's runner, none in 0.1.16's).
const batchTimeout = 5 * time.Minute

// resultDir is the directory a runner saves a scenario's checks.json in.
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$`)

// runBatch runs the pairing's suite in one runner on endpoint and splits
// what it produced per scenario, in the order of scenarios. Every
// scenario picked must have run, and no other.
func (p pairing) runBatch(t *testing.T, scenarios []string, endpoint, outDir string) []outcome {
	for sc := range p.skip {
		t.Fatalf("a batch runs every scenario: it cannot skip %s", sc)
	}
	if p.isolate != nil {
		t.Fatal("a batch runs every scenario on the shared gateway: it cannot isolate one")
	}
	runnerSlots <- struct{}{}
	args := []string{"--suite", "all"}
	if p.version != "" {
		args = append(args, "--spec-version", p.version)
	}
	b := runner(p.cli, endpoint, outDir, batchTimeout, args...)
	<-runnerSlots
	if b.err != nil {
		t.Fatalf("the batch: %v", b.err)
	}
	entries, err := os.ReadDir(outDir)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]outcome{}
	failed := 0
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			t.Fatalf("the batch left %s, which names no scenario", e.Name())
		}
		sc := m[1]
		if !slices.Contains(scenarios, sc) {
			t.Errorf("the batch ran %s, which the pairing does not pick", sc)
			continue
		}
		if _, dup := byName[sc]; dup {
			t.Fatalf("the batch ran %s twice", sc)
		}
		o := outcome{output: batchSection(b.output, sc), exit: -1, elapsed: -1}
		o.checks, o.raw, o.err = readChecks(filepath.Join(outDir, e.Name()))
		if o.err == nil && len(o.checks) == 0 {
			o.err = fmt.Errorf("scenario %s produced no checks\n--- runner output ---\n%s", sc, b.output)
		}
		for _, c := range o.checks {
			if c.Status == "FAILURE" {
				failed++
			}
		}
		byName[sc] = o
	}
	if (b.exit == 0) != (failed == 0) {
		t.Errorf("the batch runner's exit status (%d) disagrees with its checks.json files (%d failed checks)", b.exit, failed)
	}
	out := make([]outcome, len(scenarios))
	for i, sc := range scenarios {
		o, ok := byName[sc]
		if !ok {
			o.err = fmt.Errorf("the batch did not run %s\n--- runner output ---\n%s", sc, b.output)
		}
		out[i] = o
	}
	t.Logf("one runner ran the %d scenarios in %s", len(byName), b.elapsed)
	return out
}

// batchSection is the part of a batch's output about scenario sc: from
// its "Running scenario" line to the next one, or all of it.
func batchSection(output, sc string) string {
	const marker = "=== Running scenario: "
	i := strings.Index(output, marker+sc+" ===")
	if i < 0 {
		return output
	}
	rest := output[i+len(marker):]
	if j := strings.Index(rest, marker); j >= 0 {
		return output[i : i+len(marker)+j]
	}
	return output[i:]
}

var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// readChecks reads the checks.json the runner wrote somewhere under dir.
func readChecks(dir string) ([]check, string, error) {
	var found []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "checks.json" {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 1 {
		return nil, "", fmt.Errorf("want one checks.json under %s, found %v", dir, found)
	}
	raw, err := os.ReadFile(found[0])
	if err != nil {
		return nil, "", err
	}
	var checks []check
	if err := json.Unmarshal(raw, &checks); err != nil {
		return nil, "", fmt.Errorf("%s: %w", found[0], err)
	}
	return checks, string(raw), nil
}

// judge fails the subtest on every failed check the pairing does not
// expect, on an expected one that passed, and on the warnings of strict
// scenarios.
func (p pairing) judge(t *testing.T, scenario string, o outcome) {
	if o.err != nil {
		t.Fatal(o.err)
	}
	expected := p.expected[scenario]
	var failures, excused, warnings []string
	failed := map[string]bool{}
	for _, c := range o.checks {
		switch c.Status {
		case "FAILURE":
			failed[c.ID] = true
			if reason, ok := expected[c.ID]; ok {
				excused = append(excused, fmt.Sprintf("%s (%s): %s", c.ID, reason, c.ErrorMessage))
				continue
			}
			failures = append(failures, c.ID+": "+c.ErrorMessage)
		case "WARNING":
			warnings = append(warnings, c.ID+": "+c.ErrorMessage)
		}
	}
	for id, reason := range expected {
		if !failed[id] {
			t.Errorf("check %s passed but is listed as an expected failure (%s): remove it from the list", id, reason)
		}
	}
	if p.strict[scenario] {
		for _, w := range warnings {
			failures = append(failures, "(a SHOULD the fixture meets) "+w)
		}
	}
	if o.exit >= 0 && (o.exit == 0) != (len(failed) == 0) {
		t.Errorf("the runner's exit status (%d) disagrees with checks.json (%d failed checks)", o.exit, len(failed))
	}
	for _, w := range warnings {
		t.Logf("warning: %s", w)
	}
	for _, x := range excused {
		t.Logf("expected failure: %s", x)
	}
	if len(failures) > 0 {
		t.Errorf("scenario %s failed%s:\n  %s\n--- runner output ---\n%s\n--- checks.json ---\n%s\n%s",
			scenario, took(o.elapsed), strings.Join(failures, "\n  "), o.output, o.raw, o.gwDump)
		return
	}
	t.Logf("pass (%d checks%s)", len(o.checks), took(o.elapsed))
}

// took says how long a scenario took, if it ran alone (not in a batch).
func took(d time.Duration) string {
	if d < 0 {
		return ""
	}
	return ", " + d.String()
}

// listedScenario is one server scenario a runner lists, with the spec
// versions (or "extension") it lists it under.
type listedScenario struct {
	name     string
	versions []string
}

var (
	listedMu    sync.Mutex
	listedCache = map[string][]listedScenario{}
	listedLine  = regexp.MustCompile(`^\s+- (\S+) \[([^\]]*)\]$`)
)

// listScenarios runs the runner's list command and reads its server
// scenarios (once per runner).
func listScenarios(cli string) ([]listedScenario, error) {
	listedMu.Lock()
	defer listedMu.Unlock()
	if l, ok := listedCache[cli]; ok {
		return l, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, env.node, "--import", env.shim, cli, "list").Output()
	if err != nil {
		return nil, fmt.Errorf("%s list: %w", cli, err)
	}
	var l []listedScenario
	inServer := false
	for _, line := range strings.Split(ansiEscape.ReplaceAllString(string(out), ""), "\n") {
		switch {
		case strings.HasPrefix(line, "Server scenarios"):
			inServer = true
		case strings.TrimSpace(line) == "" || !strings.HasPrefix(line, " "):
			inServer = false
		case inServer:
			if m := listedLine.FindStringSubmatch(line); m != nil {
				l = append(l, listedScenario{name: m[1], versions: strings.Split(m[2], ",")})
			}
		}
	}
	if len(l) == 0 {
		return nil, fmt.Errorf("%s list: no server scenarios in %q", cli, out)
	}
	listedCache[cli] = l
	return l, nil
}

// every picks every listed scenario.
func every(listed []listedScenario) []string { return taggedWith("")(listed) }

// taggedWith picks the scenarios listed under tag ("": all).
func taggedWith(tag string) func([]listedScenario) []string {
	return func(listed []listedScenario) []string {
		var out []string
		for _, s := range listed {
			if tag == "" || slices.Contains(s.versions, tag) {
				out = append(out, s.name)
			}
		}
		return out
	}
}
