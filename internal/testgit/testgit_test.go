package testgit

import (
	"os/exec"
	"testing"
)

func TestBinFindsGit(t *testing.T) {
	want, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git here; Bin's CI=true failure is what .ci/run relies on")
	}
	if got := Bin(t); got != want {
		t.Errorf("Bin = %q, want %q", got, want)
	}
}
