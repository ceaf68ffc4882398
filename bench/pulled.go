package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcp-gateway/mcp-gateway/catalog"
	"github.com/mcp-gateway/mcp-gateway/catalog/pulled"
)

// pulledNames are the npm servers of the pulled and warm figures
// (readypulled.go, readywarm.go): the catalog's, as a template pulls them.
var pulledNames = []string{"memory", "sequentialthinking", "filesystem"}

// npmServers is the set-up those figures share, made once per run: the
// three servers pulled with `mcp-gateway pull` into a servers dir of the
// run's own. The pull needs the npm registry, as `make npm` does.
type npmServers struct {
	once sync.Once
	set  *pulledSet
	err  error
}

// pulledSet is the three servers, pulled.
type pulledSet struct {
	servers string // the servers dir pull installed them into
	// config names the three (filesystem on a directory of the run's);
	// warmArgs are `mcp-gateway warm`'s for the same three.
	config   string
	warmArgs []string
	// direct starts each install with node: its executable, and
	// filesystem's directory.
	direct [][]string
}

// pullServers pulls the three servers, the first time it is called.
func (r *runner) pullServers(ctx context.Context) (*pulledSet, error) {
	r.npm.once.Do(func() {
		start := time.Now()
		r.npm.set, r.npm.err = pullThree(ctx, r.cfg)
		r.logf("pulled %v in %v", pulledNames, time.Since(start).Round(time.Millisecond))
	})
	return r.npm.set, r.npm.err
}

func pullThree(ctx context.Context, cfg Config) (*pulledSet, error) {
	dir := filepath.Join(cfg.TempDir, "pulled")
	servers, data := filepath.Join(dir, "servers"), filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}
	args := append(append([]string{"pull"}, pulledNames...), "--servers-dir", servers, "--catalog-file", filepath.Join(dir, "none.json"))
	cmd := exec.CommandContext(ctx, cfg.Bin.Gateway, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("mcp-gateway pull (it needs the npm registry): %v\n%s", err, out)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, err
	}
	fs, _ := json.Marshal(map[string]any{"filesystem": map[string]any{"paths": []string{data}}})
	p := &pulledSet{servers: servers, config: fmt.Sprintf(`{"memory": {}, "sequentialthinking": {}, "filesystem": {"paths": [%q]}}`, data),
		warmArgs: []string{"memory", "sequentialthinking", "--config", string(fs)}}
	store := pulled.Store{Dir: servers}
	for _, name := range pulledNames {
		e, _ := catalog.Builtin().Lookup(name)
		run, _ := pulled.Parse(e.FixedArgv())
		got, ok := store.Lookup(run)
		if !ok {
			return nil, fmt.Errorf("pull left no executable for %s in %s", name, servers)
		}
		argv := []string{node, got.Executable}
		if name == "filesystem" {
			argv = append(argv, data)
		}
		p.direct = append(p.direct, argv)
	}
	return p, nil
}

// readyDirectArgv starts each argv (after prefix) in parallel, and
// returns the slowest one's time from spawn to its tools/list answered:
// the direct counterpart of a gateway's ready, which includes it.
func readyDirectArgv(ctx context.Context, argvs [][]string, prefix []string) (time.Duration, error) {
	times := make([]time.Duration, len(argvs))
	errs := make([]error, len(argvs))
	var wg sync.WaitGroup
	for i, argv := range argvs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := StartStdio(append(append([]string{}, prefix...), argv...))
			if err != nil {
				errs[i] = err
				return
			}
			defer c.Close()
			_, errs[i] = c.Initialize(ctx) // returns once tools/list is answered
			times[i] = time.Since(c.Started())
		}()
	}
	wg.Wait()
	slowest := time.Duration(0)
	for i := range argvs {
		if errs[i] != nil {
			return 0, fmt.Errorf("%s: %w", argvs[i][1], errs[i])
		}
		slowest = max(slowest, times[i])
	}
	return slowest, nil
}
