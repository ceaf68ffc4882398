package chaos

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// This file reads the daemon's process tree and its resources from /proc,
// as an operator would: a process is known by its pid and its start time
// (field 22 of /proc/<pid>/stat), so a reused pid is never taken for the
// process that had it.

// proc is one process as /proc/<pid>/stat shows it.
type proc struct {
	pid, ppid, pgid int
	start           uint64 // clock ticks after boot
	state           byte   // R, S, D, T, Z, …
	comm            string
}

// key names a process for its whole life.
func (p proc) key() string { return fmt.Sprintf("%d@%d", p.pid, p.start) }

// readProc reads /proc/<pid>/stat.
func readProc(pid int) (proc, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, fmt.Errorf("read stat of %d: %w", pid, err)
	}
	// comm is in parentheses and may hold spaces or parentheses itself.
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return proc{}, fmt.Errorf("read stat of %d: malformed", pid)
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 {
		return proc{}, fmt.Errorf("read stat of %d: %d fields", pid, len(f))
	}
	p := proc{pid: pid, comm: string(b[open+1 : end]), state: f[0][0]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgid, _ = strconv.Atoi(f[2])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	return p, nil
}

// allProcs lists every process visible in /proc.
func allProcs() []proc {
	ents, _ := os.ReadDir("/proc")
	var ps []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := readProc(pid); err == nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// descendants returns every live descendant of root (not root itself),
// each after its parent.
func descendants(root int) []proc {
	children := map[int][]proc{}
	for _, p := range allProcs() {
		children[p.ppid] = append(children[p.ppid], p)
	}
	var out []proc
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			out = append(out, c)
			queue = append(queue, c.pid)
		}
	}
	return out
}

// running reports whether p is still there and not a zombie: PID 1 of
// these sandboxes does not reap orphans, so a dead orphan stays Z.
func running(p proc) bool {
	now, err := readProc(p.pid)
	return err == nil && now.start == p.start && now.state != 'Z'
}

// hasEnv reports whether process pid's environment holds kv ("K=V").
func hasEnv(pid int, kv string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	for _, e := range bytes.Split(b, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}

// marked returns the live processes (not zombies) whose environment holds
// kv: every process the gateway started carries the marker the driver
// put in the daemon's environment, however far it wandered from the tree.
func marked(kv string) []proc {
	var out []proc
	for _, p := range allProcs() {
		if p.state != 'Z' && hasEnv(p.pid, kv) {
			out = append(out, p)
		}
	}
	return out
}

// fdCount is the number of open file descriptors of pid.
func fdCount(pid int) (int, error) {
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		return 0, fmt.Errorf("read fds of %d: %w", pid, err)
	}
	return len(ents), nil
}

// rssAnonKiB is the RssAnon line of /proc/<pid>/status, in KiB.
func rssAnonKiB(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("read status of %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				return 0, fmt.Errorf("read RssAnon of %d: %w", pid, err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("read RssAnon of %d: no such line", pid)
}

// fdKinds counts pid's open fds by what they are: socket, pipe, an
// anon_inode's kind, or a file's path (for the report when fds stay up).
func fdKinds(pid int) map[string]int {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, _ := os.ReadDir(dir)
	kinds, sockets := map[string]int{}, socketNames()
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if inode, ok := strings.CutPrefix(target, "socket:["); ok {
			target = "socket " + sockets[strings.TrimSuffix(inode, "]")]
		} else if i := strings.Index(target, ":["); i > 0 && !strings.HasPrefix(target, "anon_inode") {
			target = target[:i] // pipe:[456]
		}
		kinds[target]++
	}
	return kinds
}

// tcpStates are the kernel's TCP state numbers (include/net/tcp_states.h).
var tcpStates = map[string]string{"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1",
	"05": "FIN_WAIT2", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT", "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"}

// socketNames maps socket inodes to what they are: "tcp :LOCAL->:REMOTE
// STATE" (ports only: every socket here is on loopback) or "unix".
func socketNames() map[string]string {
	names := map[string]string{}
	port := func(addr string) string {
		_, p, _ := strings.Cut(addr, ":")
		n, _ := strconv.ParseUint(p, 16, 32)
		return ":" + strconv.FormatUint(n, 10)
	}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fl := strings.Fields(line)
			if len(fl) < 10 {
				continue
			}
			names[fl[9]] = fmt.Sprintf("tcp %s->%s %s", port(fl[1]), port(fl[2]), tcpStates[fl[3]])
		}
	}
	b, _ := os.ReadFile("/proc/net/unix")
	for _, line := range strings.Split(string(b), "\n")[1:] {
		if fl := strings.Fields(line); len(fl) >= 7 {
			names[fl[6]] = "unix"
		}
	}
	return names
}
