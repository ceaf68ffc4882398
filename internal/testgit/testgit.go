// Package testgit finds the git binary for the tests that serve a
// repository with `git http-backend` (the gateway itself clones with
// go-git and needs no git, SPEC §5.3).
package testgit

import (
	"os"
	"os/exec"
	"testing"
)

// Bin returns the path of the git binary. Without one the test is
// skipped on a developer's machine, but fails under CI=true: there every
// test must run, and .ci/run installs git.
func Bin(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("git")
	if err == nil {
		return bin
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("git binary not found under CI=true; the test's http-backend needs it (.ci/run installs it): %v", err)
	}
	t.Skip("git binary not found; needed for the test's http-backend")
	return ""
}
