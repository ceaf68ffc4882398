package supervisor

// The launcher of a server's runs, and what the runs of either transport
// share: the start's result, its failed steps, the grace of an exit and
// the check of a program. Its methods are in start.go (spawn and
// handshake of a stdio run, and the start both kinds take), httprun.go
// (an HTTP run) and modern.go (a modern handshake).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// launcher starts the runs of one server, one at a time as its
// lifecycle asks (runStarter), and owns each run's end: a stdio run's
// reader goroutine (serveRun, below) or an HTTP run's serveHTTPRun
// (httprun.go), counted in runs. A run is spawned, its handshake made in
// the server's era (legacy below, modern in modern.go), and its lists and
// subscriptions are the surface's (runSurface). When a run ends it tells
// ends, the lifecycle, which records it.
type launcher struct {
	name string
	opts *Options
	ends runEnds
	surf runSurface
	runs sync.WaitGroup // the owner of each run's end, serveRun or serveHTTPRun
}

// runEnds records the end of a run (the lifecycle's recordEnd): it
// reports whether the end is news to log.
type runEnds interface {
	recordEnd(r *run, status string, why error) bool
}

// runSurface is what a run needs of the server's surface (lists.go,
// subscribe.go): its lists at the handshake, the gateway's subscriptions
// and log level restored before it serves, and a re-list when the server
// says a list changed.
type runSurface interface {
	listKinds(ctx context.Context, r *run, want List, lists *Lists) error
	restore(ctx context.Context, r *run) error
	relist(r *run, kinds List)
}

// started is a run just started, with the lists its handshake read.
type started struct {
	run   *run
	lists Lists
}

// stepError is a step of a run's start that failed (initialize, a list,
// a subscription): the step, and why.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// exitGrace is how long a server that closed its stdout may take to exit
// by itself before its group is killed: without stdout the run is
// unusable, but its own exit status says more than "killed".
const exitGrace = 500 * time.Millisecond

// isDir says whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// findProgram checks that the server's program exists before anything is
// spawned, so that a missing uvx or npx reads as that, not as a crash.
// A PATH in the server's own envs is left to the spawn to use.
func findProgram(name string, env map[string]string) error {
	if _, ownPath := env["PATH"]; ownPath || strings.Contains(name, "/") {
		return nil // a path is the spawn's to check, relative to the server's dir
	}
	if _, err := exec.LookPath(name); err != nil {
		return fmt.Errorf("start: %w (install it in the template, or check PATH)", err)
	}
	return nil
}
