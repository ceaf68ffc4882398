package main

import (
	"bytes"
	"strings"
	"testing"
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
		{[]string{"--config-file", "/nonexistent/config.json"}, 1, "", "read config file: open /nonexistent/config.json"},
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
