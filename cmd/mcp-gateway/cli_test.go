package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLIUsage checks exit statuses and messages of the commands that fail
// or answer before anything starts: 0 help, 1 failure, 2 bad usage.
func TestCLIUsage(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		wantOut    string // in stdout
		wantErrOut string // in stderr
	}{
		{[]string{"--help"}, 0, "-config-file", ""},
		{[]string{"--help"}, 0, "mcp-gateway status [--json]", ""},
		{[]string{"version"}, 0, "mcp-gateway ", ""},
		{[]string{"version", "--help"}, 0, "", "Usage: mcp-gateway version"},
		{[]string{"version", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{}, 2, "", "no config: give --config"},
		{[]string{"--config", "{}", "--config-file", "x"}, 2, "", "not both"},
		{[]string{"--config-file", "/nonexistent/config.json"}, 1, "", "read config file /nonexistent/config.json: open /nonexistent/config.json"},
		{[]string{"--config", "{}", "--max-sessions", "0"}, 2, "", "--max-sessions must be at least 1"},
		{[]string{"--config", "{}", "--session-timeout", "0s"}, 2, "", "--session-timeout must be positive"},
		{[]string{"--config", "{}", "--startup-timeout", "-1s"}, 2, "", "--startup-timeout must be positive"},
		{[]string{"serve", "--config-file", "/nonexistent/config.json"}, 1, "", "read config file"},
	} {
		var out, errOut bytes.Buffer
		code := Main(tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(out.String(), tc.wantOut) || !strings.Contains(errOut.String(), tc.wantErrOut) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d, stdout with %q, stderr with %q",
				tc.args, code, out.String(), errOut.String(), tc.code, tc.wantOut, tc.wantErrOut)
		}
	}
}

// A FIFO named as the config or catalog file fails the launch at once:
// opening one used to block the launcher forever.
func TestFIFOFilesFailFast(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--run-dir", filepath.Join(dir, "run"), "--token-file", filepath.Join(dir, "token"), "--log-file", filepath.Join(dir, "log")}
	for _, args := range [][]string{
		{"--config-file", fifo},
		{"--config", "{}", "--catalog-file", fifo},
	} {
		done := make(chan struct{})
		var code int
		var errOut bytes.Buffer
		go func() {
			defer close(done)
			code = Main(append(args, flags...), io.Discard, &errOut)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: still running after 10 s", args)
		}
		if code != 1 || !strings.Contains(errOut.String(), fifo+": not a regular file (a FIFO)") ||
			(args[0] == "--config" && !strings.Contains(errOut.String(), "mcp-gateway: invalid catalog file:")) {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut.String())
		}
	}
}
