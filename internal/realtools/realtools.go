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

// Tool is one tool of a real server.
type Tool struct {
	Server string // the server's name, as a config key would give it: "github", "google-maps"
	Name   string // the tool's name, as the server gives it
	// Definition is the tool object as the server sent it in tools/list,
	// byte for byte.
	Definition json.RawMessage
}

// server is one reference server and how to start it with what it needs
// to list its tools: dummy credentials, a directory, a database URL.
type server struct {
	name string
	bin  string   // in test/node_modules/.bin
	args []string // "{dir}" is replaced by a scratch directory
	env  []string
	// http: the server speaks Streamable HTTP on $PORT at /mcp. The
	// everything server lists its tools that depend on the client's
	// capabilities only there: over stdio it registers them before it
	// has read initialize.
	http bool
}

// servers are in config-key order (SPEC §4.1), the order Load returns.
var servers = []server{
	{name: "brave-search", bin: "mcp-server-brave-search", env: []string{"BRAVE_API_KEY=x"}},
	{name: "everything", bin: "mcp-server-everything", args: []string{"streamableHttp"}, http: true},
	{name: "filesystem", bin: "mcp-server-filesystem", args: []string{"{dir}"}},
	{name: "github", bin: "mcp-server-github", env: []string{"GITHUB_PERSONAL_ACCESS_TOKEN=x"}},
	{name: "gitlab", bin: "mcp-server-gitlab", env: []string{"GITLAB_PERSONAL_ACCESS_TOKEN=x", "GITLAB_API_URL=http://127.0.0.1:9/api/v4"}},
	{name: "google-maps", bin: "mcp-server-google-maps", env: []string{"GOOGLE_MAPS_API_KEY=x"}},
	{name: "memory", bin: "mcp-server-memory", env: []string{"MEMORY_FILE_PATH={dir}/memory.jsonl"}},
	{name: "pdf", bin: "mcp-pdf-server", args: []string{"--stdio"}},
	{name: "postgres", bin: "mcp-server-postgres", args: []string{"postgresql://127.0.0.1:9/none"}},
	{name: "sequential-thinking", bin: "mcp-server-sequential-thinking", env: []string{"DISABLE_THOUGHT_LOGGING=true"}},
	{name: "slack", bin: "mcp-server-slack", env: []string{"SLACK_BOT_TOKEN=x", "SLACK_TEAM_ID=x"}},
}

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

// initialize declares every capability a client may have, so that a
// server lists the tools that need one.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
	`"capabilities":{"roots":{},"sampling":{},"elicitation":{"form":{},"url":{}},` +
	`"tasks":{"requests":{"sampling":{"createMessage":{}},"elicitation":{"create":{}}}}},` +
	`"clientInfo":{"name":"realtools","version":"0"}}}`

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

// listParams are tools/list's params for the page after cursor.
func listParams(cursor string) string {
	if cursor == "" {
		return "{}"
	}
	c, _ := json.Marshal(cursor)
	return `{"cursor":` + string(c) + `}`
}

// page adds the tools of one tools/list result to tools, and returns the
// next page's cursor ("" at the end).
func (s server) page(tools []Tool, result json.RawMessage) ([]Tool, string, error) {
	var page struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.Unmarshal(result, &page); err != nil {
		return nil, "", fmt.Errorf("tools/list: %w", err)
	}
	for _, def := range page.Tools {
		var named struct{ Name string }
		if err := json.Unmarshal(def, &named); err != nil || named.Name == "" {
			return nil, "", fmt.Errorf("tools/list: a tool without a name: %.200s", def)
		}
		tools = append(tools, Tool{Server: s.name, Name: named.Name, Definition: slices.Clone(def)})
	}
	return tools, page.NextCursor, nil
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
