package pulled

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// listening returns the address of a TCP listener that accepts, and one
// where nothing listens.
func listening(t *testing.T) (open, closed string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	gone, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed = gone.Addr().String()
	gone.Close()
	return ln.Addr().String(), closed
}

func TestReachUV(t *testing.T) {
	open, closed := listening(t)
	if err := Reach(context.Background(), UV, []string{"UV_INDEX_URL=http://" + open + "/simple"}); err != nil {
		t.Errorf("reachable index: %v", err)
	}
	start := time.Now()
	err := Reach(context.Background(), UV, []string{"UV_INDEX_URL=http://" + closed + "/simple"})
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "the Python package index http://"+closed+"/simple could not be reached") {
		t.Errorf("refused index: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a refused connection took %v to report", d)
	}
	// A proxy in the way is what is dialled; NO_PROXY exempts the host.
	env := []string{"UV_DEFAULT_INDEX=https://pypi.example/simple", "HTTPS_PROXY=http://user:secret@" + open}
	if err := Reach(context.Background(), UV, env); err != nil {
		t.Errorf("through a reachable proxy: %v", err)
	}
	env = []string{"UV_DEFAULT_INDEX=https://pypi.example/simple", "HTTPS_PROXY=http://user:secret@" + closed}
	if err := Reach(context.Background(), UV, env); err == nil || !strings.Contains(err.Error(), "through the proxy http://user:xxxxx@"+closed) || strings.Contains(err.Error(), "secret") {
		t.Errorf("through a refused proxy: %v", err)
	}
	env = []string{"UV_INDEX_URL=http://" + open + "/simple", "HTTP_PROXY=http://" + closed, "NO_PROXY=127.0.0.1"}
	if err := Reach(context.Background(), UV, env); err != nil {
		t.Errorf("NO_PROXY host: %v", err)
	}
}

// npm's own configuration names the registry: npm_config_registry here,
// as an .npmrc would.
func TestReachNPM(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npm is missing in CI")
		}
		t.Skip("npm not on PATH")
	}
	open, closed := listening(t)
	env := append(os.Environ(), "npm_config_registry=http://"+open+"/")
	if err := Reach(context.Background(), NPM, env); err != nil {
		t.Errorf("reachable registry: %v", err)
	}
	env = append(os.Environ(), "npm_config_registry=http://"+closed+"/")
	if err := Reach(context.Background(), NPM, env); err == nil || !strings.Contains(err.Error(), "the npm registry http://"+closed+"/ could not be reached") {
		t.Errorf("refused registry: %v", err)
	}
}
