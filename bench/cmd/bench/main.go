// Command bench runs the gateway benchmark (issue 8), prints the table and
// writes the figures as JSON. `make bench` runs it at full size.
//
//	go run ./bench/cmd/bench [-short] [-reps 3] [-out bench/results/latest.json]
//	go run ./bench/cmd/bench -gateway /tmp/mcp-gateway-old   # A/B: that binary beside the tree's build
//	go run ./bench/cmd/bench -markdown bench/results/latest.json   # the table for bench/README.md
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcp-gateway/mcp-gateway/bench"
)

func main() {
	short := flag.Bool("short", false, "small sizes (as `go test ./bench/` runs)")
	reps := flag.Int("reps", 0, "repetitions (default 3; 1 with -short)")
	calls := flag.Int("calls", 0, "sequential calls per measurement (default 2000)")
	out := flag.String("out", "bench/results/latest.json", "JSON output file (empty: none)")
	noEverything := flag.Bool("no-everything", false, "skip the server-everything figures")
	baseline := flag.String("gateway", "", "A/B: measure this mcp-gateway binary (an older build) beside the tree's build, in the same run, as the baseline side")
	noPull := flag.Bool("no-pull", false, "skip the figures of pulled and warm npm servers (they pull from the npm registry)")
	only := flag.String("only", "", "comma-separated phases to run: seq, handler, telemetry, everything, tput, ready, pulled, warm, mem, big, http, search, code (default all)")
	markdown := flag.String("markdown", "", "print this results JSON file as a Markdown table and exit (runs nothing)")
	var gwEnv, baseEnv []string
	flag.Func("gateway-env", "KEY=VALUE added to the environment of the tree's build, and of each -variant (repeatable; for experiments such as GOGC=200)", envFlag(&gwEnv))
	flag.Func("baseline-env", "KEY=VALUE added to the environment of the -gateway binary only (repeatable)", envFlag(&baseEnv))
	var variants []bench.Variant
	flag.Func("variant", "A/B: one more side, the tree's build with more environment: name:KEY=VALUE[,KEY=VALUE…] "+
		"(repeatable; a name given again adds to its environment); {otlp} in a value is the URL of an OTLP/HTTP receiver started for it",
		func(s string) error {
			v, err := bench.ParseVariant(s)
			if err != nil {
				return err
			}
			for i := range variants {
				if variants[i].Name == v.Name {
					variants[i].Env = append(variants[i].Env, v.Env...)
					return nil
				}
			}
			variants = append(variants, v)
			return nil
		})
	flag.Parse()
	if *markdown != "" {
		b, err := os.ReadFile(*markdown)
		if err != nil {
			fail(err)
		}
		var res bench.Results
		if err := json.Unmarshal(b, &res); err != nil {
			fail(fmt.Errorf("%s: %w", *markdown, err))
		}
		res.WriteMarkdown(os.Stdout)
		return
	}

	cfg := bench.FullConfig()
	if *short {
		cfg = bench.ShortConfig()
	}
	if *reps > 0 {
		cfg.Reps = *reps
	}
	if *calls > 0 {
		cfg.Calls = *calls
	}
	cfg.Progress = os.Stderr
	cfg.GatewayEnv = gwEnv
	cfg.Baseline, cfg.BaselineEnv, cfg.Variants = *baseline, baseEnv, variants
	if *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tmp, err := os.MkdirTemp("", "mcp-gateway-bench-")
	if err != nil {
		fail(err)
	}
	tmpDir = tmp
	defer os.RemoveAll(tmp)
	note, err := bench.Prepare(ctx, &cfg, tmp)
	if err != nil {
		fail(err)
	}
	if note != "" {
		fmt.Fprintln(os.Stderr, "bench:", note)
	}
	if *noEverything {
		cfg.Everything = nil
	}
	if *noPull {
		cfg.Pulled = false
	}
	res, err := bench.Run(ctx, cfg)
	if err != nil {
		fail(err)
	}
	res.WriteTable(os.Stdout)
	if *out == "" {
		return
	}
	var buf bytes.Buffer
	if err := res.WriteJSON(&buf); err != nil {
		fail(err)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fail(err)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fail(err)
	}
	fmt.Println("wrote", *out)
}

// envFlag appends a KEY=VALUE flag's values to env.
func envFlag(env *[]string) func(string) error {
	return func(v string) error {
		if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
			return fmt.Errorf("want KEY=VALUE")
		}
		*env = append(*env, v)
		return nil
	}
}

var tmpDir string

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
	os.Exit(1)
}
