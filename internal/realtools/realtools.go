// Package realtools gives tests the tool definitions of real MCP servers:
// the reference servers pinned in test/package.json, started from
// test/node_modules over stdio and asked for tools/list. Tests of tool
// search (SPEC §4.10) and of the code API (SPEC §12) use it, so that they
// measure what agents meet, not hand-written fakes. It is for tests only.
//
// Without test/node_modules (run `make npm`) Load skips the test, except
// under CI=true, where that is a failure.
package realtools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	once   sync.Once
	loaded []Tool
	errAll error
)

// Load returns the tools of every reference server, servers in name order
// and each server's tools in its own order (about a hundred). The servers
// are started once per test binary, in parallel, and stopped once listed.
// It skips t without test/node_modules (fails under CI=true) and fails t
// if a server does not list its tools within 60 s.
func Load(t testing.TB) []Tool {
	t.Helper()
	bin := binDir(t)
	once.Do(func() { loaded, errAll = loadAll(bin) })
	if errAll != nil {
		t.Fatalf("real tools: %v", errAll)
	}
	return slices.Clone(loaded)
}

// binDir finds test/node_modules/.bin above the working directory.
func binDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("real tools: no go.mod above the working directory")
		}
		dir = parent
	}
	bin := filepath.Join(dir, "test", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, servers[0].bin)); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("test/node_modules is missing in CI: run `cd test && npm ci`")
		}
		t.Skip("test/node_modules missing: run `make npm` for the real servers' tools")
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node is missing in CI")
		}
		t.Skip("node missing: the real servers need it")
	}
	return bin
}

func loadAll(bin string) ([]Tool, error) {
	scratch, err := os.MkdirTemp("", "realtools-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	per := make([][]Tool, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Go(func() {
			dir := filepath.Join(scratch, s.name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				errs[i] = err
				return
			}
			per[i], errs[i] = s.list(ctx, bin, dir)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("server %s: %w", s.name, errs[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return slices.Concat(per...), nil
}

// list starts s, initializes it, pages through tools/list and stops it.
func (s server) list(ctx context.Context, bin, dir string) ([]Tool, error) {
	expand := func(v string) string { return string(bytes.ReplaceAll([]byte(v), []byte("{dir}"), []byte(dir))) }
	args := []string{filepath.Join(bin, s.bin)}
	for _, a := range s.args {
		args = append(args, expand(a))
	}
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for _, e := range s.env {
		cmd.Env = append(cmd.Env, expand(e))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var (
		in   io.WriteCloser
		out  io.Reader
		port int
		err  error
	)
	if s.http {
		if port, err = freePort(); err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, fmt.Sprintf("PORT=%d", port))
	} else {
		if in, err = cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if out, err = cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start: %w", err)
	}
	var tools []Tool
	if s.http {
		tools, err = s.overHTTP(ctx, fmt.Sprintf("http://127.0.0.1:%d/mcp", port))
	} else {
		tools, err = s.converse(bufio.NewReaderSize(out, 1<<20), in)
		in.Close()
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	_ = cmd.Wait()
	if err != nil {
		return nil, fmt.Errorf("%w (stderr: %.500s)", err, stderr.String())
	}
	return tools, nil
}

func (s server) converse(out *bufio.Reader, in interface{ Write([]byte) (int, error) }) ([]Tool, error) {
	send := func(msg string) error {
		_, err := in.Write([]byte(msg + "\n"))
		return err
	}
	if err := send(initialize); err != nil {
		return nil, err
	}
	if _, err := await(out, 1); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if err := send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	var tools []Tool
	cursor := ""
	for id := 2; ; id++ {
		if err := send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":%s}`, id, listParams(cursor))); err != nil {
			return nil, err
		}
		raw, err := await(out, id)
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		if tools, cursor, err = s.page(tools, raw); err != nil || cursor == "" {
			return tools, err
		}
	}
}

// await reads messages until the response to id, and returns its result.
// Lines that are not JSON (banners), notifications and server requests are
// passed over.
func await(out *bufio.Reader, id int) (json.RawMessage, error) {
	for {
		line, err := out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.Method != "" || string(msg.ID) != fmt.Sprint(id) {
			continue
		}
		if msg.Error != nil {
			return nil, fmt.Errorf("error %s", msg.Error)
		}
		return msg.Result, nil
	}
}
