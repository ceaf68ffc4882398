package chaos

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// This file starts and stops what the driver runs itself: the gateway
// (through its launcher and `mcp-gateway stop`, SPEC §2, §8.1) and the
// HTTP server it stops and starts again on the same port.

// gateway is the running daemon.
type gateway struct {
	bin, dir, runDir string
	url, token       string
	pid              int
}

// launchGateway runs the launcher with config and the paths and port of
// SPEC §10 under dir; env (KEY=VALUE) is added to the daemon's
// environment. It returns once the launcher says the endpoint is ready.
func launchGateway(bin, dir, config string, port int, env []string, flags ...string) (*gateway, error) {
	g := &gateway{bin: bin, dir: dir, runDir: filepath.Join(dir, "run"), token: "chaos-" + strconv.Itoa(port),
		url: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}
	cmd := exec.Command(bin, "--config", config, "--port", strconv.Itoa(port), "--listen", "127.0.0.1",
		"--token-file", filepath.Join(dir, "token"), "--log-file", filepath.Join(dir, "gateway.log"),
		"--run-dir", g.runDir, "--catalog-file", filepath.Join(dir, "catalog.json"))
	cmd.Args = append(cmd.Args, flags...)
	cmd.Env = append(append(os.Environ(), "GATEWAY_ACCESS_TOKEN="+g.token), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("launch the gateway: %w: %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(g.runDir, "mcp-gateway.pid"))
	if err != nil {
		return nil, fmt.Errorf("read the gateway's pid: %w", err)
	}
	if g.pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
		return nil, fmt.Errorf("read the gateway's pid: %w", err)
	}
	return g, nil
}

// stop runs `mcp-gateway stop`, which returns once the daemon is gone.
func (g *gateway) stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, g.bin, "stop", "--run-dir", g.runDir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("mcp-gateway stop: %w: %s", err, out)
	}
	return nil
}

// webServer is server-everything in its streamableHttp mode on a port of
// its own, started by the driver (so not the gateway's to supervise).
type webServer struct {
	node, script, logPath string
	port                  int
	env                   []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has been waited for
}

// start starts the server and waits until its port accepts (bounded).
func (s *webServer) start() error {
	log, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("start the HTTP server: %w", err)
	}
	cmd := exec.Command(s.node, s.script, "streamableHttp")
	cmd.Env = append(append(os.Environ(), "PORT="+strconv.Itoa(s.port)), s.env...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start the HTTP server: %w", err)
	}
	done := make(chan struct{})
	go func() { // the one owner of cmd's Wait
		_ = cmd.Wait()
		log.Close()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", s.port), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("start the HTTP server: it exited (see %s)", s.logPath)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("start the HTTP server: port %d not listening after 20 s", s.port)
		}
	}
}

// pid is the running server's pid, or 0.
func (s *webServer) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// stop sends SIGTERM to the server's group, SIGKILL after 5 s, and waits.
func (s *webServer) stop() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.cmd = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGCONT) // in case it is stopped
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}

// freePorts returns n distinct free ports of 127.0.0.1, each held until
// all are found: ports found one after the other, each closed at once,
// came back the same (the driver's HTTP server and webrun got one port, so
// webrun never started, "already in use", and the gateway's webrun was the
// driver's server).
func freePorts(n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// logLines reads the gateway's log and its rotated backups (lumberjack
// keeps them beside it as gateway-<time>.log), oldest first.
func logLines(dir string) ([]string, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "gateway-*.log"))
	files = append(files, filepath.Join(dir, "gateway.log"))
	var lines []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, fmt.Errorf("read the log: %w", err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		fh.Close()
	}
	return lines, nil
}
