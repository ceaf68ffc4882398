// Command chaos runs the gateway under mixed load with faults (make chaos)
// or under a steady load without them (make soak), and prints what it
// found; it exits 1 if a check failed. See package chaos.
//
//	go run ./test/chaos/cmd/chaos [-seed N] [-calls N] [-duration D] [-soak] [-gateway BIN]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/mcp-gateway/mcp-gateway/test/chaos"
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	fs := flag.NewFlagSet("chaos", flag.ContinueOnError)
	seed := fs.Uint64("seed", uint64(time.Now().UnixNano()), "random seed of the mix and the faults (printed)")
	calls := fs.Int("calls", 10000, "calls to make (0: until -duration)")
	duration := fs.Duration("duration", 0, "the most the load may last (0: until -calls)")
	clients := fs.Int("clients", 16, "concurrent clients, half legacy sessions, half modern")
	soak := fs.Bool("soak", false, "a steady load without faults, sampling the daemon's resources every -sample")
	rate := fs.Float64("rate", 0, "calls per second over all clients (0: as fast as they go; -soak: 40)")
	every := fs.Duration("sample", 10*time.Second, "how often to sample goroutines, fds and RssAnon")
	bin := fs.String("gateway", "", "the mcp-gateway binary (default: build ./cmd/mcp-gateway)")
	keep := fs.Bool("keep", false, "keep the run's directory (log, catalog) and print its path")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *soak && *rate == 0 {
		*rate = 40
	}
	dir, err := os.MkdirTemp("", "mcp-gateway-chaos-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 1
	}
	if *keep {
		fmt.Println("chaos: run dir", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 1
	}
	if *bin == "" {
		*bin = filepath.Join(dir, "mcp-gateway")
		build := exec.Command("go", "build", "-o", *bin, "./cmd/mcp-gateway")
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "chaos: build: %v\n%s", err, out)
			return 1
		}
	}
	cfg := chaos.Config{Gateway: *bin, NodeModules: filepath.Join(root, "test", "node_modules"), Dir: dir,
		Seed: *seed, Calls: *calls, Duration: *duration, Clients: *clients, Faults: !*soak, Rate: *rate, Out: os.Stdout}
	if *soak {
		cfg.SampleEvery = *every
	} else {
		cfg.SampleEvery = time.Second
	}
	if _, err := chaos.Run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 1
	}
	return 0
}
