package proc

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// procRef names one process for as long as it lives: its pid and its
// start time (in clock ticks since boot, /proc/<pid>/stat field 22), so
// that a pid reused by a later process is never taken for it.
type procRef struct {
	pid   int
	start string
}

// procStat is one process as /proc/<pid>/stat shows it.
type procStat struct {
	ppid  int
	state byte // 'R', 'S', …, 'Z' for a zombie
	start string
}

// readStat reads /proc/<pid>/stat; ok is false if the process is gone.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	// After the command: state (3), ppid (4), …, starttime (22).
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || len(f[0]) == 0 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	return procStat{ppid: ppid, state: f[0][0], start: f[19]}, true
}

// descendants lists the live processes whose ancestry reaches pid, from
// /proc; zombies are left out (they are dead, only not yet reaped).
func descendants(pid int) []procRef {
	entries, _ := os.ReadDir("/proc")
	stats := make(map[int]procStat, len(entries))
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			if st, ok := readStat(p); ok {
				stats[p] = st
			}
		}
	}
	var out []procRef
	for p, st := range stats {
		if st.state == 'Z' || st.state == 'X' {
			continue
		}
		for q, n := st.ppid, 0; q > 1 && n < 64; q, n = stats[q].ppid, n+1 {
			if q == pid {
				out = append(out, procRef{pid: p, start: st.start})
				break
			}
		}
	}
	return out
}

// killRefs SIGKILLs each process of refs that still runs as the same
// process (same start time).
func killRefs(refs []procRef) {
	for _, r := range refs {
		if st, ok := readStat(r.pid); ok && st.start == r.start && st.state != 'Z' {
			_ = syscall.Kill(r.pid, syscall.SIGKILL)
		}
	}
}
