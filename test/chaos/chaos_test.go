package chaos

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestChaosShort is `make chaos` bounded for `make test` (within a
// minute on a loaded machine): 16 clients of both eras for at most 25 s
// of load (1,200 calls) with every kind of fault, and every check of the
// full run: no call past its deadline, every error naming its server,
// nothing left after the stop, resources back (within 15 s here: inside
// make test, every other package's tests share the machine, and the
// budget gives memory back after 2, 4 and 8 s; make chaos holds to 5 s), the log
// holding every server's start. CHAOS_SEED sets the seed (the run prints
// it; a failure says it again).
func TestChaosShort(t *testing.T) {
	nm := needNPM(t)
	if testing.Short() {
		t.Skip("-short: the chaos run takes about a minute")
	}
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("CHAOS_SEED"), 10, 64); err == nil {
		seed = s
	}
	var out strings.Builder
	rep, err := Run(Config{Gateway: gatewayBin, NodeModules: nm, Dir: t.TempDir(), Seed: seed,
		Calls: 1200, Duration: 25 * time.Second, Clients: 16, Faults: true, SampleEvery: time.Second, SettleWithin: 15 * time.Second, Out: &out})
	if err != nil {
		t.Fatalf("seed %d (CHAOS_SEED=%d to run it again): %v\n%s", seed, seed, err, out.String())
	}
	counts := rep.Counts()
	if counts[outOK] < len(rep.Outcomes)/2 {
		t.Errorf("seed %d: %d of %d calls ok, want most of them:\n%s", seed, counts[outOK], len(rep.Outcomes), out.String())
	}
	t.Logf("seed %d\n%s", seed, lastLines(out.String(), 45))
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
