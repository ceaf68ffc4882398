package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcp-gateway/mcp-gateway/ipc"
	"golang.org/x/sys/unix"
)

// Binaries are the programs the benchmark runs.
type Binaries struct {
	Gateway string // mcp-gateway, built from this tree
	Echo    string // bench/echo
	Floor   string // bench/floor
}

// Build builds the gateway (as `make build` does, without stripping), the
// echo server and the floor proxy into dir.
func Build(ctx context.Context, dir string) (Binaries, error) {
	root, err := moduleRoot()
	if err != nil {
		return Binaries{}, err
	}
	b := Binaries{Gateway: filepath.Join(dir, "mcp-gateway"), Echo: filepath.Join(dir, "echo"), Floor: filepath.Join(dir, "floor")}
	for _, t := range []struct{ out, pkg string }{{b.Gateway, "./cmd/mcp-gateway"}, {b.Echo, "./bench/echo"}, {b.Floor, "./bench/floor"}} {
		cmd := exec.CommandContext(ctx, goTool(), "build", "-trimpath", "-o", t.out, t.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return Binaries{}, fmt.Errorf("go build %s: %v\n%s", t.pkg, err, out)
		}
	}
	return b, nil
}

// ModuleRoot returns the directory of this module's go.mod.
func moduleRoot() (string, error) {
	out, err := exec.Command(goTool(), "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the mcp-gateway module")
	}
	return filepath.Dir(mod), nil
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// Gateway is one running daemon, started with `mcp-gateway --config`.
type Gateway struct {
	PID   int
	URL   string // http://127.0.0.1:port/mcp
	Base  string // http://127.0.0.1:port
	Token string
	Dir   string
	// Ready is the launcher's wall time: start → exit 0.
	Ready time.Duration
	// Keeper is the daemon's parent, its keeper (one per daemon), which
	// Stop reaps.
	Keeper int

	stopped bool
}

// LaunchOptions vary a launch from LaunchGateway's defaults.
type LaunchOptions struct {
	Env        []string // added to the environment
	Dir        string   // the gateway's files go here instead of a fresh directory (a warm daemon's)
	ServersDir string   // --servers-dir, instead of one in the gateway's directory
	// Prefix runs the launcher through it: {"unshare", "-n"} launches in
	// a network namespace of its own, listening on all interfaces (its
	// loopback is down there, so 127.0.0.1 cannot be bound).
	Prefix []string
}

var readyLine = regexp.MustCompile(`ready on (http://\S+/mcp) \(pid (\d+)`)

// LaunchGateway runs `mcp-gateway --config config` with its files under a
// fresh directory in dir, on an ephemeral loopback port, and returns once
// the launcher exited 0.
func LaunchGateway(ctx context.Context, bin, config, dir string, env ...string) (*Gateway, error) {
	return LaunchGatewayWith(ctx, bin, config, dir, LaunchOptions{Env: env})
}

// LaunchGatewayWith is LaunchGateway with o.
func LaunchGatewayWith(ctx context.Context, bin, config, dir string, o LaunchOptions) (*Gateway, error) {
	d := o.Dir
	if d == "" {
		var err error
		if d, err = os.MkdirTemp(dir, "gw-"); err != nil {
			return nil, err
		}
	}
	g := &Gateway{Dir: d, Token: "bench-token-" + strconv.Itoa(os.Getpid())}
	listen := "127.0.0.1"
	if len(o.Prefix) > 0 {
		listen = ""
	}
	args := append(append([]string{}, o.Prefix...), bin, "--config", config, "--port", "0", "--listen", listen)
	args = append(args, gatewayPaths(d, o.ServersDir)...)
	cmd := exec.CommandContext(ctx, args[0], append(args[1:], "--startup-timeout", "30s")...)
	// No code API (SPEC §12) unless o.Env asks for one (phase code): its
	// write after ready is not what the other figures measure. By
	// environment, not a flag, so that an older build (-gateway) starts.
	cmd.Env = append(append(os.Environ(), CodeDirEnv+"=off"), o.Env...)
	cmd.Env = append(cmd.Env, "GATEWAY_ACCESS_TOKEN="+g.Token)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	g.Ready = time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("mcp-gateway --config: %v\n%s%s\nlog: %s", err, out.String(), errOut.String(), tailFile(filepath.Join(d, "gateway.log")))
	}
	m := readyLine.FindStringSubmatch(out.String())
	if m == nil {
		return nil, fmt.Errorf("mcp-gateway --config: no ready line in %q", out.String())
	}
	g.URL = m[1]
	g.Base = strings.TrimSuffix(m[1], "/mcp")
	g.PID, _ = strconv.Atoi(m[2])
	g.Keeper = parentOf(g.PID)
	return g, nil
}

// gatewayPaths are the path flags of a gateway whose files are in d (the
// servers in serversDir, if given).
func gatewayPaths(d, serversDir string) []string {
	if serversDir == "" {
		serversDir = filepath.Join(d, "servers")
	}
	return []string{"--token-file", filepath.Join(d, "token"), "--log-file", filepath.Join(d, "gateway.log"),
		"--run-dir", filepath.Join(d, "run"), "--catalog-file", filepath.Join(d, "catalog.json"),
		"--servers-dir", serversDir, "--adapters-dir", filepath.Join(d, "adapters")}
}

