package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcp-gateway/mcp-gateway/adapters"
	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// startServers starts every server and waits until each has answered
// initialize and tools/list, or timeout, the startup timeout, passes
// (SPEC §2.2, §2.4). A signal on sigs ends the starts. The error names the servers
// still starting on a timeout, with a hint; the caller stops the servers.
func startServers(sup *supervisor.Supervisor, servers []adapters.Server, timeout time.Duration, sigs <-chan os.Signal, logger *slog.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var interrupted os.Signal
	startDone := make(chan struct{})
	watchDone := make(chan struct{})
	go func() { // owned here: waited for below
		defer close(watchDone)
		select {
		case interrupted = <-sigs:
			logger.Warn("signal while the servers start; stopping them", "signal", interrupted.String())
			sup.Interrupt()
		case <-startDone:
		}
	}()
	err := sup.StartAll(ctx)
	close(startDone)
	<-watchDone
	if err == nil && interrupted == nil {
		return nil
	}
	if err == nil {
		err = errors.New("the servers' starts were ended")
	}
	if interrupted != nil {
		err = fmt.Errorf("interrupted by %v while the servers started: %w", interrupted, err)
	}
	if starting := supervisor.TimedOut(err); len(starting) > 0 {
		err = fmt.Errorf("startup timed out after %s; still starting: %s; %s: %w",
			timeout, strings.Join(starting, ", "), timeoutHint(servers, starting), err)
	}
	logger.Error("start failed", "error", err)
	return err
}

// timeoutHint suggests what to do about servers that did not start in
// time: pre-install catalog and GitHub servers with pull (SPEC §2.4),
// unless they were pulled (SPEC §2.8); a local command, or a pulled
// server, can only be made faster or given more time, and an HTTP
// server's url must answer.
func timeoutHint(servers []adapters.Server, slow []string) string {
	var pullable, local, remote []string
	for _, s := range servers {
		if !slices.Contains(slow, s.Name) {
			continue
		}
		switch {
		case s.Spec.Kind == "command" || s.Spec.Pulled != "":
			local = append(local, s.Name)
		case s.Spec.Kind == "http":
			remote = append(remote, s.Name)
		default:
			pullable = append(pullable, s.Name)
		}
	}
	var hints []string
	if len(pullable) > 0 {
		hints = append(hints, "pre-install them in the template with `mcp-gateway pull "+strings.Join(pullable, " ")+"`")
	}
	if len(local) > 0 {
		hints = append(hints, "make "+strings.Join(local, ", ")+" start faster or raise --startup-timeout")
	}
	if len(remote) > 0 {
		hints = append(hints, "check that the url of "+strings.Join(remote, ", ")+" answers (and that its runCmd serves it), or raise --startup-timeout")
	}
	return strings.Join(hints, "; ")
}
