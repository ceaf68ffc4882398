package conformance

// The processes of a run: a fixture, the gateway with it behind it, the
// bearer proxy in front; usable from any goroutine (no *testing.T).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/internal/testwait"
	"github.com/mcp-gateway/mcp-gateway/ipc"
)

// fixture is a server the gateway runs behind it.
type fixture struct {
	name string // "legacy", "modern", "legacy-no-tasks", "legacy-http", "modern-http"
	// runCmd is its runCmd, appending its pid to pidfile.
	runCmd func(pidfile string) string
	// httpCmd, if set, serves the fixture over Streamable HTTP (SPEC §5.6):
	// it is runCmd for a fixture listening on port, which the gateway
	// reaches at http://127.0.0.1:<port>/mcp once it answers.
	httpCmd func(pidfile string, port int) string
	// listTools lists its tool names (its --list-tools).
	listTools func() ([]string, error)
}

// entry is the config entry of f, pidfile its runCmd's pid file.
func (f fixture) entry(pidfile string) (map[string]any, error) {
	if f.httpCmd == nil {
		return map[string]any{"runCmd": f.runCmd(pidfile)}, nil
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	return map[string]any{"runCmd": f.httpCmd(pidfile, port), "url": fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}, nil
}

var (
	legacyFixture = fixture{name: "legacy",
		runCmd:    func(pidfile string) string { return shellQuote(env.fixtureBin) + " -pidfile " + shellQuote(pidfile) },
		listTools: func() ([]string, error) { return listedTools(env.fixtureBin, "-list-tools") }}
	legacyNoTasksFixture = fixture{name: "legacy-no-tasks",
		runCmd: func(pidfile string) string {
			return shellQuote(env.fixtureBin) + " -no-tasks -pidfile " + shellQuote(pidfile)
		},
		listTools: legacyFixture.listTools}
	modernFixture = fixture{name: "modern",
		runCmd: func(pidfile string) string {
			return shellQuote(env.node) + " " + shellQuote(env.modernFixture) + " --pidfile " + shellQuote(pidfile)
		},
		listTools: func() ([]string, error) { return listedTools(env.node, env.modernFixture, "--list-tools") }}

	// The same fixtures served over Streamable HTTP (fixture/http.go; the
	// modern fixture's --http), reached by the gateway at their url.
	legacyHTTPFixture = fixture{name: "legacy-http",
		httpCmd: func(pidfile string, port int) string {
			return fmt.Sprintf("exec %s -http 127.0.0.1:%d -pidfile %s", shellQuote(env.fixtureBin), port, shellQuote(pidfile))
		},
		listTools: legacyFixture.listTools}
	modernHTTPFixture = fixture{name: "modern-http",
		httpCmd: func(pidfile string, port int) string {
			return fmt.Sprintf("exec %s %s --http %d --pidfile %s", shellQuote(env.node), shellQuote(env.modernFixture), port, shellQuote(pidfile))
		},
		listTools: modernFixture.listTools}
)

func listedTools(argv ...string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := exec.CommandContext(ctx, argv[0], argv[1:]...).Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return strings.Fields(string(b)), nil
}

// gatewayProc is one `mcp-gateway serve` with one fixture behind it and
// the bearer proxy in front.
type gatewayProc struct {
	url     string // the proxy's /mcp: what the suites reach
	base    string // the gateway's own http://127.0.0.1:port
	token   string
	dir     string
	pidfile string
	cmd     *exec.Cmd
	exited  chan error
	out     *syncBuffer
	proxy   *http.Server
	proxyLg *syncBuffer
}

// startGateway runs `mcp-gateway serve` in dir with f as its only server
// and waits until /health reports it ready, then puts the proxy in front.
func startGateway(dir string, f fixture) (*gatewayProc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	g := &gatewayProc{dir: dir, pidfile: filepath.Join(dir, "fixture.pids"), token: randomToken(), out: &syncBuffer{}, proxyLg: &syncBuffer{}, exited: make(chan error, 1)}
	entry, err := f.entry(g.pidfile)
	if err != nil {
		return nil, err
	}
	config, _ := json.Marshal(map[string]any{"conformance": entry})
	g.cmd = exec.Command(env.gatewayBin, "serve", "--config", string(config), "--port", strconv.Itoa(port), "--listen", "127.0.0.1",
		"--token-file", filepath.Join(dir, "token"), "--log-file", g.logFile(), "--run-dir", filepath.Join(dir, "run"),
		"--catalog-file", filepath.Join(dir, "catalog.json"), "--startup-timeout", "30s")
	g.cmd.Env = append(os.Environ(), "GATEWAY_ACCESS_TOKEN="+g.token)
	// Setpgid: a failed stop can kill the gateway's whole group; Pdeathsig:
	// the gateway gets SIGTERM if this test process dies first.
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	g.cmd.Stdout, g.cmd.Stderr = g.out, g.out
	if err := g.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { g.exited <- g.cmd.Wait() }()
	g.base = "http://127.0.0.1:" + strconv.Itoa(port)
	if err := g.awaitReady(); err != nil {
		_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
		<-g.exited
		return nil, fmt.Errorf("%w\n%s", err, g.dump())
	}
	if g.url, g.proxy, err = startProxy(g.base, g.token, g.proxyLg); err != nil {
		_ = g.stop()
		return nil, err
	}
	g.url += "/mcp"
	return g, nil
}

func (g *gatewayProc) logFile() string { return filepath.Join(g.dir, "gateway.log") }

// awaitReady polls /health until the gateway reports ok with its tools.
func (g *gatewayProc) awaitReady() error {
	client := &http.Client{Timeout: 2 * time.Second}
	var err error // set when the wait is over without the gateway ready
	ready := testwait.Until(readyTimeout, func() bool {
		select {
		case exit := <-g.exited:
			g.exited <- exit
			err = fmt.Errorf("the gateway exited before it was ready: %v", exit)
			return true
		default:
		}
		h, ok := getHealth(client, g.base)
		if ok && h.Status == "degraded" {
			err = fmt.Errorf("the gateway reports status degraded: %+v", h)
		}
		return ok && (h.Status == "degraded" || h.Status == "ok" && h.Tools > 0)
	})
	if !ready {
		return fmt.Errorf("the gateway was not ready within %s", readyTimeout)
	}
	return err
}

// dump is the gateway's output and log, for a failure's report.
func (g *gatewayProc) dump() string {
	lg, _ := os.ReadFile(g.logFile())
	s := fmt.Sprintf("--- gateway stdout/stderr ---\n%s\n--- %s ---\n%s", g.out.String(), g.logFile(), lg)
	if p := g.proxyLg.String(); p != "" {
		s += "\n--- proxy errors ---\n" + p
	}
	return s
}

// stop ends the gateway with SIGTERM and checks that it, and every
// fixture process it started, exited (SPEC §7.6: no orphans).
func (g *gatewayProc) stop() error {
	if g.proxy != nil {
		_ = g.proxy.Close()
	}
	var errs []error
	select {
	case err := <-g.exited:
		_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
		return fmt.Errorf("the gateway exited during the test: %v", err)
	default:
	}
	if err := g.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		errs = append(errs, fmt.Errorf("SIGTERM the gateway: %w", err))
	}
	select {
	case err := <-g.exited:
		if err != nil {
			errs = append(errs, fmt.Errorf("the gateway exited with %v after SIGTERM", err))
		}
	case <-time.After(stopTimeout):
		_ = syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
		<-g.exited
		errs = append(errs, fmt.Errorf("the gateway did not exit within %s of SIGTERM; killed", stopTimeout))
	}
	b, _ := os.ReadFile(g.pidfile)
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil || pid <= 0 {
			continue
		}
		if !testwait.Until(5*time.Second, func() bool { return !alive(pid) }) {
			errs = append(errs, fmt.Errorf("fixture process %d outlived the gateway; killing it", pid))
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return errors.Join(errs...)
}

// alive reports whether pid runs (ipc.Gone: a process whose threads are
// all zombies counts as gone).
func alive(pid int) bool { return !ipc.Gone(pid) }

type health struct {
	Status string `json:"status"`
	Tools  int    `json:"tools"`
}

func getHealth(c *http.Client, base string) (health, bool) {
	var h health
	resp, err := c.Get(base + "/health")
	if err != nil {
		return h, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&h) != nil {
		return h, false
	}
	return h, true
}

// startProxy serves a reverse proxy to the gateway on 127.0.0.1 that adds
// the bearer token and passes Host, Origin and SSE streams through. Its
// error log goes to errs.
//
// The proxy reads each request body in full before forwarding it. Without
// that, httputil.ReverseProxy races with itself on fast SSE answers: it
// flushes the response headers to the client while its transport is still
// doing the final read of the client's request body, net/http then refuses
// that read ("invalid Read on closed Body"), and the transport closes the
// upstream connection, cutting the SSE stream mid-call. (Seen as
// elicitation-sep1034-defaults timing out about one run in ten.)
func startProxy(target, token string, errs io.Writer) (string, *http.Server, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", nil, err
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host // dns-rebinding-protection sets Host itself
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1,
		ErrorLog:      log.New(errs, "proxy: ", log.Lmicroseconds),
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxProxyBody+1))
		if err != nil || len(body) > maxProxyBody {
			http.Error(w, "proxy: cannot read the request body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		rp.ServeHTTP(w, r)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), srv, nil
}

// maxProxyBody bounds one request body through the proxy.
const maxProxyBody = 64 << 20

// syncBuffer is a bytes.Buffer safe for the process's writers and readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
