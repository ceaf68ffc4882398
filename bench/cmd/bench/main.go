// Command bench runs the gateway benchmark (issue 8), prints the table and
// writes the figures as JSON. `make bench` runs it at full size.
//
//	go run ./bench/cmd/bench [-short] [-reps 3] [-out bench/results/latest.json]
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
	gatewayBin := flag.String("gateway", "", "use this mcp-gateway binary instead of building ./cmd/mcp-gateway (A/B experiments)")
	noPull := flag.Bool("no-pull", false, "skip the figures of pulled and warm npm servers (they pull from the npm registry)")
	only := flag.String("only", "", "comma-separated phases to run: seq, handler, everything, tput, ready, pulled, warm, mem, big, http (default all)")
	markdown := flag.String("markdown", "", "print this results JSON file as a Markdown table and exit (runs nothing)")
	var gwEnv []string
	flag.Func("gateway-env", "KEY=VALUE added to the gateway's environment (repeatable; for experiments such as GOGC=200)", func(v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("want KEY=VALUE")
		}
		gwEnv = append(gwEnv, v)
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
	if *gatewayBin != "" {
		cfg.Bin.Gateway = *gatewayBin
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

var tmpDir string

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	if tmpDir != "" {
		os.RemoveAll(tmpDir)
	}
	os.Exit(1)
}