// parentOf is pid's parent, from /proc (0 if it cannot be read).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// Floor is a running floor proxy (bench/floor) in front of one upstream,
// or another server of the benchmark's own that serves HTTP (the Go echo
// with --http, StartHTTPEcho).
type Floor struct {
	cmd     *exec.Cmd
	URL     string
	stopped bool
}

// StartFloor starts the floor proxy over upstream argv, in a session of
// its own, as the gateway's daemon runs (setsid): with the kernel's
// autogroup scheduling (sched_autogroup_enabled, on by default), the
// CPUs are shared fairly between sessions before threads, and a floor
// in the load generator's session shared its share with it, while the
// daemon competed for one of its own. At 16 clients that alone made the
// floor ~1.25x faster than the same floor in its own session (issue 33).
func StartFloor(bin string, argv []string) (*Floor, error) {
	return startListening("floor proxy", bin, append([]string{"--"}, argv...), true)
}

// StartHTTPEcho starts the Go echo serving Streamable HTTP on a free
// loopback port (echo --http).
func StartHTTPEcho(bin string) (*Floor, error) {
	return startListening("HTTP echo", bin, []string{"--http", "127.0.0.1:0"}, false)
}

// startListening starts bin with args, in a session of its own if
// session, and returns once it prints "listening on URL".
func startListening(what, bin string, args []string, session bool) (*Floor, error) {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: session}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("%s did not start: %q %v %s", what, line, err, stderr.String())
	}
	return &Floor{cmd: cmd, URL: url}, nil
}

// PID is the proxy's process id.
func (f *Floor) PID() int { return f.cmd.Process.Pid }

// Stop stops the proxy, which stops its upstream first. Later calls do
// nothing.
func (f *Floor) Stop() {
	if f.stopped {
		return
	}
	f.stopped = true
	_ = f.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = f.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = f.cmd.Process.Kill()
		<-done
	}
}

// ServerPIDs returns the pids /health shows (each server's process).
func (g *Gateway) ServerPIDs() ([]int, error) {
	resp, err := http.Get(g.Base + "/health")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var h struct {
		Servers []struct {
			PID int `json:"pid"`
		} `json:"servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return nil, err
	}
	var pids []int
	for _, s := range h.Servers {
		pids = append(pids, s.PID)
	}
	return pids, nil
}

// Stop sends SIGTERM and waits for the daemon to be gone (SIGKILL after
// 15 s). Later calls do nothing.
func (g *Gateway) Stop() error {
	// Once only: after it is reaped, its pid may belong to another process.
	if g.stopped {
		return nil
	}
	g.stopped = true
	_ = syscall.Kill(g.PID, syscall.SIGTERM)
	deadline := time.Now().Add(15 * time.Second)
	for alive(g.PID) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(g.PID, syscall.SIGKILL)
			return fmt.Errorf("gateway pid %d did not stop within 15 s of SIGTERM", g.PID)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Its keeper, which reaped it, exits now; reap the keeper, which was
	// reparented to us when the launcher exited (see Subreaper). ECHILD
	// if it was not.
	for deadline := time.Now().Add(5 * time.Second); g.Keeper > 1 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var ws syscall.WaitStatus
		if pid, err := syscall.Wait4(g.Keeper, &ws, syscall.WNOHANG, nil); pid == g.Keeper || err != nil {
			break
		}
	}
	return nil
}

// Subreaper makes this process the reaper of its orphaned descendants, so
// that the daemons it launched (which the launcher leaves behind, in their
// own session) are reaped by Stop instead of lingering as zombies where
// PID 1 does not reap.
func Subreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// alive reports whether pid still runs (ipc.Gone). The daemon is not our
// child (it runs in its own session), so it is reaped elsewhere.
func alive(pid int) bool { return !ipc.Gone(pid) }

// Mem is a process's memory from /proc/<pid>/status, in KiB. RSS is
// Anon (private heap and stacks) + File (mapped pages of the executable
// and libraries, shared by every process running the same binary).
type Mem struct{ RSS, HWM, Anon, File int64 }

// ReadMem reads VmRSS, VmHWM, RssAnon and RssFile of pid.
func ReadMem(pid int) (Mem, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return Mem{}, err
	}
	var m Mem
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.RSS = n
		case "VmHWM:":
			m.HWM = n
		case "RssAnon:":
			m.Anon = n
		case "RssFile:":
			m.File = n
		}
	}
	return m, nil
}

// ProcCPU returns the CPU time of pid: the sum over its threads of
// /proc/<pid>/task/<tid>/schedstat (nanoseconds on a CPU), or, where that
// is missing, utime+stime from /proc/<pid>/stat (10 ms ticks).
func ProcCPU(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += n
		}
	}
	if sum > 0 {
		return time.Duration(sum)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	// After the command: state is field 3; utime and stime are 14 and 15.
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * 10 * time.Millisecond
}

// SelfCPU returns this process's user+system CPU time.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Children returns the pids of pid's children. Each thread lists the
// children it forked, so every thread is read.
func Children(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func tailFile(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// upstreamPID returns the pid of the i-th server's own process: /health
// shows the pid of the process the daemon started, and the server may
// run below it (a sh -c that did not exec).
func (g *Gateway) upstreamPID(i int) int {
	pids, err := g.ServerPIDs()
	if err != nil || i >= len(pids) {
		return 0
	}
	pid := pids[i]
	for {
		kids := Children(pid)
		if len(kids) != 1 {
			return pid
		}
		pid = kids[0]
	}
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runCmd is argv as a runCmd.
func runCmd(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
